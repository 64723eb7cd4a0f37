"""Why each cell of the model-wide gradients has its value, as model/backward/gradients.py computes it: the
loss to the logits, the tied unembedding (z and E's unembedding share), the final norm into the last y, each
block's input gradient (back through its first norm plus the skip share), the embedding and E's lookup
share and total.
"""

from __future__ import annotations

from tinytui.lesson.why.rule_templates import Rule, copy_of, gain_of, here, ln_back, pairs_rule, zero
from tinytui.lesson.why.why import Cell, Ctx, Why, factor, num, sum_text
from tinytui.model.names import GRAD


def logits(ctx: Ctx, cell: Cell) -> Why:
    (t,) = cell.index
    one = 1.0 if t == ctx.target else 0.0
    return ctx.make(
        cell,
        f"{here(ctx, cell)} = {ctx.ref('probs', t)} − onehot({ctx.cfg.vocab[ctx.target]!r})[{t}]",
        f"{num(ctx.value('probs', (t,)))} − {int(one)}",
        [("probs", (t,))],
        lambda v: v[0] - one,
    )


def z(ctx: Ctx, cell: Cell) -> Why:
    (j,) = cell.index
    g = GRAD + "logits"
    pairs = [((g, (t,)), ("E", (t, j))) for t in range(ctx.cfg.n_vocab)]
    return pairs_rule(ctx, cell, f"{here(ctx, cell)} = Σ_v {ctx.ref(g, 'v')}·E[v,{j}]", pairs)


def e_unembed(ctx: Ctx, cell: Cell) -> Why:
    t, j = cell.index
    refs = [(GRAD + "logits", (t,)), ("z", (j,))]
    a, b = (ctx.value(*r) for r in refs)
    return ctx.make(
        cell,
        f"{here(ctx, cell)} = {ctx.ref(GRAD + 'logits', t)}·{ctx.ref('z', j)}   (E read backwards)",
        f"{num(a)}·{factor(b)}",
        refs,
        lambda v: v[0] * v[1],
    )


def _block_input_grad(ctx: Ctx, cell: Cell, b: int) -> Why:
    """∂L/∂(block b's input): back through its first norm, plus the skip share of ∂L/∂mha."""
    p, j = cell.index
    g_xn, g_mha = GRAD + ctx.name(b, "x_norm"), GRAD + ctx.terms(ctx.name(b, "x_mid"))[-1]
    skip = (g_mha, (p, j)) if ctx.sw.residual else None
    note = "" if ctx.sw.residual else "   (residual off: no skip share)"
    if ctx.sw.norm == "post":
        refs = [(g_xn, (p, j)), *([skip] if skip else [])]
        vals = [num(ctx.value(*r)) for r in refs]
        formula = f"{here(ctx, cell)} = {ctx.ref(g_xn, p, j)}" + (
            f" + {ctx.ref(g_mha, p, j)}" if skip else ""
        )
        return ctx.make(
            cell,
            formula + "   (post-norm: the sublayer read the stream itself)" + note,
            sum_text(vals),
            refs,
            lambda v: float(sum(v)),
        )
    return ln_back(ctx, cell, g_xn, [ctx.block_input(b)], skip, note, gain=gain_of(ctx, b, "ln1"))


def y(ctx: Ctx, cell: Cell) -> Why:
    b = cell.b
    if b + 1 < ctx.cfg.n_blocks:  # the next block read this y as its input
        return _block_input_grad(ctx, cell, b + 1)
    p, _ = cell.index
    last = ctx.T - 1
    if p != last:
        return zero(
            ctx, cell, f"only row {last} is normalised into z; row {p} does not reach the loss directly"
        )
    return ln_back(ctx, cell, GRAD + "z", [ctx.last_y()], None, "", gain=gain_of(ctx, None, "lnf"))


def x(ctx: Ctx, cell: Cell) -> Why:
    return _block_input_grad(ctx, cell, 0)


def emb(ctx: Ctx, cell: Cell) -> Why:
    p, j = cell.index
    if not ctx.sw.positional_encoding:
        sum_of = "x = emb: the positional encoding is switched off"
    elif ctx.cfg.positions in ("rope", "none"):  # nothing is added to x for position
        sum_of = "x = emb: RoPE adds nothing to x" if ctx.cfg.positions == "rope" else "x = emb: no positions"
    else:
        sum_of = "x = emb + PE" + ("" if ctx.cfg.learned_positions else " and PE is fixed")
    return copy_of(ctx, cell, (GRAD + "x", (p, j)), f"   ({sum_of})")


def e_lookup(ctx: Ctx, cell: Cell) -> Why:
    t, j = cell.index
    T = ctx.T
    g = GRAD + "emb"
    refs = [*(("ids", (p,)) for p in range(T)), *((g, (p, j)) for p in range(T))]
    at = [p for p in range(T) if int(ctx.value("ids", (p,))) == t]

    def compute(v) -> float:
        total = 0.0
        for p in range(T):
            if int(v[p]) == t:
                total += v[T + p]
        return total

    tok = ctx.cfg.vocab[t]
    said = ", ".join(str(p) for p in at)
    where = (
        f"positions {said}"
        if len(at) > 1
        else f"position {said}"
        if at
        else f"none: {tok!r} is not in the prompt"
    )
    return ctx.make(
        cell,
        f"{here(ctx, cell)} = Σ_(p: ids[p] = {t}) {ctx.ref(g, 'p', j)}   ({where})",
        sum_text([num(ctx.value(g, (p, j))) for p in at]),
        refs,
        compute,
    )


def e_total(ctx: Ctx, cell: Cell) -> Why:
    refs = [(GRAD + "E.lookup", cell.index), (GRAD + "E.unembed", cell.index)]
    return ctx.make(
        cell,
        f"{here(ctx, cell)} = {ctx.ref(refs[0][0], *cell.index)} + {ctx.ref(refs[1][0], *cell.index)}",
        sum_text([num(ctx.value(*r)) for r in refs]),
        refs,
        lambda v: v[0] + v[1],
    )


# "grad." + name -> its rule (grad.y is the last block's, or the next block's input gradient).
RULES: dict[str, Rule] = {
    GRAD + "logits": logits,
    GRAD + "z": z,
    GRAD + "E.unembed": e_unembed,
    GRAD + "y": y,
    GRAD + "x": x,
    GRAD + "emb": emb,
    GRAD + "E.lookup": e_lookup,
    GRAD + "E": e_total,
}
