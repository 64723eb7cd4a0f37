"""The shapes most rules share: a dot product (plus bias), a plain sum, a softmax entry, a layer norm
entry and its backward, a copy, a zero. Each gives the filled-in text, the operands and the compute
function together, so the three cannot drift apart."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from tinytui.lesson.why.why import (
    MINUS,
    SHOW,
    Cell,
    Compute,
    Ctx,
    Ref,
    Why,
    const,
    dot,
    factor,
    num,
    product_terms,
    sum_text,
)

Rule = Callable[[Ctx, Cell], Why]


def here(ctx: Ctx, cell: Cell) -> str:
    return ctx.ref(cell.name, *cell.index)


def row_of(name: str, p: int, n: int) -> list[Ref]:
    return [(name, (p, j)) for j in range(n)]


def values_of(ctx: Ctx, refs: Sequence[Ref]) -> np.ndarray:
    return np.array([ctx.value(*r) for r in refs])


def softmax(v: np.ndarray) -> np.ndarray:
    e = np.exp(v - v.max())
    return e / e.sum()


SHIFT_ABOVE = 20.0  # scores above this are written less their largest: exp(20) has 9 digits already


def sigmoid(x: float) -> float:
    """1 / (1 + exp(−x)), without overflow for any finite x (exp is taken of −|x| only)."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def softmax_filled(ctx: Ctx, refs: Sequence[Ref], at: int) -> str:
    """exp(s_at) / (exp(s_0) + …) = e / Σ; when a score is large, every score less the largest (the
    softmax is the same), so the numbers stay short and never overflow."""
    vals = [ctx.value(*r) for r in refs]
    top = max(vals)
    if top <= SHIFT_ABOVE:
        exps = [math.exp(v) for v in vals]
        return (
            f"exp({num(vals[at])}) / ({sum_text([f'exp({num(v)})' for v in vals])})"
            f" = {num(exps[at])} / {num(sum(exps))}"
        )
    exps = [math.exp(v - top) for v in vals]
    m = num(top)

    def term(v: float) -> str:
        return f"exp({num(v)} {MINUS} {m})"

    return (
        f"{term(vals[at])} / ({sum_text([term(v) for v in vals])})"
        f" = {num(exps[at])} / {num(sum(exps))}"
        f"   (each score less the largest, {m}: the same softmax in smaller numbers)"
    )


def linear(
    ctx: Ctx, pairs: Sequence[tuple[Ref, Ref]], bias: Ref | None = None
) -> tuple[str, list[Ref], Compute]:
    """Σ left·right (+ bias): the filled text, the operands (pairs interleaved, then the bias), compute."""
    refs: list[Ref] = [r for pair in pairs for r in pair]
    n = len(pairs)
    text = sum_text(product_terms([(ctx.value(*a), ctx.value(*b)) for a, b in pairs[:SHOW]]), n)
    if bias is None:
        return text, refs, lambda v: dot(v, n)
    b = num(ctx.value(*bias))
    text = f"{text} {MINUS} {b[1:]}" if b.startswith(MINUS) else f"{text} + {b}"
    return text, [*refs, bias], lambda v: dot(v, n) + v[2 * n]


def plain_sum(ctx: Ctx, refs: Sequence[Ref]) -> tuple[str, Compute]:
    text = sum_text([num(ctx.value(*r)) for r in refs[:SHOW]], len(refs))
    return text, lambda v: float(np.sum(np.asarray(v, dtype=np.float64)))


def ln_entry(row: np.ndarray, j: int, eps: float) -> float:
    """LN(row)[j], the way ops.layer_norm computes it."""
    mean = row.mean()
    var = ((row - mean) ** 2).mean()
    return float((row[j] - mean) / np.sqrt(var + eps))


def rms_entry(row: np.ndarray, j: int, eps: float) -> float:
    """RMS(row)[j], the way ops.rms_norm computes it: no mean taken away."""
    return float(row[j] / np.sqrt((row * row).mean() + eps))


def norm_entry(ctx: Ctx, row: np.ndarray, j: int) -> float:
    """The model's own norm of the row (LayerNorm or RMSNorm), entry j."""
    return (rms_entry if ctx.cfg.norm == "rms" else ln_entry)(row, j, ctx.cfg.eps)


