"""The reference the gradient tests compare with: a plain-numpy forward pass that can nudge any parameter
or node, central finite differences of its loss with their tolerance, random models of several shapes
(with and without what GPT-2 adds) and the switch sets the tests run under.

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
from tinytui.model.config import ModelConfig
from tinytui.model.switches import Switches

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
