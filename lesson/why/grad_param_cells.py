"""Why each cell of the gradients of GPT-2's extra weights has its value, as model/backward/gradients.py
computes them: the learned position table P (and pe, which it feeds), each norm's gain and bias (ln1, ln2 in a
block, lnf for z) and the biases on Q, K, V and the attention output. A bias's gradient is its
output's gradient summed over positions; a gain's pairs that gradient with the normalised row x̂.
"""

from __future__ import annotations

import numpy as np

from tinytui.lesson.why.rule_templates import (
    Rule,
    copy_of,
    here,
    norm_entry,
    norm_symbol,
    plain_sum,
    row_of,
    values_of,
    zero,
)
from tinytui.lesson.why.why import SHOW, Cell, Ctx, Ref, Why, factor, num, sum_text
from tinytui.model.names import GRAD


def pe(ctx: Ctx, cell: Cell) -> Why:
    p, j = cell.index
    return copy_of(ctx, cell, (GRAD + "x", (p, j)), "   (x = emb + pe passes its gradient on unchanged)")


def position_table(ctx: Ctx, cell: Cell) -> Why:
    p, j = cell.index
    if not ctx.sw.positional_encoding:
        return zero(ctx, cell, "positional encoding switched off: pe did not read P")
    if p >= ctx.T:
        had = f"{ctx.T} position{'s' if ctx.T != 1 else ''}"
        return zero(ctx, cell, f"the prompt has {had}: row {p} of P was not read")
    return copy_of(ctx, cell, (GRAD + "pe", (p, j)), f"   (pe = P[:{ctx.T}]: row {p} is pe's row {p})")


def _norm_grads(ctx: Ctx, cell: Cell) -> tuple[str, list[str]]:
    """For a norm's gain or bias: the gradient of the norm's output, and the rows the norm read (summed)."""
    b, which = cell.b, cell.local[len(GRAD) : len(GRAD) + 3]  # "ln1" or "ln2"
    post = ctx.sw.norm == "post"
    if which == "ln1":
        if not post:
            return GRAD + ctx.name(b, "x_norm"), [ctx.block_input(b)]
        return GRAD + ctx.name(b, "x_mid"), ctx.terms(ctx.name(b, "x_mid"))
    if not post:
        return GRAD + ctx.name(b, "x_mid_norm"), [ctx.name(b, "x_mid")]
    return GRAD + ctx.name(b, "y"), ctx.terms(ctx.name(b, "y"))


def norm_bias(ctx: Ctx, cell: Cell) -> Why:
    (j,) = cell.index
    g, _ = _norm_grads(ctx, cell)
    refs = [(g, (p, j)) for p in range(ctx.T)]
    text, compute = plain_sum(ctx, refs)
    return ctx.make(cell, f"{here(ctx, cell)} = Σ_p {ctx.ref(g, 'p', j)}", text, refs, compute)


def norm_gain(ctx: Ctx, cell: Cell) -> Why:
    """∂L/∂g[j] = Σ_p ∂L/∂out[p,j]·x̂[p,j], x̂ = LN(the row the norm read). Operands: per position the
    gradient entry, then that position's rows (each d wide)."""
    (j,) = cell.index
    g, rows = _norm_grads(ctx, cell)
    d, T = ctx.cfg.d_model, ctx.T
    per = 1 + d * len(rows)  # operands per position
    refs: list[Ref] = []
    for p in range(T):
        refs.append((g, (p, j)))
        for r in rows:
            refs.extend(row_of(r, p, d))
    x_hat = [
        norm_entry(ctx, sum((values_of(ctx, row_of(r, p, d)) for r in rows), np.zeros(d)), j)
        for p in range(T)
    ]
    terms = [f"{num(ctx.value(g, (p, j)))}·{factor(x_hat[p])}" for p in range(min(T, SHOW))]
    read = " + ".join(ctx.ref(r, "p") for r in rows)

    def compute(v) -> float:
        v = np.asarray(v, dtype=np.float64)
        total = 0.0
        for p in range(T):
            chunk = v[p * per : (p + 1) * per]
            row = sum(chunk[1 + d * k : 1 + d * (k + 1)] for k in range(len(rows)))
            total += chunk[0] * norm_entry(ctx, row, j)
        return total

    return ctx.make(
        cell,
        f"{here(ctx, cell)} = Σ_p {ctx.ref(g, 'p', j)}·x̂[p,{j}],  x̂ = {norm_symbol(ctx)}({read})",
        sum_text(terms, T),
        refs,
        compute,
    )


def final_gain(ctx: Ctx, cell: Cell) -> Why:
    (j,) = cell.index
    g, src, last, d = GRAD + "z", ctx.last_y(), ctx.T - 1, ctx.cfg.d_model
    refs = [(g, (j,)), *row_of(src, last, d)]
    z_hat = norm_entry(ctx, values_of(ctx, refs[1:]), j)
    return ctx.make(
        cell,
        f"{here(ctx, cell)} = {ctx.ref(g, j)}·{norm_symbol(ctx)}({ctx.ref(src, last)})[{j}]",
        f"{num(ctx.value(g, (j,)))}·{factor(z_hat)}",
        refs,
        lambda v: v[0] * norm_entry(ctx, np.asarray(v[1:], dtype=np.float64), j),
    )


def final_bias(ctx: Ctx, cell: Cell) -> Why:
    (j,) = cell.index
    return copy_of(ctx, cell, (GRAD + "z", (j,)), "   (z = LN(y_last)·lnf_g + lnf_b)")


def _attn_bias(out_local: str) -> Rule:
    """∂L/∂b_Q[h,c] = Σ_p ∂L/∂q_h[p,c] (K, V likewise); ∂L/∂b_O[j] = Σ_p ∂L/∂mha[p,j]."""

    def rule(ctx: Ctx, cell: Cell) -> Why:
        if len(cell.index) == 2:
            h, c = cell.index
            # with rotary positions the bias is added before the turn: to q_pre and k_pre
            turned = ctx.cfg.positions == "rope" and out_local in ("q", "k")
            g = GRAD + ctx.name(cell.b, f"{out_local}{'_pre' if turned else ''}.{h + 1}")
        else:
            (c,) = cell.index
            g = GRAD + ctx.name(cell.b, out_local)
        refs = [(g, (p, c)) for p in range(ctx.T)]
        text, compute = plain_sum(ctx, refs)
        return ctx.make(cell, f"{here(ctx, cell)} = Σ_p {ctx.ref(g, 'p', c)}", text, refs, compute)

    return rule


# "grad." + name (block-local for a block's weights) -> its rule.
RULES: dict[str, Rule] = {
    GRAD + "pe": pe,
    GRAD + "P": position_table,
    GRAD + "lnf_g": final_gain,
    GRAD + "lnf_b": final_bias,
    GRAD + "ln1_g": norm_gain,
    GRAD + "ln1_b": norm_bias,
    GRAD + "ln2_g": norm_gain,
    GRAD + "ln2_b": norm_bias,
    GRAD + "b_Q": _attn_bias("q"),
    GRAD + "b_K": _attn_bias("k"),
    GRAD + "b_V": _attn_bias("v"),
    GRAD + "b_O": _attn_bias("mha"),
}
