"""QK/OV circuits against the matrix products written out, and direct logit attribution adding up."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.model.reference_backward import GPT2, random_model
from tinytui.model.analysis.attribution import (
    NOT_EXACT,
    attribution,
    default_tokens,
    part_names,
    residual_parts,
)
from tinytui.model.analysis.circuits import circuit_ignores, circuits, circuits_json, head_circuits
from tinytui.model.names import part_label
from tinytui.model.switches import Switches
from tinytui.model.trace import run

# (seed, d_model, heads, d_head, d_ff, vocab, blocks, T): none of them has d_model 4 but the chapter's
# shape; one has two blocks and three heads, one a d_model that is a multiple of 3
SIZES = {
    "chapter-shape": (21, 4, 2, 2, 8, 8, 1, 5),
    "d5-3heads": (22, 5, 3, 2, 6, 7, 1, 3),
    "2blocks-3heads-d6": (23, 6, 3, 2, 5, 9, 2, 6),
    "3blocks-d12": (24, 12, 4, 3, 16, 11, 3, 7),
}


@pytest.fixture(scope="module", params=["chapter", *SIZES, *GPT2])
def model(request, chapter):
    if request.param == "chapter":
        return chapter.params, chapter.prompt, chapter.target
    if request.param in GPT2:  # b_O and the final norm's gain and bias: the parts still add up
        dims, switches = GPT2[request.param]
        return random_model(*dims, **switches)
    return random_model(*SIZES[request.param])


def test_circuits_are_the_matrix_products(model):
    params, _, _ = model
    cfg = params.cfg
    E = params["E"]
    found = circuits(params)
    assert [(c.block, c.head) for c in found] == [
        (b, h) for b in range(cfg.n_blocks) for h in range(1, cfg.n_heads + 1)
    ]
    for c in found:
        w = params.block(c.block)
        h = c.head - 1
        w_o = w["W_O"][h * cfg.d_head : (h + 1) * cfg.d_head]
        qk = np.einsum("ad,dk,ek,be->ab", E, w["W_Q"][h], w["W_K"][h], E) / np.sqrt(cfg.d_head)
        ov = np.einsum("ad,dk,ke,be->ab", E, w["W_V"][h], w_o, E)
        np.testing.assert_allclose(c.qk.values, qk, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(c.ov.values, ov, rtol=1e-12, atol=1e-12)
        assert c.qk.values.shape == c.ov.values.shape == (cfg.n_vocab, cfg.n_vocab)
        assert [a.labels for a in (*c.qk.axes, *c.ov.axes)] == [cfg.vocab] * 4
        assert [a.name for a in c.qk.axes] == ["queries", "keys"]
        assert [a.name for a in c.ov.axes] == ["sources", "vocab"]


def test_chapter_ov_circuit_of_head_one(chapter):
    """E rows of wood (1,0,0,1) and woodchuck (1,0,0,0.5) against head 1's OV: a hand-checkable entry."""
    c = head_circuits(chapter.params, 0, 1)
    cfg = chapter.params.cfg
    E, w = chapter.params["E"], chapter.params.block(0)
    i, j = cfg.token_id("wood"), cfg.token_id("woodchuck")
    expected = E[i] @ w["W_V"][0] @ w["W_O"][:2] @ E[j]
    assert c.ov.values[i, j] == pytest.approx(expected, abs=1e-15)


def test_circuits_json_shape(chapter):
    doc = circuits_json(chapter.params)
    assert doc["vocab"] == list(chapter.params.cfg.vocab)
    assert [(h["block"], h["head"]) for h in doc["heads"]] == [(0, 1), (0, 2)]
    assert np.array_equal(doc["heads"][1]["qk"], head_circuits(chapter.params, 0, 2).qk.values)


def test_circuits_refuse_a_head_that_is_not_there(chapter):
    with pytest.raises(ValueError, match="head 3"):
        head_circuits(chapter.params, 0, 3)
    with pytest.raises(ValueError, match="block 1"):
        head_circuits(chapter.params, 1, 1)


ATTRIBUTION_SWITCHES = {
    "default": Switches(),
    "mask off": Switches(causal_mask=False),
    "PE off": Switches(positional_encoding=False),
    "head 2 ablated": Switches(ablated_heads={2}),
    "GELU": Switches(activation="gelu"),
}


@pytest.mark.parametrize("switches", list(ATTRIBUTION_SWITCHES))
def test_attribution_parts_add_up_to_the_logit(model, switches):
    params, prompt, target = model
    cfg = params.cfg
    trace = run(params, prompt, target, ATTRIBUTION_SWITCHES[switches])
    result = attribution(params, trace, cfg.vocab)  # every token, not only the prediction and target
    assert result.exact and result.reason is None
    assert result.position == len(prompt) - 1
    y = trace[f"blocks.{cfg.n_blocks - 1}.y"][-1]
    assert result.scale == pytest.approx(np.sqrt(y.var() + cfg.eps), rel=1e-14)
    for tok, a in result.tokens.items():
        assert tuple(a.parts) == part_names(cfg.n_blocks, cfg.n_heads, cfg.attn_bias, cfg.norm_affine)
        assert a.logit == trace["logits"][cfg.token_id(tok)]
        assert abs(sum(a.parts.values()) - a.logit) < 1e-12, tok


