"""Llama's, Qwen2's and Mistral's choices in the model file and the forward pass: a model with them
round-trips bit for bit, a wrong value is one line naming its field, and each formula is checked by hand
on small numbers (RMSNorm, RoPE, grouped heads, the gate, an untied unembedding)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.random_models import config, weights
from tinytui.model.config import RopeScaling
from tinytui.model.io.document import ModelFile, parse, to_document
from tinytui.model.io.field_checks import ModelFileError
from tinytui.model.io.model_file import load, save
from tinytui.model.params import param_shapes
from tinytui.model.switches import Switches, defaults
from tinytui.model.trace import run

LLAMA = {
    "norm": "rms",
    "norm_affine": True,
    "positions": "rope",
    "rope_theta": 500000.0,
    "rope_scaling": RopeScaling(8.0, 1.0, 4.0, 8192),
    "n_kv_heads": 2,
    "activation": "swiglu",
    "tied": False,
}


def llama_model(**choices) -> ModelFile:
    cfg = config(6, 4, 2, 5, 7, blocks=2, **(choices or LLAMA))
    return ModelFile("tiny llama", "", weights(np.random.default_rng(5), cfg, 0.5), ("t1", "t2", "t3"), "t4")


@pytest.mark.parametrize("binary", [False, True])
def test_a_llama_model_round_trips_bit_for_bit(tmp_path, binary):
    model = llama_model()
    save(model, tmp_path / "l.json", binary=binary)
    back = load(tmp_path / "l.json")
    assert back.cfg == model.cfg and back.params == model.params
    assert back.cfg.rope_scaling == RopeScaling(8.0, 1.0, 4.0, 8192) and back.cfg.n_kv_heads == 2
    assert (
        run(back.params, back.prompt, back.target).loss == run(model.params, model.prompt, model.target).loss
    )


def test_the_parameters_each_choice_has():
    shapes = param_shapes(llama_model().cfg)
    assert shapes["blocks.0.W_Q"] == (4, 6, 2) and shapes["blocks.0.W_K"] == shapes["blocks.0.W_V"] == (
        2,
        6,
        2,
    )
    assert shapes["blocks.1.W_gate"] == shapes["blocks.1.W_up"] == (6, 5) and shapes["blocks.1.W_down"] == (
        5,
        6,
    )
    assert shapes["W_U"] == (6, 7) and shapes["lnf_g"] == (6,) and shapes["blocks.0.ln2_g"] == (6,)
    assert not {"lnf_b", "blocks.0.ln1_b", "blocks.0.W_1", "blocks.0.b_2", "P", "blocks.0.b_Q"} & set(shapes)
    qwen = param_shapes(config(4, 2, 2, 3, 5, norm="rms", n_kv_heads=1, attn_bias=True, attn_out_bias=False))
    assert qwen["blocks.0.b_Q"] == (2, 2) and qwen["blocks.0.b_K"] == (1, 2) and "blocks.0.b_O" not in qwen


@pytest.mark.parametrize(
    ("change", "field", "why"),
    [
        (lambda d: d.update(norm="batch"), "norm", "expected one of layer, rms"),
        (lambda d: d.update(positions="alibi"), "positions", "expected one of sinusoid, learned, rope, none"),
        (lambda d: d.update(activation="geglu"), "activation", "expected one of relu, gelu, swiglu"),
        (lambda d: d.update(n_kv_heads=3), "n_kv_heads", "does not divide n_heads 4"),
        (lambda d: d.update(n_kv_heads=0), "n_kv_heads", "expected a positive whole number"),
        (lambda d: d.update(tied="no"), "tied", "expected true or false"),
        (lambda d: d.update(rope_theta=-1), "rope_theta", "expected a positive finite number"),
        (lambda d: d["rope_scaling"].pop("factor"), "rope_scaling", "expected an object of factor"),
        (lambda d: d["rope_scaling"].update(factor="8"), "rope_scaling.factor", "positive finite number"),
        (lambda d: d["rope_scaling"].update(high_freq_factor=0.5), "rope_scaling.high_freq_factor", "larger"),
        (lambda d: d.update(attn_out_bias=False), "attn_out_bias", "needs attn_bias true"),
        (lambda d: d.update(d_head=3, dims=d["dims"]), "d_head", "odd"),
        (lambda d: d["weights"].pop("W_U"), "weights.W_U", "missing"),
        (lambda d: d["weights"].update(lnf_b=[0.0] * 6), "weights.lnf_b", "unknown key"),
        (lambda d: d["weights"]["blocks"][0].pop("W_gate"), "weights.blocks[0].W_gate", "missing"),
        (
            lambda d: d["weights"]["blocks"][0].update(W_1=[[0.0] * 5] * 6),
            "weights.blocks[0].W_1",
            "unknown key",
        ),
        (
            lambda d: d["weights"]["blocks"][0].update(W_K=[[[0.0] * 2] * 6] * 4),
            "weights.blocks[0].W_K",
            "shape",
        ),
    ],
)
def test_a_wrong_modern_field_is_one_line_naming_it(change, field, why):
    doc = to_document(llama_model())
    change(doc)
    with pytest.raises(ModelFileError) as err:
        parse(doc, "l.json")
    assert f"l.json: {field}" in str(err.value) and why in str(err.value) and "\n" not in str(err.value)


def test_each_formula_by_hand():
    model = llama_model()
    params, cfg = model.params, model.cfg
    trace = run(params, model.prompt, model.target)
    x = trace["x"]
    assert np.array_equal(x, trace["emb"])  # rotary positions add nothing to the stream
    # RMSNorm: each row divided by the root of its mean square, times the gain; no mean taken away
    g = params["blocks.0.ln1_g"]
    ms = (x**2).mean(axis=1)
    np.testing.assert_allclose(trace["blocks.0.ln1.mean_sq"], ms, rtol=1e-15)
    np.testing.assert_allclose(trace["blocks.0.x_norm"], x / np.sqrt(ms[:, None] + cfg.eps) * g, rtol=1e-14)
    # RoPE: position p's pair (0, 1) of a 2-dim head turns by p · f, f = θ^0 = 1 (short wavelength: kept)
    q_pre, q = trace["blocks.0.q_pre.3"], trace["blocks.0.q.3"]
    for p in range(3):
        c, s = np.cos(p), np.sin(p)
        np.testing.assert_allclose(
            q[p], [q_pre[p, 0] * c - q_pre[p, 1] * s, q_pre[p, 1] * c + q_pre[p, 0] * s]
        )
    assert np.array_equal(q[0], q_pre[0])  # position 0 does not turn
    # grouped heads: query heads 3 and 4 both read key/value head 2
    k2 = trace["blocks.0.k.2"]
    np.testing.assert_allclose(
        trace["blocks.0.scores.4"], trace["blocks.0.q.4"] @ k2.T / np.sqrt(2), rtol=1e-14
    )
    assert "blocks.0.k.3" not in trace and "blocks.0.v.2" in trace
    # the gate: SiLU(x W_gate) ⊙ x W_up, then W_down
    gate_pre = trace["blocks.0.gate_pre"]
    np.testing.assert_allclose(trace["blocks.0.gate"], gate_pre / (1 + np.exp(-gate_pre)), rtol=1e-14)
    assert np.array_equal(trace["blocks.0.hidden"], trace["blocks.0.gate"] * trace["blocks.0.up"])
    # untied: logits = z W_U
    np.testing.assert_allclose(trace["logits"], trace["z"] @ params["W_U"], rtol=1e-14)


def test_a_gated_model_starts_with_silu_and_toggles_to_relu_and_gelu():
    cfg = llama_model().cfg
    sw = defaults(cfg)
    assert sw.activation == "silu" and sw.toggled("activation").activation == "relu"
    assert sw.toggled("activation").toggled("activation").activation == "gelu"
    assert Switches(activation="gelu").toggled("activation").activation == "relu"  # the chapter's as it was


def test_rope_depends_only_on_how_far_apart_query_and_key_are():
    """Shift the whole prompt by putting a token before it: the scores among the old positions keep
    their relative turn, so with position-free projections a head's score of the same pair is unchanged."""
    cfg = config(2, 1, 2, 3, 4, positions="rope", norm="rms")
    w = {n: np.zeros(s) for n, s in param_shapes(cfg).items()}
    w["E"] = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.5, -1.0]])
    w["blocks.0.W_Q"] = w["blocks.0.W_K"] = np.eye(2)[None]
    from tinytui.model.params import Params

    params = Params(cfg, w)
    short = run(params, ("t0", "t1"), "t2")["blocks.0.scores.1"]
    long = run(params, ("t3", "t0", "t1"), "t2")["blocks.0.scores.1"]
    np.testing.assert_allclose(long[1:, 1:], short, rtol=1e-12)
