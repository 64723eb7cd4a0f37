"""Why each model-wide forward cell has its value: the token ids, the embedding rows, the positional
encoding and the input stream; after the last block the final norm, the logits, the probabilities, the
loss and the step against it; and the weights, where every computation starts. One rule per tensor,
keyed by its name, spelled as model/trace.py runs it under the trace's switches.
"""

from __future__ import annotations

import math

import numpy as np

from tinytui.lesson.why.rule_templates import (
    Rule,
    copy_of,
    here,
    linear,
    ln_entry,
    ln_filled,
    row_of,
    softmax,
    softmax_filled,
    with_affine,
)
from tinytui.lesson.why.why import MINUS, Cell, Ctx, Why, const, factor, num, sum_text
from tinytui.model.names import ALL_PARAMS


def ids(ctx: Ctx, cell: Cell) -> Why:
    (p,) = cell.index
    tok = ctx.prompt[p]
    tid = ctx.cfg.token_id(tok)
    return ctx.make(
        cell,
        f'{here(ctx, cell)} = vocab.index("{tok}")',
        f'"{tok}" is entry {tid} of the vocabulary',
        (),
        lambda v: tid,
    )


def emb(ctx: Ctx, cell: Cell) -> Why:
    p, j = cell.index
    tid = int(ctx.value("ids", (p,)))
    return ctx.make(
        cell,
        f"{here(ctx, cell)} = E[ids[{p}], {j}]",
        f"E[{tid}, {j}]   (row {tid}, {ctx.cfg.vocab[tid]!r}, is copied out)",
        [("ids", (p,)), ("E", (tid, j))],
        lambda v: v[1],
    )


def pe(ctx: Ctx, cell: Cell) -> Why:
    p, i = cell.index
    d = ctx.cfg.d_model
    if not ctx.sw.positional_encoding:
        return ctx.make(
            cell, f"{here(ctx, cell)} = 0   (positional encoding switched off)", "0", (), lambda v: 0.0
        )
    if ctx.cfg.learned_positions:
        return copy_of(ctx, cell, ("P", (p, i)), f"   (row {p} of the learned position table)")
    pair = i // 2
    freq = 1.0 / np.power(10000.0, (2 * pair) / d)
    angle = p / np.power(10000.0, (2 * pair) / d)
    fn = "sin" if i % 2 == 0 else "cos"
    value = float(np.sin(angle) if i % 2 == 0 else np.cos(angle))
    return ctx.make(
        cell,
        f"{here(ctx, cell)} = {fn}(pos·ω),  ω = 1 / 10000^(2i/d),  pos = {p}, i = {pair}, d = {d}",
        f"{fn}({p}·{num(freq)}) = {fn}({num(angle)})",
        (),
        lambda v: value,
    )


def x(ctx: Ctx, cell: Cell) -> Why:
    p, j = cell.index
    at = here(ctx, cell)
    if not ctx.sw.positional_encoding:
        return ctx.make(
            cell,
            f"{at} = {ctx.ref('emb', p, j)}   (no position added: PE is off)",
            num(ctx.value("emb", (p, j))),
            [("emb", (p, j))],
            lambda v: v[0],
        )
    refs = [("emb", (p, j)), ("pe", (p, j))]
    return ctx.make(
        cell,
        f"{at} = {ctx.ref('emb', p, j)} + {ctx.ref('pe', p, j)}",
        sum_text([num(ctx.value(*r)) for r in refs]),
        refs,
        lambda v: v[0] + v[1],
    )


def mask(ctx: Ctx, cell: Cell) -> Why:
    i, j = cell.index
    at = here(ctx, cell)
    if not ctx.sw.causal_mask:
        return ctx.make(
            cell,
            f"{at} = 1   (causal mask switched off: every position sees every other)",
            "1",
            (),
            lambda v: 1.0,
        )
    allowed = 1.0 if j <= i else 0.0
    filled = (
        f"key {j} ≤ query {i}: may attend" if j <= i else f"key {j} > query {i}: blocked (a future token)"
    )
    return ctx.make(cell, f"{at} = 1 if j ≤ i else 0", filled, (), lambda v: allowed)