def test_attribution_parts_are_the_pieces_written_into_the_stream(model):
    params, prompt, target = model
    cfg = params.cfg
    trace = run(params, prompt, target)
    pieces = residual_parts(params, trace, len(prompt) - 1)
    np.testing.assert_allclose(sum(pieces.values()), trace[f"blocks.{cfg.n_blocks - 1}.y"][-1], atol=1e-12)
    for b in range(cfg.n_blocks):
        heads = sum(pieces[f"blocks.{b}.head.{h}"] for h in range(1, cfg.n_heads + 1))
        heads = heads + pieces.get(f"blocks.{b}.b_O", 0.0)  # GPT-2's attention bias is a part of its own
        np.testing.assert_allclose(heads, trace[f"blocks.{b}.mha"][-1], atol=1e-12)
        ffn = pieces[f"blocks.{b}.hidden"] + pieces[f"blocks.{b}.b_2"]
        np.testing.assert_allclose(ffn, trace[f"blocks.{b}.ffn"][-1], atol=1e-12)
    # one part's share by hand: ((c − mean c)/σ)·E[t]
    result = attribution(params, trace)
    c = pieces["emb"]
    tok = trace.prediction
    gain = params["lnf_g"] if cfg.norm_affine else 1.0  # GPT-2's final norm scales each column
    share = gain * (c - c.mean()) / result.scale @ params["E"][cfg.token_id(tok)]
    assert result.tokens[tok].parts["emb"] == pytest.approx(share, abs=1e-14)


def test_ablated_head_has_no_share(chapter):
    trace = run(chapter.params, chapter.prompt, chapter.target, Switches(ablated_heads={1}))
    parts = attribution(chapter.params, trace).tokens[trace.prediction].parts
    assert parts["blocks.0.head.1"] == 0.0 and parts["blocks.0.head.2"] != 0.0


@pytest.mark.parametrize(
    ("switches", "reason"),
    [(Switches(norm="post"), "post-norm"), (Switches(residual=False), "residual off")],
)
def test_attribution_says_why_it_is_not_exact(model, switches, reason):
    params, prompt, target = model
    trace = run(params, prompt, target, switches)
    result = attribution(params, trace)
    assert not result.exact and result.reason == NOT_EXACT[reason]
    assert all(a.parts == {} for a in result.tokens.values())
    assert result.to_json()["reason"] == NOT_EXACT[reason]


def test_default_tokens_are_the_prediction_and_the_target(chapter, trace):
    assert default_tokens(trace) == ("wood",)  # the chapter's run predicts its target
    other = run(chapter.params, chapter.prompt, "chuck")
    assert default_tokens(other) == ("wood", "chuck")
    with pytest.raises(ValueError, match="beaver"):
        attribution(chapter.params, trace, ["beaver"])


def test_part_labels():
    assert part_label("emb") == "embedding"
    assert part_label("blocks.0.head.2") == "head 2 ·W_O"
    assert part_label("blocks.1.b_2", n_blocks=2) == "FFN b_2 (block 2)"


def test_what_the_circuits_ignore_is_said_in_the_model_s_own_terms(chapter):
    """The chapter's layer norms and sinusoids; RMSNorm and the rotary turn when the model runs with them;
    a learned table's row; the biases a model has (Qwen2's b_V without a b_O)."""
    cfg = chapter.params.cfg
    words = circuit_ignores(cfg)
    assert words["qk"].startswith("position (no positional encoding), the layer norm before the head")
    assert "layer norms before the head and before the logits, and everything" in words["ov"]
    assert "bias" not in words["qk"] + words["ov"]
    modern = circuit_ignores(replace(cfg, norm="rms", positions="rope"))
    assert "rotary turn" in modern["qk"] and "RMSNorm before the head" in modern["qk"]
    assert "layer norm" not in modern["qk"] + modern["ov"] and "RMSNorms before the head" in modern["ov"]
    learned = circuit_ignores(replace(cfg, positions="learned", attn_bias=True))
    assert "position table P" in learned["qk"] and "the biases b_Q and b_K" in learned["qk"]
    assert "the biases b_V and b_O" in learned["ov"]
    qwen = circuit_ignores(replace(cfg, attn_bias=True, attn_out_bias=False))
    assert "the bias b_V," in qwen["ov"] and "b_O" not in qwen["ov"]
    assert circuits_json(chapter.params)["ignores"] == words
