import numpy as np
import pytest

from tinytui.model.switches import Switches
from tinytui.model.trace import run


def test_layer_norm_rows(trace):
    for name in ("blocks.0.x_norm", "blocks.0.x_mid_norm"):
        rows = trace[name]
        assert np.allclose(rows.mean(axis=1), 0.0, atol=1e-12)
        assert np.allclose(
            rows.var(axis=1),
            trace["blocks.0.ln1.var"] / (trace["blocks.0.ln1.var"] + 1e-5)
            if name == "blocks.0.x_norm"
            else rows.var(axis=1),
        )
        assert np.all(np.abs(rows.var(axis=1) - 1.0) < 1e-3)


def test_attention_rows_sum_to_one_and_mask_is_exact(trace):
    for h in (1, 2):
        a = trace[f"blocks.0.attn.{h}"]
        assert np.allclose(a.sum(axis=1), 1.0)
        assert np.all(np.triu(a, k=1) == 0.0)


def _run(chapter, prompt, **sw):
    return run(chapter.params, prompt, chapter.target, Switches(**sw))


def test_permutation_equivariance_without_mask_and_pe(chapter):
    a = _run(chapter, ("a", "woodchuck", "would", "chuck"), causal_mask=False, positional_encoding=False)
    b = _run(chapter, ("woodchuck", "a", "would", "chuck"), causal_mask=False, positional_encoding=False)
    perm = [1, 0, 2, 3]
    for name in (
        "x",
        "blocks.0.x_norm",
        "blocks.0.q.1",
        "blocks.0.k.2",
        "blocks.0.v.1",
        "blocks.0.head.1",
        "blocks.0.head.2",
        "blocks.0.mha",
        "blocks.0.x_mid",
        "blocks.0.hidden",
        "blocks.0.y",
    ):
        assert np.allclose(a[name][perm], b[name]), name
    for h in (1, 2):
        assert np.allclose(a[f"blocks.0.attn.{h}"][np.ix_(perm, perm)], b[f"blocks.0.attn.{h}"])
    assert np.allclose(a["logits"], b["logits"])  # same last token, same set of inputs


def test_positional_encoding_breaks_the_symmetry(chapter):
    a = _run(chapter, ("a", "woodchuck", "would", "chuck"), causal_mask=False)
    b = _run(chapter, ("woodchuck", "a", "would", "chuck"), causal_mask=False)
    assert not np.allclose(a["x"][[1, 0, 2, 3]], b["x"])
    assert not np.allclose(a["logits"], b["logits"])


def test_mask_off_fills_the_upper_triangle_and_keeps_the_last_row(chapter, trace):
    off = _run(chapter, chapter.prompt, causal_mask=False)
    for h in (1, 2):
        upper = np.triu_indices(4, k=1)
        assert np.all(off[f"blocks.0.attn.{h}"][upper] > 0)
        assert np.all(trace[f"blocks.0.attn.{h}"][upper] == 0)
        assert np.allclose(off[f"blocks.0.attn.{h}"][-1], trace[f"blocks.0.attn.{h}"][-1])
    # the last position saw everything already, so the prediction does not move
    assert np.allclose(off["logits"], trace["logits"])


def test_head_ablation_zeroes_that_head(chapter, trace):
    t = _run(chapter, chapter.prompt, ablated_heads={2})
    assert np.all(t["blocks.0.head.2"] == 0.0)
    assert np.array_equal(t["blocks.0.head.1"], trace["blocks.0.head.1"])
    W_O = chapter.params["blocks.0.W_O"]
    assert np.allclose(t["blocks.0.mha"], t["blocks.0.head.1"] @ W_O[:2])


def test_gelu_leaves_no_exact_zeros_where_relu_cuts(chapter, trace):
    g = _run(chapter, chapter.prompt, activation="gelu")
    assert np.array_equal(g["blocks.0.hidden_pre"], trace["blocks.0.hidden_pre"])
    assert int((g["blocks.0.hidden"] == 0).sum()) == 0
    x = trace["blocks.0.hidden_pre"]
    ref = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))
    assert np.allclose(g["blocks.0.hidden"], ref)


def _ln(v):
    return (v - v.mean(-1, keepdims=True)) / np.sqrt(v.var(-1, keepdims=True) + 1e-5)


def test_post_norm_matches_a_hand_written_reference(chapter):
    t = _run(chapter, chapter.prompt, norm="post")
    w = chapter.params.block(0)
    x = t["x"]
    heads = []
    for h in range(2):
        q, k, v = x @ w["W_Q"][h], x @ w["W_K"][h], x @ w["W_V"][h]
        s = q @ k.T / np.sqrt(2) + np.where(np.tril(np.ones((4, 4))) > 0, 0, -np.inf)
        a = np.exp(s - s.max(1, keepdims=True))
        heads.append((a / a.sum(1, keepdims=True)) @ v)
    x_mid = _ln(x + np.concatenate(heads, 1) @ w["W_O"])
    y = _ln(x_mid + np.maximum(0, x_mid @ w["W_1"] + w["b_1"]) @ w["W_2"] + w["b_2"])
    assert np.allclose(t["blocks.0.x_mid"], x_mid)
    assert np.allclose(t["blocks.0.y"], y)
    assert np.allclose(t["z"], _ln(y[-1]))


def test_residual_off_drops_the_input(chapter):
    t = _run(chapter, chapter.prompt, residual=False)
    assert np.allclose(t["blocks.0.x_mid"], t["blocks.0.mha"])
    assert np.allclose(t["blocks.0.y"], t["blocks.0.ffn"])


def test_bad_prompt_is_refused(chapter):
    with pytest.raises(ValueError, match="not in the vocabulary"):
        run(chapter.params, ("a", "beaver"), "wood")
    with pytest.raises(ValueError, match="empty"):
        run(chapter.params, (), "wood")


def test_trace_arrays_are_read_only(trace):
    with pytest.raises(ValueError):
        trace["x"][0, 0] = 5.0
