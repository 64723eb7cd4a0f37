"""Hand-written backprop against central finite differences, on the chapter model and random models of
every family: the chapter's, GPT-2's additions, and Llama's, Qwen2's and Mistral's choices (RMSNorm, rotary
positions with Llama 3's scaling, grouped and multi-query attention, Qwen2's Q/K/V bias without b_O, the gated
feed-forward, an untied unembedding), alone and mixed. The reference forward, the tolerance and the models are
in tests/model/reference_backward.py."""

from __future__ import annotations

import numpy as np
import pytest

from tests.model.reference_backward import (
    GPT2,
    GPT2_ALL,
    MODERN,
    RANDOM,
    SWITCHES,
    H,
    assert_matches_fd,
    finite_differences,
    forward,
    random_model,
)
from tinytui.lesson.stages import STAGE_BY_NUMBER
from tinytui.lesson.walk_stages import BACKWARD_BY_NUMBER, BACKWARD_STAGES, backward_stages
from tinytui.model.backward.gradients import Gradients, gradients
from tinytui.model.names import grad as grad_name
from tinytui.model.names import resolve
from tinytui.model.switches import Switches, defaults
from tinytui.model.trace import run

# The modern models run their own choices (SiLU for a gated one) and a few of GPT-2's switches on top.
MODERN_SWITCHES = {
    "the model's own": None,
    "ReLU, mask off": Switches(causal_mask=False),
    "PE off, head 2 ablated": Switches(positional_encoding=False, ablated_heads={2}, activation="gelu"),
    "post-norm, residual off": Switches(norm="post", residual=False, activation="silu"),
}
CLASSIC_CASES = [(m, s) for m in ("chapter", *RANDOM, *GPT2) for s in SWITCHES]
MODERN_CASES = [(m, s) for m in MODERN for s in MODERN_SWITCHES]


@pytest.fixture(scope="module")
def models(chapter):
    """Each model made once for the module: (params, prompt, target) by name."""
    made: dict[str, tuple] = {}

    def model(name: str) -> tuple:
        if name not in made:
            if name == "chapter":
                made[name] = chapter.params, chapter.prompt, chapter.target
            elif name in RANDOM:
                made[name] = random_model(*RANDOM[name])
            else:
                shape, choices = GPT2[name] if name in GPT2 else MODERN[name]
                made[name] = random_model(*shape, **choices)
        return made[name]

    return model


def make_case(models, model_name: str, switches_name: str) -> tuple:
    params, prompt, target = models(model_name)
    sw = SWITCHES.get(switches_name) if model_name not in MODERN else MODERN_SWITCHES[switches_name]
    sw = sw or defaults(params.cfg)
    trace = run(params, prompt, target, sw)
    return params, prompt, target, sw, trace, gradients(params, trace)


@pytest.fixture(params=CLASSIC_CASES + MODERN_CASES, ids="-".join)
def case(request, models):
    return make_case(models, *request.param)


@pytest.fixture(params=CLASSIC_CASES, ids="-".join)
def classic_case(request, models):
    """The chapter's and GPT-2's families: tied E, one key/value head per query head, ReLU or GELU."""
    return make_case(models, *request.param)


# ---- the checks ----------------------------------------------------------------------------------


def test_reference_forward_is_the_model(case):
    params, prompt, target, sw, trace, _ = case
    nodes, losses = forward(dict(params), params.cfg, prompt, target, sw)
    assert set(nodes) - {"pe"} <= set(trace)
    for name, value in nodes.items():
        np.testing.assert_allclose(value[0], trace[name], rtol=0, atol=1e-12, err_msg=name)
    assert losses[0] == pytest.approx(trace.loss, abs=1e-12)


def test_every_parameter_gradient_matches_finite_differences(case):
    params, prompt, target, sw, _, grads = case
    assert params.total() == sum(grads.param(n).size for n in params)
    for name in params:
        g = grads.param(name)
        assert g.shape == params[name].shape
        fd = finite_differences(dict(params), params.cfg, prompt, target, sw, name, g.shape)
        assert_matches_fd(g, fd, grads.loss, name)


