"""Why each cell of a block's attention has its value: the first norm (its mean, variance and each
entry; post-norm reads the stream as it is), the queries, keys and values, the scores (stored before
the mask), the softmax under the mask, each head's weighted sum of values (zero when ablated) and
W_O's mix. One rule per tensor, keyed by its block-local name (a head's tensors without the head).
"""

from __future__ import annotations

import math

import numpy as np

from tinytui.lesson.why.rule_templates import (
    Rule,
    here,
    linear,
    plain_sum,
    row_of,
    softmax,
    softmax_filled,
    with_affine,
)
from tinytui.lesson.why.why import MINUS, SHOW, Cell, Ctx, Why, const, factor, num, sum_text


def ln1_mean(ctx: Ctx, cell: Cell) -> Why:
    (p,) = cell.index
    src = ctx.block_input(cell.b)
    refs = row_of(src, p, ctx.cfg.d_model)
    text, _ = plain_sum(ctx, refs)
    note = "   (post-norm: shown only, nothing is normalised here)" if ctx.sw.norm == "post" else ""
    return ctx.make(
        cell,
        f"{here(ctx, cell)} = (1/d) Σ_j {ctx.ref(src, p, 'j')}{note}",
        f"({text}) / {ctx.cfg.d_model}",
        refs,
        lambda v: float(np.mean(np.asarray(v))),
    )


def ln1_var(ctx: Ctx, cell: Cell) -> Why:
    (p,) = cell.index
    src = ctx.block_input(cell.b)
    mean_name = ctx.name(cell.b, "ln1.mean")
    refs = [(mean_name, (p,)), *row_of(src, p, ctx.cfg.d_model)]
    m = ctx.value(mean_name, (p,))
    terms = [f"({num(ctx.value(*r))} {MINUS} {factor(m)})²" for r in refs[1 : 1 + SHOW]]
    note = "   (post-norm: shown only, nothing is normalised here)" if ctx.sw.norm == "post" else ""
    return ctx.make(
        cell,
        f"{here(ctx, cell)} = (1/d) Σ_j ({ctx.ref(src, p, 'j')} {MINUS} {ctx.ref(mean_name, p)})²{note}",
        f"({sum_text(terms, len(refs) - 1)}) / {ctx.cfg.d_model}",
        refs,
        lambda v: float(np.mean((np.asarray(v[1:]) - v[0]) ** 2)),
    )


def x_norm(ctx: Ctx, cell: Cell) -> Why:
    p, j = cell.index
    src = ctx.block_input(cell.b)
    at = here(ctx, cell)
    if ctx.sw.norm == "post":
        return ctx.make(
            cell,
            f"{at} = {ctx.ref(src, p, j)}   (post-norm: the sublayer reads the stream as it is)",
            num(ctx.value(src, (p, j))),
            [(src, (p, j))],
            lambda v: v[0],
        )
    mean_name, var_name = ctx.name(cell.b, "ln1.mean"), ctx.name(cell.b, "ln1.var")
    refs = [(mean_name, (p,)), (var_name, (p,)), *row_of(src, p, ctx.cfg.d_model)]
    eps = ctx.cfg.eps
    m, var, xv = ctx.value(mean_name, (p,)), ctx.value(var_name, (p,)), ctx.value(src, (p, j))
    core = f"({ctx.ref(src, p, j)} {MINUS} {ctx.ref(mean_name, p)}) / √({ctx.ref(var_name, p)} + ε)"
    formula, filled, refs, compute = with_affine(
        ctx,
        cell.b,
        "ln1",
        j,
        f"{at} = {core}" if not ctx.cfg.norm_affine else f"{at} = ({core})",
        f"({num(xv)} {MINUS} {factor(m)}) / √({num(var)} + {const(eps)})",
        refs,
        lambda v: float((v[2 + j] - v[0]) / np.sqrt(v[1] + eps)),
    )
    return ctx.make(cell, formula, filled, refs, compute)


def projection(weight: str) -> Rule:
    """q.h = x_norm · W_Q[h] (+ b_Q[h]), likewise k and v; with rotary positions the same rule gives
    q_pre.h and k_pre.g (key/value head g's row of W_K)."""

    def rule(ctx: Ctx, cell: Cell) -> Why:
        p, c = cell.index
        h = cell.h - 1
        src, w = ctx.name(cell.b, "x_norm"), ctx.name(cell.b, weight)
        pairs = [((src, (p, j)), (w, (h, j, c))) for j in range(ctx.cfg.d_model)]
        formula = f"{here(ctx, cell)} = {ctx.ref(src, p)} · {ctx.ref(w, h, ':', c)}"
        if not ctx.cfg.attn_bias:
            return ctx.make(cell, formula, *linear(ctx, pairs))
        bias = ctx.name(cell.b, "b_" + weight[-1])  # b_Q, b_K, b_V: one row per head
        text, refs, compute = linear(ctx, pairs, (bias, (h, c)))
        return ctx.make(cell, f"{formula} + {ctx.ref(bias, h, c)}", text, refs, compute)

    return rule