def norm_symbol(ctx: Ctx) -> str:
    return "RMS" if ctx.cfg.norm == "rms" else "LN"


def rms_backward_entry(g: np.ndarray, row: np.ndarray, j: int, eps: float) -> float:
    """(RMSNorm backward of g through the row)[j]: (g_j − x̂_j·mean(g·x̂)) / √(mean(x²) + ε)."""
    root = np.sqrt((row * row).mean() + eps)
    x_hat = row / root
    return float((g[j] - x_hat[j] * (g * x_hat).mean()) / root)


def rms_backward_filled(g: np.ndarray, row: np.ndarray, j: int, eps: float) -> str:
    ms = (row * row).mean()
    x_hat = row / np.sqrt(ms + eps)
    return (
        f"({num(g[j])} {MINUS} {factor(x_hat[j])}·{factor((g * x_hat).mean())}) / √({num(ms)} + {const(eps)})"
    )


RMS_BACKWARD = "(g_j − x̂_j·mean(g·x̂)) / √(mean(x²) + ε)"


def norm_filled(ctx: Ctx, row: np.ndarray, j: int, what: str) -> str:
    """The model's own norm of the row, entry j, with its numbers (ln_filled, or RMSNorm's)."""
    if ctx.cfg.norm != "rms":
        return ln_filled(row, j, ctx.cfg.eps, what)
    ms = (row * row).mean()
    return f"mean({what}²) = {num(ms)}:  {num(row[j])} / √({num(ms)} + {const(ctx.cfg.eps)})"


def ln_filled(row: np.ndarray, j: int, eps: float, what: str) -> str:
    mean = row.mean()
    var = ((row - mean) ** 2).mean()
    return (
        f"μ = mean({what}) = {num(mean)},  σ² = {num(var)}:  "
        f"({num(row[j])} {MINUS} {factor(mean)}) / √({num(var)} + {const(eps)})"
    )


def ln_backward_entry(g: np.ndarray, row: np.ndarray, j: int, eps: float) -> float:
    """(LN backward of g through the row)[j]: (g_j − mean(g) − x̂_j·mean(g·x̂)) / √(σ² + ε)."""
    mean = row.mean()
    var = ((row - mean) ** 2).mean()
    x_hat = (row - mean) / np.sqrt(var + eps)
    return float((g[j] - g.mean() - x_hat[j] * (g * x_hat).mean()) / np.sqrt(var + eps))


def ln_backward_filled(g: np.ndarray, row: np.ndarray, j: int, eps: float) -> str:
    mean = row.mean()
    var = ((row - mean) ** 2).mean()
    x_hat = (row - mean) / np.sqrt(var + eps)
    return (
        f"({num(g[j])} {MINUS} {factor(g.mean())} {MINUS} {factor(x_hat[j])}·{factor((g * x_hat).mean())})"
        f" / √({num(var)} + {const(eps)})"
    )


LN_BACKWARD = "(g_j − mean(g) − x̂_j·mean(g·x̂)) / √(σ² + ε)"


def zero(ctx: Ctx, cell: Cell, why: str) -> Why:
    return ctx.make(cell, f"{here(ctx, cell)} = 0   ({why})", "0", (), lambda v: 0.0)


def copy_of(ctx: Ctx, cell: Cell, src: Ref, note: str = "") -> Why:
    return ctx.make(
        cell,
        f"{here(ctx, cell)} = {ctx.ref(src[0], *src[1])}{note}",
        num(ctx.value(*src)),
        [src],
        lambda v: v[0],
    )