def test_every_intermediate_gradient_matches_finite_differences(case):
    params, prompt, target, sw, trace, grads = case
    nodes, _ = forward(dict(params), params.cfg, prompt, target, sw)
    cfg = params.cfg
    learned = cfg.positions == "learned"  # then pe is a node too (it comes from P)
    per_block = (10 if cfg.gated else 8) + 4 * cfg.n_heads + 2 * cfg.n_kv_heads
    if cfg.positions == "rope":
        per_block += cfg.n_heads + cfg.n_kv_heads  # q_pre and k_pre
    assert len(nodes) == 4 + learned + cfg.n_blocks * per_block
    for name in nodes:
        g = grads[grad_name(name)]
        assert grads.tensor(grad_name(name)).axes == trace.tensor(name).axes
        fd = finite_differences(dict(params), params.cfg, prompt, target, sw, name, g.shape)
        assert_matches_fd(g, fd, grads.loss, name)


def test_lazy_gradients_are_the_eager_ones_bit_for_bit(case):
    """Whatever is asked first (a block's weights, E, W_U), each gradient is the same bits."""
    params, _, _, _, trace, grads = case
    for first in ("grad.blocks.0.W_K", "grad.E", "grad.blocks.0.x_norm"):
        lazy = Gradients(params, trace)
        lazy[first]
        for name in grads:
            assert lazy[name].tobytes() == grads[name].tobytes(), name
    if not params.cfg.tied:
        assert "grad.E.unembed" not in grads and np.array_equal(grads["grad.E"], grads["grad.E.lookup"])
        rows = np.array([0, 2])
        assert np.array_equal(Gradients(params, trace).rows("grad.E", rows), grads["grad.E"][rows])


def test_chapter_gradients_against_the_model_itself(chapter, trace):
    """The same check once through model.trace.run, so the reference forward is not the only judge."""
    grads = gradients(chapter.params, trace)
    for name in chapter.params:
        g = grads.param(name)
        for idx in np.ndindex(g.shape):
            v = float(chapter.params[name][idx])
            up = run(chapter.params.with_edit(name, idx, v + H), chapter.prompt, chapter.target).loss
            down = run(chapter.params.with_edit(name, idx, v - H), chapter.prompt, chapter.target).loss
            assert_matches_fd(g[idx], (up - down) / (2 * H), trace.loss, f"{name}{list(idx)}")


def test_chapter_figures(chapter, trace):
    grads = gradients(chapter.params, trace)
    assert np.array_equal(grads["grad.logits"], trace["grad_logits"])
    # W_2's gradient is hiddenᵀ·∂L/∂y; only the last row of y reaches the loss, and only units that
    # fired at the last position (3 and 6 on "chuck") have a non-zero row
    np.testing.assert_allclose(
        grads["grad.blocks.0.W_2"][3], [-0.15382797, 0.09238687, 0.07208704, -0.01064594], atol=1e-8
    )
    assert np.all(grads["grad.blocks.0.W_2"][[0, 1, 2, 4, 5, 7]] == 0.0)
    assert grads.loss == trace.loss


def test_E_gets_both_shares(classic_case):
    params, prompt, _, _, trace, grads = classic_case
    cfg = params.cfg
    lookup, unembed = grads["grad.E.lookup"], grads["grad.E.unembed"]
    assert np.array_equal(grads["grad.E"], lookup + unembed)
    np.testing.assert_allclose(unembed, np.outer(grads["grad.logits"], trace["z"]), atol=1e-15)
    unused = [i for i, tok in enumerate(cfg.vocab) if tok not in prompt]
    assert np.all(lookup[unused] == 0.0)
    for i, tok in enumerate(cfg.vocab):
        rows = [p for p, t in enumerate(prompt) if t == tok]
        np.testing.assert_allclose(lookup[i], grads["grad.emb"][rows].sum(axis=0), atol=1e-15)
    assert np.any(unembed != 0.0) and np.any(lookup != 0.0)


