"""Generation with grouped key/value heads and rotary positions: the KV cache keeps one K and V per
key/value head (the turned keys), and its new rows equal the full recompute's last row to 1e-12 under
the switches; `tinytui generate` continues a Llama folder greedily as transformers did."""

from dataclasses import replace

import numpy as np
import pytest

from tests.llama.checkpoints import LLAMA, reference
from tests.model.reference_backward import MODERN, random_model
from tinytui.cli.main import main
from tinytui.model.generation import kv_cache
from tinytui.model.names import prefix
from tinytui.model.switches import defaults
from tinytui.model.trace import run

VARIANTS = {
    "default": {},
    "post-norm": {"norm": "post"},
    "no residual": {"residual": False},
    "head 2 ablated": {"ablated_heads": frozenset({2})},
    "GELU": {"activation": "gelu"},
    "no PE": {"positional_encoding": False},
}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("name", MODERN)
def test_the_new_rows_equal_the_full_recompute(name, variant):
    shape, choices = MODERN[name]
    params, prompt, target = random_model(*shape, **choices)
    cfg = params.cfg
    sw = replace(defaults(cfg), **VARIANTS[variant])
    token = cfg.vocab[3]
    before = run(params, prompt, target, sw)
    full = run(params, (*prompt, token), target, sw)
    new = kv_cache.extend(params, kv_cache.from_trace(before), token, sw)
    assert set(new.rows) == {n for n in full if n in new.rows} and "blocks.0.y" in new.rows
    for key, row in new.rows.items():
        whole = full[key] if key in ("z", "logits", "probs") else full[key][-1]
        np.testing.assert_allclose(row, whole, rtol=0, atol=1e-12, err_msg=key)
    assert len(new.cache.keys[0]) == cfg.n_kv_heads
    for b in range(cfg.n_blocks):
        for g in range(cfg.n_kv_heads):
            np.testing.assert_allclose(
                new.cache.keys[b][g], full[f"{prefix(b)}k.{g + 1}"], rtol=0, atol=1e-12
            )
            np.testing.assert_allclose(
                new.cache.values[b][g], full[f"{prefix(b)}v.{g + 1}"], rtol=0, atol=1e-12
            )


def test_how_much_smaller_the_shared_cache_is():
    params, _, _ = random_model(*MODERN["random-llama"][0], **MODERN["random-llama"][1])
    assert kv_cache.saving(params.cfg) == (
        "2 key/value heads for 4 query heads: 48 numbers a position, not 96 (2 times smaller)"
    )
    gpt2_like, _, _ = random_model(
        *MODERN["random-rms-no-positions"][0], **MODERN["random-rms-no-positions"][1]
    )
    assert kv_cache.saving(gpt2_like.cfg) == ""


def test_generate_continues_a_llama_folder_as_transformers_did(capsys):
    case = reference(LLAMA)["prompts"][0]
    rc = main(["generate", "--model", str(LLAMA), "--prompt", case["text"], "--tokens", "6", "--json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    import json

    from tinytui.model.io.checkpoint import load_checkpoint

    vocab = load_checkpoint(LLAMA).cfg.vocab
    doc = json.loads(out)
    assert [vocab.index(t) for t in doc["tokens"]] == case["greedy"] and doc["kv_cache"] is True
    rc = main(["generate", "--model", str(LLAMA), "--prompt", case["text"], "--tokens", "2"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].endswith("per key/value head).")
    assert (
        lines[3]
        == "It holds 2 key/value heads for 4 query heads: 64 numbers a position, not 128 (2 times smaller)."
    )