def ln_back(
    ctx: Ctx,
    cell: Cell,
    g: str,
    rows: list[str],
    skip: Ref | None,
    note: str,
    p: int | None = None,
    gain: str | None = None,
) -> Why:
    """LN backward of the gradient row g[p] through the row LN read (the sum of rows[…][p]), entry j,
    plus an optional skip share. With the norm's gain (a (d,) weight), LN's backward reads g ⊙ gain.
    Operands: g's row, the gain, each summed row, then the skip."""
    p = cell.index[0] if p is None else p
    j = cell.index[-1]
    d, eps = ctx.cfg.d_model, ctx.cfg.eps
    g_refs = row_of(g, p, d) if ctx.array(g).ndim == 2 else [(g, (jj,)) for jj in range(d)]
    gain_refs = [(gain, (jj,)) for jj in range(d)] if gain is not None else []
    row_refs = [row_of(r, p, d) for r in rows]
    refs = [*g_refs, *gain_refs] + [r for rr in row_refs for r in rr]
    n_rows = len(rows)
    row = sum((values_of(ctx, rr) for rr in row_refs), np.zeros(d))
    through = " + ".join(ctx.ref(r, p) for r in rows)  # post-norm with the residual: LN read x + mha
    gr = ctx.ref(g, p) if ctx.array(g).ndim == 2 else ctx.ref(g)
    rms = ctx.cfg.norm == "rms"
    rule = (RMS_BACKWARD if rms else LN_BACKWARD).replace("_j", f"_{j}")
    formula = f"{here(ctx, cell)} = {rule}"
    sym = norm_symbol(ctx)
    if gain is not None:
        where = f",  g = {gr} ⊙ {ctx.ref(gain)}, x̂ = {sym}({through})"
        g_vals = values_of(ctx, g_refs) * values_of(ctx, gain_refs)
    else:
        where = f",  g = {gr}, x̂ = {sym}({through})"
        g_vals = values_of(ctx, g_refs)
    filled = (rms_backward_filled if rms else ln_backward_filled)(g_vals, row, j, eps)
    backward_entry = rms_backward_entry if rms else ln_backward_entry
    if skip is not None:
        formula += f" + {ctx.ref(skip[0], *skip[1])}"
        sv = num(ctx.value(*skip))
        filled += f" {MINUS} {sv[1:]}" if sv.startswith(MINUS) else f" + {sv}"
        refs.append(skip)
    first = d * (2 if gain is not None else 1)  # where the rows start among the operands

    def compute(v) -> float:
        v = np.asarray(v, dtype=np.float64)
        gv = v[:d] * v[d : 2 * d] if gain is not None else v[:d]
        xs = sum(v[first + d * k : first + d * (k + 1)] for k in range(n_rows))
        out = backward_entry(gv, xs, j, eps)
        return out + (float(v[-1]) if skip is not None else 0.0)

    return ctx.make(cell, formula + where + note, filled, refs, compute)


def gain_of(ctx: Ctx, b: int | None, which: str) -> str | None:
    """The gain of norm `which` ("ln1", "ln2"; "lnf" model-wide) when the model's norms have one."""
    name = f"{which}_g" if b is None else ctx.name(b, f"{which}_g")
    return name if name in ctx.params else None


def with_affine(ctx: Ctx, b: int | None, which: str, j: int, formula: str, filled: str, refs, compute):
    """A norm's entry j, then ·g[j] + b[j] when the model's norms have a gain and bias: the formula and
    filled text grow by the two terms, the operands by the two weights (last), compute applies them."""
    gain = gain_of(ctx, b, which)
    if gain is None:
        return formula, filled, list(refs), compute
    bias = gain[:-1] + "b"
    g = ctx.value(gain, (j,))
    if bias not in ctx.params:  # RMSNorm: a gain and no bias
        return (
            f"{formula}·{ctx.ref(gain, j)}",
            f"({filled})·{factor(g)}",
            [*refs, (gain, (j,))],
            lambda v: compute(v[:-1]) * v[-1],
        )
    bv = ctx.value(bias, (j,))
    refs = [*refs, (gain, (j,)), (bias, (j,))]
    sign = f"{MINUS} {num(bv)[1:]}" if num(bv).startswith(MINUS) else f"+ {num(bv)}"
    return (
        f"{formula}·{ctx.ref(gain, j)} + {ctx.ref(bias, j)}",
        f"({filled})·{factor(g)} {sign}",
        refs,
        lambda v: compute(v[:-2]) * v[-2] + v[-1],
    )


def pairs_rule(ctx: Ctx, cell: Cell, formula: str, pairs, scale: float = 1.0) -> Why:
    text, refs, compute = linear(ctx, pairs)
    if scale != 1.0:
        return ctx.make(cell, formula, f"({text}) / {num(scale)}", refs, lambda v: compute(v) / scale)
    return ctx.make(cell, formula, text, refs, compute)