def test_masked_scores_and_dead_units_are_exactly_zero(classic_case):
    params, _, _, sw, trace, grads = classic_case
    T = trace["x"].shape[0]
    for b in range(params.cfg.n_blocks):
        pre = f"blocks.{b}."
        if sw.causal_mask:
            for h in range(1, params.cfg.n_heads + 1):
                assert np.all(grads[f"grad.{pre}scores.{h}"][np.triu_indices(T, 1)] == 0.0)
        if sw.activation == "relu":
            dead = trace[pre + "hidden_pre"] <= 0
            assert dead.any()
            assert np.all(grads[f"grad.{pre}hidden_pre"][dead] == 0.0)
    no_negative_zero = [n for n, a in grads.items() if np.any(np.signbit(a) & (a == 0))]
    assert no_negative_zero == []


def test_ablated_head_weights_get_exactly_zero(classic_case):
    params, _, _, sw, _, grads = classic_case
    dh = params.cfg.d_head
    for b in range(params.cfg.n_blocks):
        pre = f"blocks.{b}."
        for h in range(1, params.cfg.n_heads + 1):
            zero = h in sw.ablated_heads
            for w in ("W_Q", "W_K", "W_V"):
                assert np.all(grads[f"grad.{pre}{w}"][h - 1] == 0.0) == zero, (w, h)
            assert np.all(grads[f"grad.{pre}W_O"][(h - 1) * dh : h * dh] == 0.0) == zero
            for t in ("attn", "scores", "q", "k", "v"):
                assert np.all(grads[f"grad.{pre}{t}.{h}"] == 0.0) == zero, (t, h)


def test_mask_off_lets_gradient_reach_later_keys():
    params, prompt, target = random_model(*RANDOM["random-2blocks"])
    on = gradients(params, run(params, prompt, target))
    off = gradients(params, run(params, prompt, target, Switches(causal_mask=False)))
    T = len(prompt)
    assert np.all(on["grad.blocks.0.scores.1"][np.triu_indices(T, 1)] == 0.0)
    assert np.count_nonzero(off["grad.blocks.0.scores.1"][np.triu_indices(T, 1)]) > T


def test_grad_names():
    assert grad_name("blocks.0.W_2") == grad_name("W_2") == "grad.blocks.0.W_2"
    assert grad_name("W_2@1") == grad_name("blocks.1.W_2") == "grad.blocks.1.W_2"
    assert grad_name("E") == "grad.E" and grad_name("blocks.0.q.1") == "grad.blocks.0.q.1"
    assert grad_name("blocks.1.y") == "grad.blocks.1.y"


def test_two_block_names_and_shapes():
    params, prompt, target = random_model(*RANDOM["random-2blocks"])
    grads = gradients(params, run(params, prompt, target))
    assert set(grads.for_params()) == set(params)
    for name in ("grad.blocks.1.W_Q", "grad.blocks.1.y", "grad.blocks.1.x_norm", "grad.blocks.0.y", "grad.x"):
        assert name in grads
    assert grads.tensor("grad.blocks.0.W_O").axes[0].labels == (
        "h1.k0",
        "h1.k1",
        "h1.k2",
        "h2.k0",
        "h2.k1",
        "h2.k2",
    )


# ---- the backward walk table ---------------------------------------------------------------------


def _names(names, n_heads=2):
    return resolve(names, n_heads)


def test_backward_walk_covers_15_to_2_in_order():
    assert [s.number for s in BACKWARD_STAGES] == list(range(15, 1, -1))
    assert set(BACKWARD_BY_NUMBER) <= set(STAGE_BY_NUMBER)


def test_backward_walk_names_exist_and_chain(chapter, trace):
    _check_the_walk(gradients(chapter.params, trace), BACKWARD_STAGES)


