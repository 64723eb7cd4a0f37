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
from tinytui.model.config import ModelConfig, RopeScaling
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

    def rms(v):
        return v / np.sqrt((v**2).mean(axis=-1, keepdims=True) + cfg.eps)

    def norm(v, w, which):  # LN (or RMSNorm) with the gain and bias when the model has them (w: (1 or B, d))
        normed = rms(v) if cfg.norm == "rms" else ln(v)
        if not cfg.norm_affine:
            return normed
        g = w[which + "_g"][:, None] if v.ndim == 3 else w[which + "_g"]
        if cfg.norm == "rms":
            return normed * g
        b = w[which + "_b"][:, None] if v.ndim == 3 else w[which + "_b"]
        return normed * g + b

    def turn(v):  # RoPE, pair by pair: dims i and i + k/2 of row p turn by p · freq_i
        if cfg.positions != "rope" or not sw.positional_encoding:
            return v
        k = v.shape[-1]
        out = np.empty(np.broadcast_shapes(v.shape, (1, T, k)))
        for i in range(k // 2):
            freq = rope_frequency(i, k, cfg)
            for p in range(T):
                c, s_ = np.cos(p * freq), np.sin(p * freq)
                a, b = v[..., p, i], v[..., p, i + k // 2]
                out[..., p, i], out[..., p, i + k // 2] = a * c - b * s_, b * c + a * s_
        return out

    def softmax(s):
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    ids = [cfg.vocab.index(t) for t in prompt]
    T, d = len(ids), cfg.d_model
    group = cfg.n_heads // cfg.n_kv_heads
    E = param("E")
    emb = node("emb", E[:, ids])
    pe = np.zeros((T, d))
    if cfg.positions in ("rope", "none"):
        pass  # nothing is added: RoPE turns q and k in each block
    elif cfg.positions == "learned":  # GPT-2's table: its first T rows, or zeros with PE off
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
        rope = cfg.positions == "rope"
        keys, values = [], []
        for g in range(cfg.n_kv_heads):  # the key/value heads (as many as query heads but in GQA)
            m = g + 1
            bk, bv = (w[f"b_{c}"][:, g][:, None] if cfg.attn_bias else 0.0 for c in "KV")
            k = xn @ w["W_K"][:, g] + bk
            keys.append(
                node(f"{pre}k.{m}", turn(node(f"{pre}k_pre.{m}", k))) if rope else node(f"{pre}k.{m}", k)
            )
            values.append(node(f"{pre}v.{m}", xn @ w["W_V"][:, g] + bv))
        for h in range(cfg.n_heads):
            n = h + 1
            bq = w["b_Q"][:, h][:, None] if cfg.attn_bias else 0.0
            q = xn @ w["W_Q"][:, h] + bq
            q = node(f"{pre}q.{n}", turn(node(f"{pre}q_pre.{n}", q))) if rope else node(f"{pre}q.{n}", q)
            k, v = keys[h // group], values[h // group]
            s = node(f"{pre}scores.{n}", q @ k.swapaxes(-1, -2) / np.sqrt(cfg.d_head))
            a = node(f"{pre}attn.{n}", softmax(np.where(allowed, s, -np.inf)))
            heads.append(node(f"{pre}head.{n}", 0 * v if n in sw.ablated_heads else a @ v))
        b_o = w["b_O"][:, None] if cfg.attn_bias and cfg.attn_out_bias else 0.0
        mha = node(pre + "mha", np.concatenate(np.broadcast_arrays(*heads), axis=-1) @ w["W_O"] + b_o)
        mid = x + mha if sw.residual else mha
        x_mid = node(pre + "x_mid", mid if pre_norm else norm(mid, w, "ln1"))
        f_in = node(pre + "x_mid_norm", norm(x_mid, w, "ln2") if pre_norm else x_mid)

        def act(hp):
            if sw.activation == "relu":
                return np.maximum(hp, 0.0)
            if sw.activation == "silu":
                return hp / (1 + np.exp(-hp))
            return 0.5 * hp * (1 + np.tanh(np.sqrt(2 / np.pi) * (hp + 0.044715 * hp**3)))

        if cfg.activation == "swiglu":  # down(act(x W_gate) ⊙ x W_up)
            gate = node(pre + "gate", act(node(pre + "gate_pre", f_in @ w["W_gate"])))
            hid = node(pre + "hidden", gate * node(pre + "up", f_in @ w["W_up"]))
            ffn = node(pre + "ffn", hid @ w["W_down"])
        else:
            hp = node(pre + "hidden_pre", f_in @ w["W_1"] + w["b_1"][:, None])
            hid = node(pre + "hidden", act(hp))
            ffn = node(pre + "ffn", hid @ w["W_2"] + w["b_2"][:, None])
        out = x_mid + ffn if sw.residual else ffn
        x = node(pre + "y", out if pre_norm else norm(out, w, "ln2"))
    final = {n: param(n) for n in ("lnf_g", "lnf_b") if n in arrays}
    z = node("z", norm(x[:, -1], final, "lnf"))
    if cfg.tied:
        logits = node("logits", np.einsum("bd,bvd->bv", z, E))
    else:
        logits = node("logits", np.einsum("bd,bdv->bv", z, param("W_U")))
    top = logits.max(axis=-1, keepdims=True)
    lse = np.log(np.exp(logits - top).sum(axis=-1)) + top[:, 0]
    return nodes, lse - logits[:, cfg.vocab.index(target)]


def rope_frequency(i: int, k: int, cfg: ModelConfig) -> float:
    """Pair i's turning speed θ^(−2i/k), stretched by Llama 3's rule when the config has it."""
    freq = cfg.rope_theta ** (-2 * i / k)
    s = cfg.rope_scaling
    if s is None:
        return freq
    wavelength, L = 2 * np.pi / freq, s.original_max_position_embeddings
    if wavelength < L / s.high_freq_factor:
        return freq
    if wavelength > L / s.low_freq_factor:
        return freq / s.factor
    smooth = (L / wavelength - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor)
    return (1 - smooth) * freq / s.factor + smooth * freq


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

# Llama's, Qwen2's and Mistral's choices: every one at once, and mixed with GPT-2's. Two query heads per
# key/value head, four when there is one (MQA); rotary with Llama 3's scaling (an original context of 4
# so every kind of frequency, kept, blended and stretched, is in a head of 4 dims: θ = 100).
LLAMA3 = RopeScaling(
    factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0, original_max_position_embeddings=4
)
LLAMA_ALL = {
    "norm": "rms",
    "norm_affine": True,
    "positions": "rope",
    "rope_theta": 100.0,
    "rope_scaling": LLAMA3,
    "n_kv_heads": 2,
    "activation": "swiglu",
    "tied": False,
}
MODERN = {
    "random-llama": ((21, 5, 4, 6, 6, 7, 2, 5), LLAMA_ALL),
    "random-qwen2": (
        (22, 4, 2, 2, 5, 6, 1, 4),
        {**LLAMA_ALL, "rope_scaling": None, "n_kv_heads": 1, "attn_bias": True, "attn_out_bias": False},
    ),
    "random-mqa-gelu-untied": (
        (23, 3, 4, 2, 4, 5, 1, 3),
        {"n_kv_heads": 1, "tied": False, "attn_bias": True},
    ),
    "random-rms-no-positions": ((24, 4, 2, 2, 5, 6, 1, 4), {"norm": "rms", "positions": "none"}),
    "random-gpt2-rope-swiglu": (
        (25, 5, 3, 2, 6, 7, 1, 4),
        {**GPT2_ALL, "positions": "rope", "activation": "swiglu"},
    ),
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