def scores(ctx: Ctx, cell: Cell) -> Why:
    i, j = cell.index
    kv = ctx.cfg.kv_head(cell.h - 1) + 1  # the key/value head this query head reads
    q, k = ctx.name(cell.b, f"q.{cell.h}"), ctx.name(cell.b, f"k.{kv}")
    dk = ctx.cfg.d_head
    scale = np.sqrt(dk)
    pairs = [((q, (i, c)), (k, (j, c))) for c in range(dk)]
    text, refs, compute = linear(ctx, pairs)
    note = ""
    if ctx.value("mask", (i, j)) == 0:
        note = f"   (stored before the mask: key {j} is after query {i}, so its weight in attn is 0)"
    return ctx.make(
        cell,
        f"{here(ctx, cell)} = ({ctx.ref(q, i)} · {ctx.ref(k, j)}) / √{dk}{note}",
        f"({text}) / {num(scale)}",
        refs,
        lambda v: compute(v) / scale,
    )


def attn(ctx: Ctx, cell: Cell) -> Why:
    i, j = cell.index
    T = ctx.T
    s = ctx.name(cell.b, f"scores.{cell.h}")
    at = here(ctx, cell)
    if ctx.sw.causal_mask and ctx.value("mask", (i, j)) == 0:
        return ctx.make(
            cell,
            f"{at} = 0   (masked: key {j} is after query {i}, so its score is −∞ and exp(−∞) = 0)",
            "exp(−∞) / Σ = 0",
            [("mask", (i, j))],
            lambda v: 0.0 if v[0] == 0 else math.nan,
        )
    if not ctx.sw.causal_mask:
        refs = [(s, (i, kk)) for kk in range(T)]
        return ctx.make(
            cell,
            f"{at} = exp({ctx.ref(s, i, j)}) / Σ_k exp({ctx.ref(s, i, 'k')})   (mask off: every key)",
            softmax_filled(ctx, refs, j),
            refs,
            lambda v: float(softmax(np.asarray(v))[j]),
        )
    mask_refs = [("mask", (i, kk)) for kk in range(T)]
    keys = [kk for kk in range(T) if ctx.value("mask", (i, kk)) > 0]
    score_refs = [(s, (i, kk)) for kk in keys]

    def compute(v) -> float:
        allowed = [kk for kk in range(T) if v[kk] > 0]  # read from the mask's values
        return float(softmax(np.asarray(v[T:]))[allowed.index(j)])

    return ctx.make(
        cell,
        f"{at} = exp({ctx.ref(s, i, j)}) / Σ_(k ≤ {i}) exp({ctx.ref(s, i, 'k')})   (later keys masked)",
        softmax_filled(ctx, score_refs, keys.index(j)),
        [*mask_refs, *score_refs],
        compute,
    )


def head(ctx: Ctx, cell: Cell) -> Why:
    i, c = cell.index
    at = here(ctx, cell)
    if ctx.sw.is_ablated(cell.b, cell.h):
        return ctx.make(
            cell,
            f"{at} = 0   (head {cell.h} ablated: its output is replaced by zeros)",
            "0",
            (),
            lambda v: 0.0,
        )
    kv = ctx.cfg.kv_head(cell.h - 1) + 1  # the key/value head this query head reads
    a, vv = ctx.name(cell.b, f"attn.{cell.h}"), ctx.name(cell.b, f"v.{kv}")
    pairs = [((a, (i, j)), (vv, (j, c))) for j in range(ctx.T)]
    text, refs, compute = linear(ctx, pairs)
    return ctx.make(cell, f"{at} = {ctx.ref(a, i)} · {ctx.ref(vv, ':', c)}", text, refs, compute)


def mha(ctx: Ctx, cell: Cell) -> Why:
    p, j = cell.index
    cfg = ctx.cfg
    w = ctx.name(cell.b, "W_O")
    heads = [ctx.name(cell.b, f"head.{h + 1}") for h in range(cfg.n_heads)]
    pairs = [
        ((heads[r // cfg.d_head], (p, r % cfg.d_head)), (w, (r, j))) for r in range(cfg.n_heads * cfg.d_head)
    ]
    concat = "; ".join(ctx.ref(h, p) for h in heads)
    formula = f"{here(ctx, cell)} = [{concat}] · {ctx.ref(w, ':', j)}"
    if not cfg.out_bias:  # Qwen2 has biases on Q, K, V but none on W_O
        return ctx.make(cell, formula, *linear(ctx, pairs))
    bias = ctx.name(cell.b, "b_O")
    text, refs, compute = linear(ctx, pairs, (bias, (j,)))
    return ctx.make(cell, f"{formula} + {ctx.ref(bias, j)}", text, refs, compute)


# Block-local name (a head's tensors without the head) -> its rule.
RULES: dict[str, Rule] = {
    "ln1.mean": ln1_mean,
    "ln1.var": ln1_var,
    "x_norm": x_norm,
    "q": projection("W_Q"),
    "k": projection("W_K"),
    "v": projection("W_V"),
    "scores": scores,
    "attn": attn,
    "head": head,
    "mha": mha,
}