@pytest.mark.parametrize("shape", ["random-gpt2-all", "random-gpt2-mixed", "random-learned-positions"])
@pytest.mark.parametrize("sw", [Switches(), Switches(norm="post"), Switches(positional_encoding=False)])
def test_the_walk_names_gpt2s_gradients_where_they_arise(shape, sw):
    dims, switches = GPT2[shape]
    one_block = (*dims[:6], 1, dims[7])  # the walk shows one block's gradients
    params, prompt, target = random_model(*one_block, **switches)
    grads = gradients(params, run(params, prompt, target, sw))
    _check_the_walk(grads, backward_stages(sw, params.cfg), params.cfg.n_heads)


def _check_the_walk(grads, stages, n_heads=2) -> None:
    finished: set[str] = set()
    produced: list[str] = []
    for s in stages:
        for name in _names(s.incoming, n_heads):
            assert name in finished, f"step {s.number} reads {name} before a later step finished it"
        for name in _names((*s.within, *s.params, *s.outgoing), n_heads):
            assert name in grads, name
        finished.update(_names((*s.within, *s.outgoing), n_heads))
        produced.extend(_names((*s.within, *s.outgoing, *s.params), n_heads))
    assert sorted(produced) == sorted(grads), "every gradient appears exactly once in the walk"


def test_backward_rules_follow_the_switches():
    default = BACKWARD_BY_NUMBER
    assert "∂L/∂W_2 = hiddenᵀ · ∂L/∂ffn" in default[12].rules
    assert "[h_pre > 0]" in default[11].rules[0]
    gelu = {s.number: s for s in backward_stages(Switches(activation="gelu"))}
    assert "GELU′" in gelu[11].rules[0]
    post = {s.number: s for s in backward_stages(Switches(norm="post"))}
    assert "post-norm" in post[12].rules[0] and "post-norm" in post[5].rules[0]
    off = {s.number: s for s in backward_stages(Switches(residual=False))}
    assert "no skip" in off[10].rules[1] and "skip share" not in off[5].rules[0]
    assert "skip share" in default[5].rules[0]


def test_gpt2_parameters_have_their_gradients_by_name():
    params, prompt, target = random_model(*GPT2["random-gpt2-all"][0], **GPT2_ALL)
    trace = run(params, prompt, target)
    grads = gradients(params, trace)
    T, d = len(prompt), params.cfg.d_model
    assert set(grads.for_params()) == set(params)
    assert grads["grad.P"].shape == (7, d) and grads.tensor("grad.P").axes[0].labels[-1] == "pos 6"
    assert np.array_equal(grads["grad.P"][:T], grads["grad.pe"]) and not grads["grad.P"][T:].any()
    assert np.array_equal(grads["grad.pe"], grads["grad.x"])
    assert grads["grad.blocks.1.b_Q"].shape == (3, 2) and grads["grad.blocks.0.b_O"].shape == (d,)
    # a bias's gradient is its output's, summed over positions; a gain's pairs it with the normalised row
    np.testing.assert_allclose(grads["grad.blocks.0.b_K"][1], grads["grad.blocks.0.k.2"].sum(axis=0))
    np.testing.assert_allclose(grads["grad.lnf_b"], grads["grad.z"])
    y = trace["blocks.1.y"][-1]
    z_hat = (y - y.mean()) / np.sqrt(y.var() + params.cfg.eps)
    np.testing.assert_allclose(grads["grad.lnf_g"], grads["grad.z"] * z_hat, rtol=1e-12)
    off = gradients(params, run(params, prompt, target, Switches(positional_encoding=False)))
    assert not off["grad.P"].any() and off["grad.pe"].any()


def test_the_chapter_model_has_none_of_gpt2s_gradients(chapter, trace):
    grads = gradients(chapter.params, trace)
    gpt2_only = ("grad.P", "ln1_", "ln2_", "lnf_", "b_Q", "b_O", "pe")
    assert not [n for n in grads if any(k in n for k in gpt2_only)]
