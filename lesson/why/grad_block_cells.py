"""Why each cell of a block's gradients has its value: the chain-rule terms of model/backward/gradients.py
from ∂L/∂y back to ∂L/∂x_n, under the trace's switches (post-norm's LN backward, the skip shares, dead ReLU
units or GELU′, ablated heads, the mask), and the gradients of the block's weights.
"""

from __future__ import annotations

import math

import numpy as np

from tinytui.lesson.why.rule_templates import (
    Rule,
    copy_of,
    gain_of,
    here,
    ln_back,
    pairs_rule,
    plain_sum,
    zero,
)
from tinytui.lesson.why.why import Cell, Ctx, Why, dot, factor, num, sum_text
from tinytui.model.names import GRAD


def ffn(ctx: Ctx, cell: Cell) -> Why:
    p, j = cell.index
    gy = GRAD + ctx.name(cell.b, "y")
    if ctx.sw.norm == "pre":
        return copy_of(ctx, cell, (gy, (p, j)), "   (y = x' + ffn passes its gradient on unchanged)")
    rows, gain = ctx.terms(ctx.name(cell.b, "y")), gain_of(ctx, cell.b, "ln2")
    return ln_back(ctx, cell, gy, rows, None, "   (post-norm: y = LN(…))", gain=gain)


def _param_product(left_local: str, right_local: str) -> Rule:
    """∂L/∂W[a,c] = Σ_p left[p,a]·∂L/∂right[p,c]: W_1, W_2, W_O (left: the head the row belongs to) and,
    one head at a time, W_Q, W_K, W_V (right: that head's q, k or v)."""

    def rule(ctx: Ctx, cell: Cell) -> Why:
        b, dk = cell.b, ctx.cfg.d_head
        left, right = ctx.name(b, left_local), GRAD + ctx.name(b, right_local)
        if len(cell.index) == 3:  # W_Q, W_K, W_V: heads × d × d_head
            h, a, c = cell.index
            right = GRAD + ctx.name(b, f"{right_local}.{h + 1}")
        else:
            a, c = cell.index
        if left_local == "head":  # W_O's row r is component r % d_head of head r // d_head
            left, a = ctx.name(b, f"head.{a // dk + 1}"), a % dk
        pairs = [((left, (p, a)), (right, (p, c))) for p in range(ctx.T)]
        return pairs_rule(
            ctx, cell, f"{here(ctx, cell)} = Σ_p {ctx.ref(left, 'p', a)}·{ctx.ref(right, 'p', c)}", pairs
        )

    return rule


def _bias(grad_local: str) -> Rule:
    def rule(ctx: Ctx, cell: Cell) -> Why:
        (c,) = cell.index
        g = GRAD + ctx.name(cell.b, grad_local)
        refs = [(g, (p, c)) for p in range(ctx.T)]
        text, compute = plain_sum(ctx, refs)
        return ctx.make(cell, f"{here(ctx, cell)} = Σ_p {ctx.ref(g, 'p', c)}", text, refs, compute)

    return rule


def _back_through(grad_local: str, w_local: str) -> Rule:
    """∂L/∂in[p,a] = Σ_c ∂L/∂out[p,c]·W[a,c] (hidden through W_2, x'_n through W_1)."""

    def rule(ctx: Ctx, cell: Cell) -> Why:
        p, a = cell.index
        g, w = GRAD + ctx.name(cell.b, grad_local), ctx.name(cell.b, w_local)
        n = ctx.array(g).shape[1]
        pairs = [((g, (p, c)), (w, (a, c))) for c in range(n)]
        return pairs_rule(ctx, cell, f"{here(ctx, cell)} = {ctx.ref(g, p)} · {ctx.ref(w, a)}", pairs)

    return rule


def hidden_pre(ctx: Ctx, cell: Cell) -> Why:
    p, u = cell.index
    g, pre = GRAD + ctx.name(cell.b, "hidden"), ctx.name(cell.b, "hidden_pre")
    refs = [(g, (p, u)), (pre, (p, u))]
    gv, h = (ctx.value(*r) for r in refs)
    at = here(ctx, cell)
    if ctx.sw.activation == "relu":
        fired = h > 0
        return ctx.make(
            cell,
            f"{at} = {ctx.ref(g, p, u)}·[{ctx.ref(pre, p, u)} > 0]",
            f"{num(gv)}·{int(fired)}" + ("" if fired else f"   (h_pre = {num(h)} ≤ 0: a dead unit passes 0)"),
            refs,
            lambda v: v[0] if v[1] > 0 else 0.0,
        )
    c = math.sqrt(2.0 / math.pi)

    def slope(hv: float) -> float:
        t = math.tanh(c * (hv + 0.044715 * hv**3))
        return 0.5 * (1.0 + t) + 0.5 * hv * (1.0 - t**2) * c * (1.0 + 3 * 0.044715 * hv**2)

    return ctx.make(
        cell,
        f"{at} = {ctx.ref(g, p, u)}·GELU′({ctx.ref(pre, p, u)}),  "
        "GELU′(h) = ½(1 + t) + ½h(1 − t²)·√(2/π)(1 + 3·0.044715h²),  t = tanh(√(2/π)(h + 0.044715h³))",
        f"{num(gv)}·GELU′({num(h)}) = {num(gv)}·{factor(slope(h))}",
        refs,
        lambda v: v[0] * slope(v[1]),
    )


