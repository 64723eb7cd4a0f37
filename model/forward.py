"""The forward pass as the chapter writes it: embed, then each block, then the final norm and the logits.

Read it beside picoGPT's gpt2.py. Each formula is a short function of arrays; `forward` strings them
together in the chapter's order. Every intermediate goes through `t(name, axes, formula, *inputs)`,
which computes formula(*inputs), names the result (`blocks.0.attn.2`) with its axes and, when an earlier
run of the same prompt had the very same inputs, hands back that run's tensor instead (model/trace.py's Tape):
what to recompute after an edit is that layer's business, not the formulas'.

Shapes: T tokens, d model width, k head width (d_head), f feed-forward units, V vocabulary. An axes string
names each dimension: "T d" is (tokens, dims), "T S" is (tokens, the keys they attend to), "" a scalar.

What GPT-2 adds, each when its ModelConfig switch is on (the chapter's model has none of them): learned
positions (pe = P[:T]), norms with a gain and a bias (ln1, ln2, lnf), biases on Q, K, V and the output.

What Llama, Qwen2 and Mistral change, each a choice of their ModelConfig: RMSNorm in place of LayerNorm
(rms_norm: no mean, no bias); rotary positions (nothing added to x; rope turns q and k by position after
the projection, so the projection is q_pre and the turned row q); fewer key/value heads than query
heads (query head h reads key/value head h // group size); the gated feed-forward (swiglu:
down(SiLU(x W_gate) ⊙ x W_up)); and an unembedding of its own (W_U). The norm and the positions can
also be switched for a run (model/switches.py): run_config() hands this pass a config whose norm or
positions are the switches', so the formulas below read cfg alone.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from tinytui.model import ops
from tinytui.model.config import ModelConfig
from tinytui.model.switches import Switches


class Tape(Protocol):
    """What names the tensors (model/trace.py's Tape): t(name, axes, formula, *inputs) is formula(*inputs),
    named and kept; t.weight("W_Q") a parameter as an input; t.block(b) names block b's tensors."""

    def __call__(self, names, axes, formula, *inputs): ...

    def weight(self, name: str): ...

    def block(self, b: int) -> Tape: ...


# ---- the formulas, in the chapter's order ------------------------------------------------------------
def embed(E: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """(17.0) each token's row of E (ids are kept as float64, like every tensor). -> (T, d)"""
    return E[ids.astype(np.intp)]


def positions(T: int, d: int, P: np.ndarray | None, on: bool, kind: str = "sinusoid") -> np.ndarray:
    """(17.1) the sinusoids, or GPT-2's learned rows P[:T]; zeros with the encoding switched off, and
    for rotary positions (they turn q and k instead, rope below) or none."""
    if kind in ("rope", "none"):
        return np.zeros((T, d))
    pe = P[:T] if P is not None else ops.positional_encoding(T, d)
    return pe if on else np.zeros_like(pe)


def add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a + b


def causal_mask(T: int, on: bool) -> np.ndarray:
    """1 where position i may attend to position j (j ≤ i with the mask on, everywhere off). -> (T, T)"""
    return np.tril(np.ones((T, T))) if on else np.ones((T, T))


def scaled(x_hat: np.ndarray, gain: np.ndarray | None, bias: np.ndarray | None) -> np.ndarray:
    """x̂·g + b, or x̂ itself for a norm without gain and bias (the chapter's); x̂·g for RMSNorm's."""
    if gain is None:
        return x_hat
    return x_hat * gain if bias is None else x_hat * gain + bias


def norm(x, gain, bias, eps: float, placement: str):
    """(17.3) the block's first norm: (mean, variance, x̂·g + b) per row. Post-norm reads x unnormed."""
    if placement == "post":
        return x.mean(axis=-1), x.var(axis=-1), x
    x_hat, mean, var = ops.layer_norm(x, eps)
    return mean, var, scaled(x_hat, gain, bias)


def rms_norm(x, gain, eps: float, placement: str):
    """The block's first norm as RMSNorm: (mean of squares, x / √(mean(x²) + ε) · g) per row. Nothing
    is subtracted and nothing added: only the size of each row is set. Post-norm reads x unnormed."""
    if placement == "post":
        return (x * x).mean(axis=-1), x
    x_hat, mean_sq = ops.rms_norm(x, eps)
    return mean_sq, scaled(x_hat, gain, None)


def project(x: np.ndarray, W: np.ndarray, b: np.ndarray | None, h: int) -> np.ndarray:
    """(17.4) head h's queries, keys or values: x W[h] (+ b[h]). (T, d) -> (T, k)"""
    a = x @ W[h]
    return a if b is None else a + b[h]


def rope(x: np.ndarray, theta: float, scaling, on: bool) -> np.ndarray:
    """(RoPE) each row of a head's queries or keys turned by its position p: dims i and i + k/2 turn
    together by the angle p · θ^(−2i/k) (ops.rotate). A query and a key then meet at an angle that
    depends only on how far apart they are. Unturned with the positional encoding off. (T, k) -> (T, k)"""
    if not on:
        return x.copy()
    return ops.rotate(x, ops.rope_angles(x.shape[0], x.shape[1], theta, scaling))


def scores(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """(17.5) S = q kᵀ / √k: how well each query matches each key. -> (T, T)"""
    return q @ k.T / np.sqrt(q.shape[-1])


def attend(s: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(17.6) A = softmax(S + M), M = −∞ where the mask blocks: each row sums to 1. -> (T, T)"""
    return ops.softmax(s + np.where(mask > 0, 0.0, ops.NEG_INF))


def weigh(a: np.ndarray, v: np.ndarray, ablated: bool) -> np.ndarray:
    """(17.7) the head's output A v, each position a mix of the values it attends to. -> (T, k)"""
    return np.zeros_like(v) if ablated else a @ v


def combine(W_O: np.ndarray, b_O: np.ndarray | None, *heads: np.ndarray) -> np.ndarray:
    """(17.8) the heads side by side, through W_O (+ b_O). -> (T, d)"""
    mha = np.concatenate(heads, axis=-1) @ W_O
    return mha if b_O is None else mha + b_O


def residual(x, sub, on: bool, placement: str, gain, bias, eps: float, kind: str = "layer") -> np.ndarray:
    """(17.9) x + sublayer(x), normed after the add in post-norm (kind: "layer" or "rms"). -> (T, d)"""
    out = x + sub if on else sub
    return scaled(ops.NORMS[kind](out, eps), gain, bias) if placement == "post" else out


def ffn_input(x, gain, bias, eps: float, placement: str, kind: str = "layer") -> np.ndarray:
    """The second norm, before the feed-forward (nothing in post-norm: the add normed already)."""
    return scaled(ops.NORMS[kind](x, eps), gain, bias) if placement == "pre" else x


def linear(x: np.ndarray, W: np.ndarray, b: np.ndarray | None) -> np.ndarray:
    """x W + b (x W alone for the gated feed-forward's matrices, which have no bias)."""
    a = x @ W
    return a if b is None else a + b


def activate(h: np.ndarray, activation: str) -> np.ndarray:
    """(17.10) ReLU, or GELU as GPT-2 computes it (SiLU, h · σ(h), as Llama's gate)."""
    return ops.ACTIVATIONS[activation](h)


def gate(activated: np.ndarray, up: np.ndarray) -> np.ndarray:
    """(SwiGLU) each unit's activated gate times its second projection: act(x W_gate) ⊙ x W_up."""
    return activated * up


def final_norm(y: np.ndarray, gain, bias, eps: float, kind: str = "layer") -> np.ndarray:
    """(17.11) the last position's stream, normed. -> (d,)"""
    return scaled(ops.NORMS[kind](y[-1], eps), gain, bias)


def unembed(z: np.ndarray, E: np.ndarray | None, W_U: np.ndarray | None = None):
    """(17.12) logits = z Eᵀ (the tied unembedding; z W_U when it is a matrix of its own, and E None)
    and their softmax. -> (V,), (V,)"""
    if W_U is not None:
        logits = z @ W_U
    elif E is not None:
        logits = z @ E.T
    else:
        raise ValueError("the unembedding needs E (tied) or W_U")
    return logits, ops.softmax(logits)


def loss_and_step(logits: np.ndarray, target: int, lr: float):
    """(17.13) L = −log p[target], ∂L/∂logits = p − onehot, and what one SGD step of size lr on the
    logits themselves would give: the logits, their softmax and the loss after it."""
    loss, grad = ops.cross_entropy(logits, target)
    stepped = logits - lr * grad
    return loss, grad, stepped, ops.softmax(stepped), ops.cross_entropy(stepped, target)[0]


# ---- the pass ----------------------------------------------------------------------------------------
LOSS_NAMES = ("loss", "grad_logits", "logits_stepped", "probs_stepped", "loss_stepped")


def forward(t: Tape, cfg: ModelConfig, prompt: tuple[str, ...], target: str, sw: Switches, lr: float) -> None:
    """Every tensor of one run, named, into t: the embedding, each block, the logits, the loss."""
    T, W = len(prompt), t.weight
    ids = t("ids", "T", np.array, [cfg.token_id(tok) for tok in prompt])
    emb = t("emb", "T d", embed, W("E"), ids)
    pe = t("pe", "T d", positions, T, cfg.d_model, W("P"), sw.positional_encoding, cfg.positions)
    x = t("x", "T d", add, emb, pe)
    mask = t("mask", "T S", causal_mask, T, sw.causal_mask)
    for b in range(cfg.n_blocks):
        x = block(t.block(b), cfg, sw, b, x, mask)
    z = t("z", "d", final_norm, x, W("lnf_g"), W("lnf_b"), cfg.eps, cfg.norm)
    tied = W("E") if cfg.tied else None  # an untied model's logits read its W_U alone, never E
    logits, _ = t(("logits", "probs"), ("V", "V"), unembed, z, tied, W("W_U"))
    t(LOSS_NAMES, ("", "V", "V", "V", ""), loss_and_step, logits, cfg.token_id(target), lr)


def block(t: Tape, cfg: ModelConfig, sw: Switches, b: int, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """One transformer block on the residual stream x (T, d): attention, then the feed-forward, each
    added back to the stream. t names its tensors blocks.<b>.<name>; W reads block b's weights."""
    W, eps, kind = t.weight, cfg.eps, cfg.norm
    pre = (W("ln1_g"), W("ln1_b")) if sw.norm == "pre" else (None, None)  # post-norm reads x as it is
    if kind == "rms":
        _, x_norm = t(("ln1.mean_sq", "x_norm"), ("T", "T d"), rms_norm, x, pre[0], eps, sw.norm)
    else:
        first_norm = ("ln1.mean", "ln1.var", "x_norm")
        _, _, x_norm = t(first_norm, ("T", "T", "T d"), norm, x, *pre, eps, sw.norm)
    heads, keys_values = [], {}
    for h in range(cfg.n_heads):
        n = h + 1  # heads are counted from 1, as the chapter does
        q = positioned(t, cfg, sw, "q", n, project, x_norm, W("W_Q"), W("b_Q"), h)
        g = cfg.kv_head(h)  # with as many key/value heads as query heads, g is h
        if g not in keys_values:  # made by the first query head that reads them
            k = positioned(t, cfg, sw, "k", g + 1, project, x_norm, W("W_K"), W("b_K"), g)
            keys_values[g] = k, t(f"v.{g + 1}", "T k", project, x_norm, W("W_V"), W("b_V"), g)
        k, v = keys_values[g]
        s = t(f"scores.{n}", "T S", scores, q, k)
        a = t(f"attn.{n}", "T S", attend, s, mask)
        heads.append(t(f"head.{n}", "T k", weigh, a, v, sw.is_ablated(b, n)))
    mha = t("mha", "T d", combine, W("W_O"), W("b_O"), *heads)
    post = (W("ln1_g"), W("ln1_b")) if sw.norm == "post" else (None, None)  # post-norm: normed after the add
    x_mid = t("x_mid", "T d", residual, x, mha, sw.residual, sw.norm, *post, eps, kind)
    pre = (W("ln2_g"), W("ln2_b")) if sw.norm == "pre" else (None, None)
    f_in = t("x_mid_norm", "T d", ffn_input, x_mid, *pre, eps, sw.norm, kind)
    if cfg.gated:
        gate_pre = t("gate_pre", "T f", linear, f_in, W("W_gate"), None)
        gated = t("gate", "T f", activate, gate_pre, sw.activation)
        up = t("up", "T f", linear, f_in, W("W_up"), None)
        hidden = t("hidden", "T f", gate, gated, up)
        ffn = t("ffn", "T d", linear, hidden, W("W_down"), None)
    else:
        hidden_pre = t("hidden_pre", "T f", linear, f_in, W("W_1"), W("b_1"))
        hidden = t("hidden", "T f", activate, hidden_pre, sw.activation)
        ffn = t("ffn", "T d", linear, hidden, W("W_2"), W("b_2"))
    post = (W("ln2_g"), W("ln2_b")) if sw.norm == "post" else (None, None)
    return t("y", "T d", residual, x_mid, ffn, sw.residual, sw.norm, *post, eps, kind)


def positioned(t: Tape, cfg: ModelConfig, sw: Switches, which: str, n: int, formula, *inputs) -> np.ndarray:
    """q.n or k.n: the projection, and with rotary positions that projection (q_pre.n, k_pre.n) turned
    by position, so the scores read q and k whichever the model's positions are."""
    if cfg.positions != "rope":
        return t(f"{which}.{n}", "T k", formula, *inputs)
    pre = t(f"{which}_pre.{n}", "T k", formula, *inputs)
    return t(f"{which}.{n}", "T k", rope, pre, cfg.rope_theta, cfg.rope_scaling, sw.positional_encoding)
