"""The JSON model file carries GPT-2's architecture and weights; the chapter's file is as it was."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.random_models import config, weights
from tinytui.model.io.document import ModelFile, parse, to_document
from tinytui.model.io.field_checks import ModelFileError
from tinytui.model.io.model_file import default_model_path, load, save
from tinytui.model.trace import run

GPT2 = {"positions": "learned", "norm_affine": True, "attn_bias": True, "activation": "gelu"}


def gpt2_model(**switches) -> ModelFile:
    cfg = config(4, 2, 2, 8, 6, blocks=2, n_ctx=5, **(switches or GPT2))
    return ModelFile("tiny gpt2", "", weights(np.random.default_rng(3), cfg, 0.5), ("t1", "t2"), "t3")


def test_the_chapters_document_is_unchanged(chapter):
    doc = to_document(chapter)
    on_disk = json.loads(default_model_path().read_text())
    assert not {"positions", "norm_affine", "attn_bias", "activation"} & set(doc)
    assert set(doc["weights"]) == {"E", "blocks"} and set(doc["weights"]["blocks"][0]) == set(
        on_disk["weights"]["blocks"][0]
    )
    assert doc["weights"] == on_disk["weights"]


@pytest.mark.parametrize("binary", [False, True])
def test_a_gpt2_model_round_trips_bit_for_bit(tmp_path, binary):
    model = gpt2_model()
    save(model, tmp_path / "g.json", binary=binary)
    back = load(tmp_path / "g.json")
    assert back.cfg == model.cfg and back.params == model.params
    assert back.cfg.activation == "gelu" and back.cfg.positions == "learned"
    doc = json.loads((tmp_path / "g.json").read_text())
    assert doc["positions"] == "learned" and doc["norm_affine"] is True and doc["attn_bias"] is True
    if not binary:
        assert list(doc["weights"]) == ["E", "blocks", "P", "lnf_g", "lnf_b"]
        assert list(doc["weights"]["blocks"][1])[:6] == ["ln1_g", "ln1_b", "W_Q", "W_K", "W_V", "b_Q"]
    assert (
        run(back.params, back.prompt, back.target).loss == run(model.params, model.prompt, model.target).loss
    )


def test_only_the_switches_a_model_has_are_written():
    doc = to_document(gpt2_model(attn_bias=True))
    assert doc["attn_bias"] is True and "positions" not in doc and "norm_affine" not in doc
    assert set(doc["weights"]) == {"E", "blocks"} and "b_O" in doc["weights"]["blocks"][0]
    assert "ln1_g" not in doc["weights"]["blocks"][0]


@pytest.mark.parametrize(
    ("change", "field", "why"),
    [
        (lambda d: d.update(positions="rotary"), "positions", "expected one of sinusoid, learned"),
        (lambda d: d.update(norm_affine="yes"), "norm_affine", "expected true or false"),
        (lambda d: d.update(activation="swish"), "activation", "expected one of relu, gelu"),
        (lambda d: d["weights"].pop("P"), "weights.P", "missing"),
        (lambda d: d["weights"]["blocks"][0].pop("b_Q"), "weights.blocks[0].b_Q", "missing"),
        (lambda d: d["weights"].update(P=[[0.0] * 4] * 4), "weights.P", "expected shape"),
        (lambda d: d.update(attn_bias=False), "weights.blocks[0].b_K", "unknown key"),
        (lambda d: d.update(norm_affine=False), "weights.lnf_b", "unknown key"),
    ],
)
def test_a_wrong_gpt2_field_is_one_line_naming_it(change, field, why):
    doc = to_document(gpt2_model())
    change(doc)
    with pytest.raises(ModelFileError) as err:
        parse(doc, "g.json")
    assert f"g.json: {field}" in str(err.value) and why in str(err.value) and "\n" not in str(err.value)
