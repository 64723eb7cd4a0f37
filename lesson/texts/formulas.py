"""Each stage's formula as the model computes it; stages.py gives every Stage one.

A function takes the stage's formula as the chapter writes it, a model.switches.Switches and the model's
config (None: the chapter's architecture), and returns that formula when every switch is at its
default and the architecture is the chapter's. The config adds GPT-2's terms where it has them: the
learned position table P, the norms' gains and biases (g ⊙ LN(·) + b, LN being the plain
normalisation of step 5) and the attention biases.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeGuard

import numpy as np

if TYPE_CHECKING:
    from tinytui.model.config import ModelConfig
    from tinytui.model.switches import Switches


X_MID = "x'"


def as_written(formula: str, sw: Switches, cfg: ModelConfig | None = None) -> str:
    """No switch changes what this stage computes."""
    return formula


def _learned(cfg: ModelConfig | None) -> TypeGuard[ModelConfig]:
    return cfg is not None and cfg.learned_positions


def _affine(cfg: ModelConfig | None) -> bool:
    return cfg is not None and cfg.norm_affine


def _bias(cfg: ModelConfig | None) -> bool:
    return cfg is not None and cfg.attn_bias


def _rms(cfg: ModelConfig | None) -> bool:
    return cfg is not None and cfg.norm == "rms"


def _rope(cfg: ModelConfig | None) -> bool:
    return cfg is not None and cfg.positions == "rope"


def _norm(inner: str, cfg: ModelConfig | None, which: str) -> str:
    """'LN(x)', or with the norm's gain and bias 'g₁ ⊙ LN(x) + b₁' (which: '₁', '₂' or '_f');
    RMSNorm's 'g₁ ⊙ RMS(x)' (a gain, no bias)."""
    if _rms(cfg):
        return f"g{which} ⊙ RMS({inner})" if _affine(cfg) else f"RMS({inner})"
    return f"g{which} ⊙ LN({inner}) + b{which}" if _affine(cfg) else f"LN({inner})"


def pe(formula: str, sw: Switches, cfg: ModelConfig | None = None) -> str:
    if _rope(cfg) and not sw.positional_encoding:
        return "PE = 0   (rotary positions switched off: nothing is added, and q and k are not turned)"
    if _rope(cfg):
        return "PE = 0   (rotary positions: nothing is added; step 6 turns q and k by position)"
    if cfg is not None and cfg.positions == "none":
        return "PE = 0   (this model has no positional encoding)"
    if not sw.positional_encoding:
        return "PE = 0   (positional encoding switched off)"
    if _learned(cfg):
        return f"PE_p = P[p]   (row p of the learned position table P, {cfg.n_ctx} × {cfg.d_model})"
    return formula


def add(formula: str, sw: Switches, cfg: ModelConfig | None = None) -> str:
    if cfg is not None and cfg.positions in ("rope", "none"):
        return "x_p = E[id_p]   (no position added)"
    if not sw.positional_encoding:
        return "x_p = E[id_p]   (no position added)"
    return "x_p = E[id_p] + P[p]" if _learned(cfg) else formula


def norm1(formula: str, sw: Switches, cfg: ModelConfig | None = None) -> str:
    if sw.norm == "post":
        return "post-norm: the sublayer reads x as it is; the norm comes after the residual add"
    if _rms(cfg) and _affine(cfg):
        return "x_n = x / √(mean(x²) + ε) · g₁   (RMSNorm: no mean taken away, no bias; g₁ = ln1_g)"
    if _rms(cfg):
        return "x_n = RMS(x) = x / √(mean(x²) + ε)   (RMSNorm: no mean taken away; no gain, no bias)"
    if _affine(cfg):
        return (
            "x_n = g₁ ⊙ LN(x) + b₁,  LN(x) = (x − μ) / √(σ² + ε),  μ and σ² over the row's d entries   "
            "(g₁ = ln1_g, b₁ = ln1_b)"
        )
    return formula