def x_mid(ctx: Ctx, cell: Cell) -> Why:
    p, j = cell.index
    b = cell.b
    g_fin = GRAD + ctx.name(b, "x_mid_norm")
    if ctx.sw.norm == "post":
        skip = GRAD + ctx.terms(ctx.name(b, "y"))[-1]  # y = LN(x' + ffn): ∂L/∂(x' + ffn) is grad.ffn
        refs = [(g_fin, (p, j)), *([(skip, (p, j))] if ctx.sw.residual else [])]
        formula = f"{here(ctx, cell)} = {ctx.ref(g_fin, p, j)}" + (
            f" + {ctx.ref(skip, p, j)}   (the skip)"
            if ctx.sw.residual
            else "   (residual off: no skip share)"
        )
        return ctx.make(
            cell, formula, sum_text([num(ctx.value(*r)) for r in refs]), refs, lambda v: float(sum(v))
        )
    skip_ref = (GRAD + ctx.name(b, "y"), (p, j)) if ctx.sw.residual else None
    note = "" if ctx.sw.residual else "   (residual off: no skip share)"
    return ln_back(ctx, cell, g_fin, [ctx.name(b, "x_mid")], skip_ref, note, gain=gain_of(ctx, b, "ln2"))


def mha(ctx: Ctx, cell: Cell) -> Why:
    p, j = cell.index
    b = cell.b
    g_mid = GRAD + ctx.name(b, "x_mid")
    if ctx.sw.norm == "pre":
        return copy_of(ctx, cell, (g_mid, (p, j)), "   (x' = x + mha passes its gradient on unchanged)")
    rows = ctx.terms(ctx.name(b, "x_mid"))
    return ln_back(ctx, cell, g_mid, rows, None, "   (post-norm: x' = LN(…))", gain=gain_of(ctx, b, "ln1"))


def head(ctx: Ctx, cell: Cell) -> Why:
    p, c = cell.index
    cfg = ctx.cfg
    g, w = GRAD + ctx.name(cell.b, "mha"), ctx.name(cell.b, "W_O")
    r = (cell.h - 1) * cfg.d_head + c
    pairs = [((g, (p, j)), (w, (r, j))) for j in range(cfg.d_model)]
    note = (
        f"   (head {cell.h} is ablated, but its output's gradient is still this)"
        if ctx.sw.is_ablated(cell.b, cell.h)
        else ""
    )
    return pairs_rule(ctx, cell, f"{here(ctx, cell)} = {ctx.ref(g, p)} · {ctx.ref(w, r)}{note}", pairs)


def attn(ctx: Ctx, cell: Cell) -> Why:
    i, j = cell.index
    if ctx.sw.is_ablated(cell.b, cell.h):
        return zero(ctx, cell, f"head {cell.h} ablated: its output is a constant 0, nothing flows back")
    g, v = GRAD + ctx.name(cell.b, f"head.{cell.h}"), ctx.name(cell.b, f"v.{cell.h}")
    pairs = [((g, (i, c)), (v, (j, c))) for c in range(ctx.cfg.d_head)]
    return pairs_rule(ctx, cell, f"{here(ctx, cell)} = {ctx.ref(g, i)} · {ctx.ref(v, j)}", pairs)


def v(ctx: Ctx, cell: Cell) -> Why:
    j, c = cell.index
    if ctx.sw.is_ablated(cell.b, cell.h):
        return zero(ctx, cell, f"head {cell.h} ablated: its output is a constant 0, nothing flows back")
    a, g = ctx.name(cell.b, f"attn.{cell.h}"), GRAD + ctx.name(cell.b, f"head.{cell.h}")
    pairs = [((a, (i, j)), (g, (i, c))) for i in range(ctx.T)]
    return pairs_rule(ctx, cell, f"{here(ctx, cell)} = Σ_i {ctx.ref(a, 'i', j)}·{ctx.ref(g, 'i', c)}", pairs)


