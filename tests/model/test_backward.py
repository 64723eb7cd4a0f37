"""Hand-written backprop against central finite differences, on the chapter model and random models.

Tolerance: a gradient g passes against the finite difference fd (h = 1e-6) when
    |g − fd| ≤ 1e-6·|fd| + 2e-9·max(1, L).
The second term is a floor for the rounding noise of a central difference: each loss carries a few
ulps of error (about 1e-16·L), divided by 2h that is ~1e-10·L, and the worst seen over every case here
is 4.4e-10·L. Without a floor an entry whose true gradient is ~1e-9 could never pass a relative test.
The gradients that matter are 1e-4 … 1, far above the floor, so a wrong rule still fails.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.random_models import config, weights
from tinytui.model.backward.gradients import grad_name, gradients
from tinytui.model.backward.walk_stages import BACKWARD_BY_NUMBER, BACKWARD_STAGES, backward_stages
from tinytui.model.config import ModelConfig
from tinytui.model.names import resolve
from tinytui.model.stages import STAGE_BY_NUMBER
from tinytui.model.switches import Switches
from tinytui.model.trace import run

H = 1e-6
REL, NOISE = 1e-6, 2e-9


def assert_matches_fd(g, fd, loss: float, what: str) -> None:
    g, fd = np.asarray(g), np.asarray(fd)
    bad = np.abs(g - fd) > REL * np.abs(fd) + NOISE * max(1.0, abs(loss))
    if bad.any():
        i = tuple(int(j) for j in np.argwhere(bad)[0])
        pytest.fail(f"{what}{list(i)}: backprop {g[i]!r}, finite difference {fd[i]!r}")


# ---- an independent statement of the forward pass, batched so finite differences are cheap ---------


def forward(arrays, cfg: ModelConfig, prompt, target, sw: Switches, nudge=None):
    """(nodes, losses) for a batch of runs. nudge = (name, deltas): deltas has shape (B, *shape of that
    parameter or node) and run b adds deltas[b] to it right after it is computed, so everything
    downstream sees it. Without a nudge B = 1. Written apart from model.trace on purpose;
    test_reference_forward_is_the_model checks the two agree."""
    nodes: dict[str, np.ndarray] = {}

    def add_nudge(name, value):
        if nudge and nudge[0] == name:
            return value + nudge[1]
        return value

    def param(name):
        return add_nudge(name, arrays[name][None])  # (1 or B, *shape)

    def node(name, value):
        nodes[name] = value = add_nudge(name, value)
        return value

    def ln(v):
        mu = v.mean(axis=-1, keepdims=True)
        return (v - mu) / np.sqrt(((v - mu) ** 2).mean(axis=-1, keepdims=True) + cfg.eps)

    def norm(v, w, which):  # LN with the gain and bias when the model has them (w: (1 or B, d))
        if not cfg.norm_affine:
            return ln(v)
        g, b = w[which + "_g"], w[which + "_b"]
        if v.ndim == 3:
            g, b = g[:, None], b[:, None]
        return ln(v) * g + b

    def softmax(s):
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    ids = [cfg.vocab.index(t) for t in prompt]
    T, d = len(ids), cfg.d_model
    E = param("E")
    emb = node("emb", E[:, ids])
    pe = np.zeros((T, d))
    if cfg.positions == "learned":  # GPT-2's table: its first T rows, or zeros with PE off
        pe = node("pe", param("P")[:, :T] if sw.positional_encoding else pe[None])
    elif sw.positional_encoding:
        for p in range(T):
            for i in range(d):
                angle = p / 10000 ** ((i - i % 2) / d)
                pe[p, i] = np.sin(angle) if i % 2 == 0 else np.cos(angle)
    x = node("x", emb + pe)
    pre_norm = sw.norm == "pre"
    allowed = np.tril(np.ones((T, T))) > 0 if sw.causal_mask else np.ones((T, T)) > 0
    for b in range(cfg.n_blocks):
        pre = f"blocks.{b}."
        w = {n.removeprefix(pre): param(n) for n in arrays if n.startswith(pre)}
        xn = node(pre + "x_norm", norm(x, w, "ln1") if pre_norm else x)
        heads = []
        for h in range(cfg.n_heads):
            n = h + 1
            bq, bk, bv = (w[f"b_{c}"][:, h][:, None] if cfg.attn_bias else 0.0 for c in "QKV")
            q = node(f"{pre}q.{n}", xn @ w["W_Q"][:, h] + bq)
            k = node(f"{pre}k.{n}", xn @ w["W_K"][:, h] + bk)
            v = node(f"{pre}v.{n}", xn @ w["W_V"][:, h] + bv)
            s = node(f"{pre}scores.{n}", q @ k.swapaxes(-1, -2) / np.sqrt(cfg.d_head))
            a = node(f"{pre}attn.{n}", softmax(np.where(allowed, s, -np.inf)))
            heads.append(node(f"{pre}head.{n}", 0 * v if n in sw.ablated_heads else a @ v))
        b_o = w["b_O"][:, None] if cfg.attn_bias else 0.0
        mha = node(pre + "mha", np.concatenate(np.broadcast_arrays(*heads), axis=-1) @ w["W_O"] + b_o)
        mid = x + mha if sw.residual else mha
        x_mid = node(pre + "x_mid", mid if pre_norm else norm(mid, w, "ln1"))
        f_in = node(pre + "x_mid_norm", norm(x_mid, w, "ln2") if pre_norm else x_mid)
        hp = node(pre + "hidden_pre", f_in @ w["W_1"] + w["b_1"][:, None])
        if sw.activation == "relu":
            act = np.maximum(hp, 0.0)
        else:
            act = 0.5 * hp * (1 + np.tanh(np.sqrt(2 / np.pi) * (hp + 0.044715 * hp**3)))
        hid = node(pre + "hidden", act)
        ffn = node(pre + "ffn", hid @ w["W_2"] + w["b_2"][:, None])
        out = x_mid + ffn if sw.residual else ffn
        x = node(pre + "y", out if pre_norm else norm(out, w, "ln2"))
    final = {n: param(n) for n in ("lnf_g", "lnf_b") if n in arrays}
    z = node("z", norm(x[:, -1], final, "lnf"))
    logits = node("logits", np.einsum("bd,bvd->bv", z, E))
    top = logits.max(axis=-1, keepdims=True)
    lse = np.log(np.exp(logits - top).sum(axis=-1)) + top[:, 0]
    return nodes, lse - logits[:, cfg.vocab.index(target)]


def finite_differences(arrays, cfg, prompt, target, sw, name, shape) -> np.ndarray:
    """Central differences of the loss for every entry of one parameter or node, in one batched run."""
    n = int(np.prod(shape))
    deltas = np.concatenate([np.eye(n), -np.eye(n)]).reshape(2 * n, *shape) * H
    # a nudge that cannot reach the loss (an ablated head's q) leaves a batch of one: broadcast it
    losses = np.broadcast_to(forward(arrays, cfg, prompt, target, sw, (name, deltas))[1], (2 * n,))
    return ((losses[:n] - losses[n:]) / (2 * H)).reshape(shape)


# ---- the models ----------------------------------------------------------------------------------


def random_model(
    seed: int, d: int, heads: int, d_head: int, d_ff: int, vocab: int, blocks: int, T: int, **gpt2
):
    """gpt2: the architecture switches of ModelConfig (positions, norm_affine, attn_bias, activation)."""
    rng = np.random.default_rng(seed)
    cfg = config(d, heads, d_head, d_ff, vocab, blocks, **gpt2)
    params = weights(rng, cfg, 0.8)
    prompt = tuple(cfg.vocab[i] for i in rng.integers(0, vocab, T))
    target = cfg.vocab[int(rng.integers(0, vocab))]
    return params, prompt, target


# Three shapes on purpose: square matrices hide transposition mistakes, so two of them are not square,
# and the third has two blocks (so earlier rows, and the mask, matter to the loss).
RANDOM = {
    "random-chapter-shape": (11, 4, 2, 2, 8, 8, 1, 5),
    "random-5d-3heads": (12, 5, 3, 2, 6, 7, 1, 3),
    "random-2blocks": (13, 3, 2, 3, 4, 5, 2, 6),
}
# What GPT-2 adds, all on (two blocks, learned positions with more rows than the prompt uses) and mixed.
GPT2_ALL = {"positions": "learned", "norm_affine": True, "attn_bias": True, "activation": "gelu", "n_ctx": 7}
GPT2 = {
    "random-gpt2-all": ((14, 5, 3, 2, 6, 7, 2, 4), GPT2_ALL),
    "random-gpt2-mixed": ((15, 4, 2, 3, 5, 6, 1, 5), {"norm_affine": True, "attn_bias": True}),
    "random-learned-positions": ((16, 3, 2, 2, 4, 5, 1, 3), {"positions": "learned", "n_ctx": 3}),
}

SWITCHES = {
    "default": Switches(),
    "mask off": Switches(causal_mask=False),
    "PE off": Switches(positional_encoding=False),
    "head 2 ablated": Switches(ablated_heads={2}),
    "GELU": Switches(activation="gelu"),
    "post-norm": Switches(norm="post"),
    "residual off": Switches(residual=False),
    "all changed": Switches(
        causal_mask=False, ablated_heads={1}, activation="gelu", norm="post", residual=False
    ),
}


@pytest.fixture(scope="module", params=["chapter", *RANDOM, *GPT2])
def model(request, chapter):
    if request.param == "chapter":
        return chapter.params, chapter.prompt, chapter.target
    if request.param in GPT2:
        shape, switches = GPT2[request.param]
        return random_model(*shape, **switches)
    return random_model(*RANDOM[request.param])


@pytest.fixture(params=list(SWITCHES))
def case(request, model):
    params, prompt, target = model
    sw = SWITCHES[request.param]
    trace = run(params, prompt, target, sw)
    return params, prompt, target, sw, trace, gradients(params, trace)


# ---- the checks ----------------------------------------------------------------------------------


def test_reference_forward_is_the_model(case):
    params, prompt, target, sw, trace, _ = case
    nodes, losses = forward(dict(params), params.cfg, prompt, target, sw)
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
    learned = params.cfg.positions == "learned"  # then pe is a node too (it comes from P)
    assert len(nodes) == 4 + learned + params.cfg.n_blocks * (8 + 6 * params.cfg.n_heads)
    for name in nodes:
        g = grads[grad_name(name)]
        assert grads.tensor(grad_name(name)).axes == trace.tensor(name).axes
        fd = finite_differences(dict(params), params.cfg, prompt, target, sw, name, g.shape)
        assert_matches_fd(g, fd, grads.loss, name)


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


def test_E_gets_both_shares(case):
    params, prompt, _, _, trace, grads = case
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


def test_masked_scores_and_dead_units_are_exactly_zero(case):
    params, _, _, sw, trace, grads = case
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


def test_ablated_head_weights_get_exactly_zero(case):
    params, _, _, sw, _, grads = case
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