def z(ctx: Ctx, cell: Cell) -> Why:
    (j,) = cell.index
    src, last = ctx.last_y(), ctx.T - 1
    refs = row_of(src, last, ctx.cfg.d_model)
    row = np.array([ctx.value(*r) for r in refs])
    eps = ctx.cfg.eps
    formula, filled, refs, compute = with_affine(
        ctx,
        None,
        "lnf",
        j,
        f"{here(ctx, cell)} = LN({ctx.ref(src, last)})[{j}]",
        ln_filled(row, j, eps, ctx.ref(src, last)),
        refs,
        lambda v: ln_entry(np.asarray(v), j, eps),
    )
    return ctx.make(cell, f"{formula}   (the last position only)", filled, refs, compute)


def logits(ctx: Ctx, cell: Cell) -> Why:
    (t,) = cell.index
    pairs = [(("z", (j,)), ("E", (t, j))) for j in range(ctx.cfg.d_model)]
    text, refs, compute = linear(ctx, pairs)
    return ctx.make(
        cell, f"{here(ctx, cell)} = z · E[{t}]   (the row of {ctx.cfg.vocab[t]!r})", text, refs, compute
    )


def _probs(src: str) -> Rule:
    def rule(ctx: Ctx, cell: Cell) -> Why:
        (t,) = cell.index
        refs = [(src, (u,)) for u in range(ctx.cfg.n_vocab)]
        return ctx.make(
            cell,
            f"{here(ctx, cell)} = exp({ctx.ref(src, t)}) / Σ_u exp({ctx.ref(src, 'u')})",
            softmax_filled(ctx, refs, t),
            refs,
            lambda v: float(softmax(np.asarray(v))[t]),
        )

    return rule


def _loss(src: str) -> Rule:
    def rule(ctx: Ctx, cell: Cell) -> Why:
        t = ctx.target
        return ctx.make(
            cell,
            f"{here(ctx, cell)} = −log {ctx.ref(src, t)}   (the target, {ctx.cfg.vocab[t]!r})",
            probability_text(ctx.value(src, (t,))),
            [(src, (t,))],
            lambda v: -math.log(v[0]),
        )

    return rule


def probability_text(p: float) -> str:
    """'−log 0.3107'; a probability the tables show with under two significant digits is written to
    six, so the log is of a number that gives the loss to the places shown (−log 0.0000 gives none)."""
    if p == 0.0:
        return "−log 0   (the probability is exactly 0: too small for a float)"
    if p >= 0.01 or not math.isfinite(p):
        return f"−log {num(p)}"
    places = 5 - math.floor(math.log10(p))  # six significant digits
    more = f"{p:.{places}f}" if places <= 20 else f"{p:.5e}".replace("-", MINUS)
    return f"−log {more}   (the probability to more places than the tables' {num(p)})"


def grad_logits(ctx: Ctx, cell: Cell) -> Why:
    (t,) = cell.index
    one = 1.0 if t == ctx.target else 0.0
    src = "probs"
    return ctx.make(
        cell,
        f"{here(ctx, cell)} = {ctx.ref(src, t)} − onehot({ctx.cfg.vocab[ctx.target]!r})[{t}]",
        f"{num(ctx.value(src, (t,)))} − {int(one)}",
        [(src, (t,))],
        lambda v: v[0] - one,
    )


def logits_stepped(ctx: Ctx, cell: Cell) -> Why:
    (t,) = cell.index
    lr = ctx.lr
    refs = [("logits", (t,)), ("grad_logits", (t,))]
    a, g = (ctx.value(*r) for r in refs)
    return ctx.make(
        cell,
        f"{here(ctx, cell)} = {ctx.ref('logits', t)} − lr·{ctx.ref('grad_logits', t)},  lr = {const(lr)}",
        f"{num(a)} − {const(lr)}·{factor(g)}",
        refs,
        lambda v: v[0] - lr * v[1],
    )


def weight(ctx: Ctx, cell: Cell) -> Why:
    """A parameter is where a computation starts: it comes from the model file (or an edit)."""
    value = ctx.value(cell.name, cell.index)
    return ctx.make(
        cell,
        f"{here(ctx, cell)}: a weight, read from the model file (edits and training change it)",
        num(value),
        (),
        lambda v: value,
    )


# Model-wide name (or a weight's block-local name) -> its rule.
RULES: dict[str, Rule] = {
    "ids": ids,
    "emb": emb,
    "pe": pe,
    "x": x,
    "mask": mask,
    "z": z,
    "logits": logits,
    "probs": _probs("logits"),
    "loss": _loss("probs"),
    "grad_logits": grad_logits,
    "logits_stepped": logits_stepped,
    "probs_stepped": _probs("logits_stepped"),
    "loss_stepped": _loss("probs_stepped"),
    **{name: weight for name in ALL_PARAMS},
}