def qkv(formula: str, sw: Switches, cfg: ModelConfig | None = None) -> str:
    if _bias(cfg):
        formula = "Q = Xn W_Q + b_Q,  K = Xn W_K + b_K,  V = Xn W_V + b_V   (per head)"
    if cfg is not None and cfg.n_kv_heads != cfg.n_heads:
        heads = f"(Q per query head, K and V per key/value head: {cfg.n_heads} and {cfg.n_kv_heads})"
        formula = formula.replace("(per head)", heads)
    if _rope(cfg):
        on = "RoPE(·, p) turns pairs of dims by angles set by position p" if sw.positional_encoding else "off"
        formula = formula.replace("Q = ", "Q_pre = ").replace("K = ", "K_pre = ")
        formula += f";  Q = RoPE(Q_pre, p),  K = RoPE(K_pre, p)   ({on})"
    return formula


def scores(formula: str, sw: Switches, cfg: ModelConfig | None = None) -> str:
    if cfg is None:
        return formula
    root = float(np.sqrt(cfg.d_head))
    shared = "   (K: the key/value head the query head reads)" if cfg.n_kv_heads != cfg.n_heads else ""
    return f"S = Q Kᵀ / √d_k,   d_k = {cfg.d_head},  √d_k = {root:.4f}{shared}"


def softmax(formula: str, sw: Switches, cfg: ModelConfig | None = None) -> str:
    if sw.causal_mask:
        return formula
    return "A = softmax(S)   (mask switched off: every position sees every other)"


def combine(formula: str, sw: Switches, cfg: ModelConfig | None = None) -> str:
    if cfg is not None and (cfg.n_heads != 2 or cfg.out_bias):
        heads = " ; ".join(f"head_{h}" for h in range(1, cfg.n_heads + 1))
        if cfg.n_heads > 3:
            heads = f"head_1 ; … ; head_{cfg.n_heads}"
        formula = f"MHA(X) = [{heads}] W_O{' + b_O' if cfg.out_bias else ''},   head_h = A_h V_h"
    if cfg is not None and cfg.n_kv_heads != cfg.n_heads:
        formula = formula.replace(
            "A_h V_h", f"A_h V_g,  g = the key/value head h reads ({cfg.group_size} per g)"
        )
    if not (sw.ablated_heads or sw.ablated):
        return formula
    off = ", ".join(
        [f"head_{h} = 0" for h in sorted(sw.ablated_heads)]
        + [f"head_{h} = 0 in block {b + 1}" for b, h in sorted(sw.ablated)]
    )
    return f"{formula}   (ablated: {off})"


def residual1(formula: str, sw: Switches, cfg: ModelConfig | None = None) -> str:
    pre = sw.norm == "pre"
    inner = f"MHA({_norm('x', cfg, '₁')})" if pre else "MHA(x)"
    out = f"x + {inner}" if sw.residual else inner
    return f"x' = {out}" if pre else f"x' = {_norm(out, cfg, '₁')}"


def ffn(formula: str, sw: Switches, cfg: ModelConfig | None = None) -> str:
    f_in = f"({_norm(X_MID, cfg, '₂')})" if _affine(cfg) or _rms(cfg) else "LN(x')"
    if sw.norm == "post":
        f_in = X_MID
    if cfg is not None and cfg.gated:
        act = {"relu": "max(0, {})", "gelu": "GELU({})"}.get(sw.activation, "SiLU({})")
        return "h = " + act.format(f"{f_in} W_gate") + f" ⊙ ({f_in} W_up)"
    rule = "max(0, {})" if sw.activation == "relu" else "GELU({})"
    return "h = " + rule.format(f"{f_in} W_1 + b_1")


def residual2(formula: str, sw: Switches, cfg: ModelConfig | None = None) -> str:
    down = "h W_down" if cfg is not None and cfg.gated else "h W_2 + b_2"
    out = f"x' + ({down})" if sw.residual else down
    return f"y = {out}" if sw.norm == "pre" else f"y = {_norm(out, cfg, '₂')}"


def final_norm(formula: str, sw: Switches, cfg: ModelConfig | None = None) -> str:
    return f"z = {_norm('y_last', cfg, '_f')}" if _affine(cfg) or _rms(cfg) else formula


def unembed(formula: str, sw: Switches, cfg: ModelConfig | None = None) -> str:
    if cfg is not None and not cfg.tied:
        return "ℓ = z W_U,   p = softmax(ℓ)   (W_U: the model's own unembedding, not E)"
    return formula


def count_params(formula: str, sw: Switches, cfg: ModelConfig | None = None) -> str:
    from tinytui.model import count  # the counts' step only

    if cfg is None or count.formula(cfg) == count.FORMULA:
        return formula
    return count.formula(cfg)
