"""Why each cell of the rest of a block has its value: the two residuals (x + mha and x' + ffn; post-norm
normalises the sum, residual off drops the skip), the second norm and the feed-forward with ReLU or
GELU. One rule per tensor, keyed by its block-local name; block b reads block b − 1's y.
"""

from __future__ import annotations

import math

import numpy as np

from tinytui.lesson.why.rule_templates import (
    Rule,
    here,
    linear,
    ln_entry,
    ln_filled,
    norm_entry,
    norm_filled,
    norm_symbol,
    row_of,
    with_affine,
)
from tinytui.lesson.why.why import MINUS, Cell, Ctx, Ref, Why, factor, num, sum_text
from tinytui.model import ops


def _residual(which: str) -> Rule:
    """x' = [LN](x + mha) and y = [LN](x' + ffn), their terms as the forward declared them: the skip term
    is dropped when the residual is off, and post-norm normalises the sum's row with norm `which`."""

    def rule(ctx: Ctx, cell: Cell) -> Why:
        p, j = cell.index
        terms = ctx.terms(cell.name)
        skip, branch = terms[0], terms[-1]  # the skip is read only with the residual on
        at, res = here(ctx, cell), ctx.sw.residual
        if ctx.sw.norm == "pre":
            if not res:
                return ctx.make(
                    cell,
                    f"{at} = {ctx.ref(branch, p, j)}   (residual off: no skip)",
                    num(ctx.value(branch, (p, j))),
                    [(branch, (p, j))],
                    lambda v: v[0],
                )
            refs: list[Ref] = [(skip, (p, j)), (branch, (p, j))]
            return ctx.make(
                cell,
                f"{at} = {ctx.ref(skip, p, j)} + {ctx.ref(branch, p, j)}",
                sum_text([num(ctx.value(*r)) for r in refs]),
                refs,
                lambda v: v[0] + v[1],
            )
        d = ctx.cfg.d_model
        branch_row = row_of(branch, p, d)
        if res:
            refs = [*row_of(skip, p, d), *branch_row]
            row = np.array([ctx.value(*r) for r in refs[:d]]) + np.array([ctx.value(*r) for r in branch_row])
            inner = f"{ctx.ref(skip, p)} + {ctx.ref(branch, p)}"

            def compute(v) -> float:
                return norm_entry(ctx, np.asarray(v[:d]) + np.asarray(v[d:]), j)

            what = "the sum's row"
        else:
            refs = branch_row
            row = np.array([ctx.value(*r) for r in refs])
            inner = ctx.ref(branch, p)

            def compute(v) -> float:
                return norm_entry(ctx, np.asarray(v), j)

            what = ctx.ref(branch, p)
        note = "" if res else "   (residual off: no skip)"
        formula, filled, refs, compute = with_affine(
            ctx,
            cell.b,
            which,
            j,
            f"{at} = {norm_symbol(ctx)}({inner})[{j}]",
            norm_filled(ctx, row, j, what),
            refs,
            compute,
        )
        return ctx.make(cell, f"{formula}   (post-norm){note}", filled, refs, compute)

    return rule


def x_mid_norm(ctx: Ctx, cell: Cell) -> Why:
    p, j = cell.index
    src = ctx.name(cell.b, "x_mid")
    at = here(ctx, cell)
    if ctx.sw.norm == "post":
        return ctx.make(
            cell,
            f"{at} = {ctx.ref(src, p, j)}   (post-norm: x' is already normalised)",
            num(ctx.value(src, (p, j))),
            [(src, (p, j))],
            lambda v: v[0],
        )
    refs = row_of(src, p, ctx.cfg.d_model)
    row = np.array([ctx.value(*r) for r in refs])
    eps = ctx.cfg.eps
    if ctx.cfg.norm_affine:  # the gain and bias apply to LN's entry: keep "LN(…)[j]" whole before them
        head = f"{at} = LN({ctx.ref(src, p)})[{j}]"
    else:
        head = f"{at} = LN({ctx.ref(src, p)})[{j}] = ({ctx.ref(src, p, j)} {MINUS} μ) / √(σ² + ε)"
    formula, filled, refs, compute = with_affine(
        ctx,
        cell.b,
        "ln2",
        j,
        head,
        ln_filled(row, j, eps, ctx.ref(src, p)),
        refs,
        lambda v: ln_entry(np.asarray(v), j, eps),
    )
    return ctx.make(cell, formula, filled, refs, compute)


def _affine(src_local: str, w_local: str, b_local: str) -> Rule:
    def rule(ctx: Ctx, cell: Cell) -> Why:
        p, u = cell.index
        src, w, b = (ctx.name(cell.b, n) for n in (src_local, w_local, b_local))
        n_in = ctx.array(src).shape[1]
        pairs = [((src, (p, j)), (w, (j, u))) for j in range(n_in)]
        text, refs, compute = linear(ctx, pairs, (b, (u,)))
        return ctx.make(
            cell,
            f"{here(ctx, cell)} = {ctx.ref(src, p)} · {ctx.ref(w, ':', u)} + {ctx.ref(b, u)}",
            text,
            refs,
            compute,
        )

    return rule


def hidden(ctx: Ctx, cell: Cell) -> Why:
    p, u = cell.index
    pre = ctx.name(cell.b, "hidden_pre")
    h = ctx.value(pre, (p, u))
    at, hp = here(ctx, cell), ctx.ref(pre, p, u)
    if ctx.sw.activation == "relu":
        return ctx.make(
            cell,
            f"{at} = max(0, {hp})",
            f"max(0, {num(h)})" + ("   (the unit did not fire)" if h <= 0 else ""),
            [(pre, (p, u))],
            lambda v: max(0.0, v[0]),
        )
    c = float(ops.GELU_C)
    return ctx.make(
        cell,
        f"{at} = 0.5·h·(1 + tanh(√(2/π)·(h + 0.044715·h³))),  h = {hp}   (GELU, tanh form)",
        f"0.5·{factor(h)}·(1 + tanh({num(c)}·({num(h)} + 0.044715·{factor(h)}³)))",
        [(pre, (p, u))],
        lambda v: 0.5 * v[0] * (1.0 + math.tanh(c * (v[0] + 0.044715 * v[0] ** 3))),
    )


# Block-local name -> its rule.
RULES: dict[str, Rule] = {
    "x_mid": _residual("ln1"),  # post-norm: ln1 after attention, ln2 after the feed-forward
    "x_mid_norm": x_mid_norm,
    "hidden_pre": _affine("x_mid_norm", "W_1", "b_1"),
    "hidden": hidden,
    "ffn": _affine("hidden", "W_2", "b_2"),
    "y": _residual("ln2"),
}