def scores(ctx: Ctx, cell: Cell) -> Why:
    i, j = cell.index
    a, g = ctx.name(cell.b, f"attn.{cell.h}"), GRAD + ctx.name(cell.b, f"attn.{cell.h}")
    T = ctx.T
    pairs = [((a, (i, k)), (g, (i, k))) for k in range(T)]
    refs = [r for pair in pairs for r in pair]
    av, gv = ctx.value(a, (i, j)), ctx.value(g, (i, j))
    s = sum(ctx.value(*pa) * ctx.value(*pg) for pa, pg in pairs)
    note = ""
    if av == 0 and ctx.value("mask", (i, j)) == 0:
        note = "   (masked: attn is exactly 0 here, so is this)"
    elif ctx.sw.is_ablated(cell.b, cell.h):
        note = f"   (head {cell.h} ablated: grad.attn is 0)"
    terms = sum_text([f"{num(ctx.value(*pa))}·{factor(ctx.value(*pg))}" for pa, pg in pairs])
    return ctx.make(
        cell,
        f"{here(ctx, cell)} = {ctx.ref(a, i, j)}·({ctx.ref(g, i, j)} − "
        f"Σ_k {ctx.ref(a, i, 'k')}·{ctx.ref(g, i, 'k')}){note}",
        f"{num(av)}·({num(gv)} − ({terms})) = {num(av)}·({num(gv)} − {factor(s)})",
        refs,
        lambda vals: vals[2 * j] * (vals[2 * j + 1] - dot(vals, T)),
    )


def q(ctx: Ctx, cell: Cell) -> Why:
    i, c = cell.index
    g, k = GRAD + ctx.name(cell.b, f"scores.{cell.h}"), ctx.name(cell.b, f"k.{cell.h}")
    dk = ctx.cfg.d_head
    pairs = [((g, (i, j)), (k, (j, c))) for j in range(ctx.T)]
    formula = f"{here(ctx, cell)} = ({ctx.ref(g, i)} · {ctx.ref(k, ':', c)}) / √{dk}"
    return pairs_rule(ctx, cell, formula, pairs, float(np.sqrt(dk)))


def k(ctx: Ctx, cell: Cell) -> Why:
    j, c = cell.index
    g, q_ = GRAD + ctx.name(cell.b, f"scores.{cell.h}"), ctx.name(cell.b, f"q.{cell.h}")
    dk = ctx.cfg.d_head
    pairs = [((g, (i, j)), (q_, (i, c))) for i in range(ctx.T)]
    formula = f"{here(ctx, cell)} = (Σ_i {ctx.ref(g, 'i', j)}·{ctx.ref(q_, 'i', c)}) / √{dk}"
    return pairs_rule(ctx, cell, formula, pairs, float(np.sqrt(dk)))


def x_norm(ctx: Ctx, cell: Cell) -> Why:
    p, j = cell.index
    cfg, b = ctx.cfg, cell.b
    pairs = [
        ((GRAD + ctx.name(b, f"{part}.{h + 1}"), (p, c)), (ctx.name(b, w), (h, j, c)))
        for h in range(cfg.n_heads)
        for part, w in (("q", "W_Q"), ("k", "W_K"), ("v", "W_V"))
        for c in range(cfg.d_head)
    ]
    gq, gk, gv = (ctx.ref(GRAD + ctx.name(b, f"{part}.h"), p) for part in ("q", "k", "v"))
    wq, wk, wv = (ctx.ref(ctx.name(b, w), "h", j) for w in ("W_Q", "W_K", "W_V"))
    formula = f"{here(ctx, cell)} = Σ_h ({gq} · {wq} + {gk} · {wk} + {gv} · {wv})"
    return pairs_rule(ctx, cell, formula, pairs)


# "grad." + block-local name (a head's gradients without the head) -> its rule.
RULES: dict[str, Rule] = {
    GRAD + "ffn": ffn,
    GRAD + "W_2": _param_product("hidden", "ffn"),
    GRAD + "b_2": _bias("ffn"),
    GRAD + "hidden": _back_through("ffn", "W_2"),
    GRAD + "hidden_pre": hidden_pre,
    GRAD + "W_1": _param_product("x_mid_norm", "hidden_pre"),
    GRAD + "b_1": _bias("hidden_pre"),
    GRAD + "x_mid_norm": _back_through("hidden_pre", "W_1"),
    GRAD + "x_mid": x_mid,
    GRAD + "mha": mha,
    GRAD + "W_O": _param_product("head", "mha"),
    GRAD + "head": head,
    GRAD + "attn": attn,
    GRAD + "v": v,
    GRAD + "scores": scores,
    GRAD + "q": q,
    GRAD + "k": k,
    GRAD + "W_Q": _param_product("x_norm", "q"),
    GRAD + "W_K": _param_product("x_norm", "k"),
    GRAD + "W_V": _param_product("x_norm", "v"),
    GRAD + "x_norm": x_norm,
}
