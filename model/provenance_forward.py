"""Why each forward tensor's cell has its value: one rule per tensor, keyed by its block-local name.

Every rule follows model/trace.py under the trace's switches (the mask, PE, ablated heads, ReLU or
GELU, pre- or post-norm, the residual) and lists exactly the cells it reads.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from tinytui.model import ops
from tinytui.model.provenance_core import (
    MINUS,
    SHOW,
    Cell,
    Ctx,
    Ref,
    Why,
    const,
    factor,
    linear,
    ln_entry,
    ln_filled,
    num,
    plain_sum,
    sum_text,
)

Rule = Callable[[Ctx, Cell], Why]


def _at(ctx: Ctx, cell: Cell) -> str:
    return ctx.ref(cell.name, *cell.index)


def _softmax(v: np.ndarray) -> np.ndarray:
    e = np.exp(v - v.max())
    return e / e.sum()


def _softmax_filled(ctx: Ctx, refs: list[Ref], at: int) -> str:
    vals = [ctx.value(*r) for r in refs]
    exps = [math.exp(v) for v in vals]
    return (
        f"exp({num(vals[at])}) / ({sum_text([f'exp({num(v)})' for v in vals])})"
        f" = {num(exps[at])} / {num(sum(exps))}"
    )


# ---- model-wide tensors: embedding, position, the input stream ---------------------------------------


def ids(ctx: Ctx, cell: Cell) -> Why:
    (p,) = cell.index
    tok = ctx.prompt[p]
    tid = ctx.cfg.token_id(tok)
    return ctx.make(
        cell,
        f'{_at(ctx, cell)} = vocab.index("{tok}")',
        f'"{tok}" is entry {tid} of the vocabulary',
        (),
        lambda v: tid,
    )


def emb(ctx: Ctx, cell: Cell) -> Why:
    p, j = cell.index
    tid = int(ctx.value("ids", (p,)))
    return ctx.make(
        cell,
        f"{_at(ctx, cell)} = E[ids[{p}], {j}]",
        f"E[{tid}, {j}]   (row {tid}, {ctx.cfg.vocab[tid]!r}, is copied out)",
        [("ids", (p,)), ("E", (tid, j))],
        lambda v: v[1],
    )


def pe(ctx: Ctx, cell: Cell) -> Why:
    p, i = cell.index
    d = ctx.cfg.d_model
    if not ctx.sw.positional_encoding:
        return ctx.make(
            cell, f"{_at(ctx, cell)} = 0   (positional encoding switched off)", "0", (), lambda v: 0.0
        )
    pair = i // 2
    freq = 1.0 / np.power(10000.0, (2 * pair) / d)
    angle = p / np.power(10000.0, (2 * pair) / d)
    fn = "sin" if i % 2 == 0 else "cos"
    value = float(np.sin(angle) if i % 2 == 0 else np.cos(angle))
    return ctx.make(
        cell,
        f"{_at(ctx, cell)} = {fn}(pos·ω),  ω = 1 / 10000^(2i/d),  pos = {p}, i = {pair}, d = {d}",
        f"{fn}({p}·{num(freq)}) = {fn}({num(angle)})",
        (),
        lambda v: value,
    )


def x(ctx: Ctx, cell: Cell) -> Why:
    p, j = cell.index
    at = _at(ctx, cell)
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
    at = _at(ctx, cell)
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


# ---- one block: the norm, attention, the residuals, the feed-forward ---------------------------------


def _row(ctx: Ctx, name: str, p: int, n: int) -> list[Ref]:
    return [(name, (p, j)) for j in range(n)]


def ln1_mean(ctx: Ctx, cell: Cell) -> Why:
    (p,) = cell.index
    src = ctx.block_input(cell.block)
    refs = _row(ctx, src, p, ctx.cfg.d_model)
    text, _ = plain_sum(ctx, refs)
    note = "   (post-norm: shown only, nothing is normalised here)" if ctx.sw.norm == "post" else ""
    return ctx.make(
        cell,
        f"{_at(ctx, cell)} = (1/d) Σ_j {ctx.ref(src, p, 'j')}{note}",
        f"({text}) / {ctx.cfg.d_model}",
        refs,
        lambda v: float(np.mean(np.asarray(v))),
    )


def ln1_var(ctx: Ctx, cell: Cell) -> Why:
    (p,) = cell.index
    src = ctx.block_input(cell.block)
    mean_name = ctx.name(cell.block, "ln1.mean")
    refs = [(mean_name, (p,)), *_row(ctx, src, p, ctx.cfg.d_model)]
    m = ctx.value(mean_name, (p,))
    terms = [f"({num(ctx.value(*r))} {MINUS} {factor(m)})²" for r in refs[1 : 1 + SHOW]]
    note = "   (post-norm: shown only, nothing is normalised here)" if ctx.sw.norm == "post" else ""
    return ctx.make(
        cell,
        f"{_at(ctx, cell)} = (1/d) Σ_j ({ctx.ref(src, p, 'j')} {MINUS} {ctx.ref(mean_name, p)})²{note}",
        f"({sum_text(terms, len(refs) - 1)}) / {ctx.cfg.d_model}",
        refs,
        lambda v: float(np.mean((np.asarray(v[1:]) - v[0]) ** 2)),
    )


def x_norm(ctx: Ctx, cell: Cell) -> Why:
    p, j = cell.index
    src = ctx.block_input(cell.block)
    at = _at(ctx, cell)
    if ctx.sw.norm == "post":
        return ctx.make(
            cell,
            f"{at} = {ctx.ref(src, p, j)}   (post-norm: the sublayer reads the stream as it is)",
            num(ctx.value(src, (p, j))),
            [(src, (p, j))],
            lambda v: v[0],
        )
    mean_name, var_name = ctx.name(cell.block, "ln1.mean"), ctx.name(cell.block, "ln1.var")
    refs = [(mean_name, (p,)), (var_name, (p,)), *_row(ctx, src, p, ctx.cfg.d_model)]
    eps = ctx.cfg.eps
    m, var, xv = ctx.value(mean_name, (p,)), ctx.value(var_name, (p,)), ctx.value(src, (p, j))
    return ctx.make(
        cell,
        f"{at} = ({ctx.ref(src, p, j)} {MINUS} {ctx.ref(mean_name, p)}) / √({ctx.ref(var_name, p)} + ε)",
        f"({num(xv)} {MINUS} {factor(m)}) / √({num(var)} + {const(eps)})",
        refs,
        lambda v: float((v[2 + j] - v[0]) / np.sqrt(v[1] + eps)),
    )


def _projection(weight: str) -> Rule:
    def rule(ctx: Ctx, cell: Cell) -> Why:
        p, c = cell.index
        h = cell.head - 1
        src, w = ctx.name(cell.block, "x_norm"), ctx.name(cell.block, weight)
        pairs = [((src, (p, j)), (w, (h, j, c))) for j in range(ctx.cfg.d_model)]
        text, refs, compute = linear(ctx, pairs)
        return ctx.make(
            cell, f"{_at(ctx, cell)} = {ctx.ref(src, p)} · {ctx.ref(w, h, ':', c)}", text, refs, compute
        )

    return rule


def scores(ctx: Ctx, cell: Cell) -> Why:
    i, j = cell.index
    q, k = ctx.name(cell.block, f"q.{cell.head}"), ctx.name(cell.block, f"k.{cell.head}")
    dk = ctx.cfg.d_head
    scale = np.sqrt(dk)
    pairs = [((q, (i, c)), (k, (j, c))) for c in range(dk)]
    text, refs, compute = linear(ctx, pairs)
    note = ""
    if ctx.value("mask", (i, j)) == 0:
        note = f"   (stored before the mask: key {j} is after query {i}, so its weight in attn is 0)"
    return ctx.make(
        cell,
        f"{_at(ctx, cell)} = ({ctx.ref(q, i)} · {ctx.ref(k, j)}) / √{dk}{note}",
        f"({text}) / {num(scale)}",
        refs,
        lambda v: compute(v) / scale,
    )


def attn(ctx: Ctx, cell: Cell) -> Why:
    i, j = cell.index
    T = ctx.T
    s = ctx.name(cell.block, f"scores.{cell.head}")
    at = _at(ctx, cell)
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
            _softmax_filled(ctx, refs, j),
            refs,
            lambda v: float(_softmax(np.asarray(v))[j]),
        )
    mask_refs = [("mask", (i, kk)) for kk in range(T)]
    keys = [kk for kk in range(T) if ctx.value("mask", (i, kk)) > 0]
    score_refs = [(s, (i, kk)) for kk in keys]

    def compute(v) -> float:
        allowed = [kk for kk in range(T) if v[kk] > 0]  # read from the mask's values
        return float(_softmax(np.asarray(v[T:]))[allowed.index(j)])

    return ctx.make(
        cell,
        f"{at} = exp({ctx.ref(s, i, j)}) / Σ_(k ≤ {i}) exp({ctx.ref(s, i, 'k')})   (later keys masked)",
        _softmax_filled(ctx, score_refs, keys.index(j)),
        [*mask_refs, *score_refs],
        compute,
    )


def head(ctx: Ctx, cell: Cell) -> Why:
    i, c = cell.index
    at = _at(ctx, cell)
    if cell.head in ctx.sw.ablated_heads:
        return ctx.make(
            cell,
            f"{at} = 0   (head {cell.head} ablated: its output is replaced by zeros)",
            "0",
            (),
            lambda v: 0.0,
        )
    a, vv = ctx.name(cell.block, f"attn.{cell.head}"), ctx.name(cell.block, f"v.{cell.head}")
    pairs = [((a, (i, j)), (vv, (j, c))) for j in range(ctx.T)]
    text, refs, compute = linear(ctx, pairs)
    return ctx.make(cell, f"{at} = {ctx.ref(a, i)} · {ctx.ref(vv, ':', c)}", text, refs, compute)


def mha(ctx: Ctx, cell: Cell) -> Why:
    p, j = cell.index
    cfg = ctx.cfg
    w = ctx.name(cell.block, "W_O")
    heads = [ctx.name(cell.block, f"head.{h + 1}") for h in range(cfg.n_heads)]
    pairs = [
        ((heads[r // cfg.d_head], (p, r % cfg.d_head)), (w, (r, j))) for r in range(cfg.n_heads * cfg.d_head)
    ]
    text, refs, compute = linear(ctx, pairs)
    concat = "; ".join(ctx.ref(h, p) for h in heads)
    return ctx.make(cell, f"{_at(ctx, cell)} = [{concat}] · {ctx.ref(w, ':', j)}", text, refs, compute)


def _residual(skip_of: Callable[[Ctx, Cell], str], branch_local: str) -> Rule:
    """x' = [LN](x + mha) and y = [LN](x' + ffn): the skip term is dropped when the residual is off,
    and post-norm normalises the sum's row."""

    def rule(ctx: Ctx, cell: Cell) -> Why:
        p, j = cell.index
        skip, branch = skip_of(ctx, cell), ctx.name(cell.block, branch_local)
        at, res = _at(ctx, cell), ctx.sw.residual
        if ctx.sw.norm == "pre":
            if not res:
                return ctx.make(
                    cell,
                    f"{at} = {ctx.ref(branch, p, j)}   (residual off: no skip)",
                    num(ctx.value(branch, (p, j))),
                    [(branch, (p, j))],
                    lambda v: v[0],
                )
            refs = [(skip, (p, j)), (branch, (p, j))]
            return ctx.make(
                cell,
                f"{at} = {ctx.ref(skip, p, j)} + {ctx.ref(branch, p, j)}",
                sum_text([num(ctx.value(*r)) for r in refs]),
                refs,
                lambda v: v[0] + v[1],
            )
        d, eps = ctx.cfg.d_model, ctx.cfg.eps
        branch_row = _row(ctx, branch, p, d)
        if res:
            refs = [*_row(ctx, skip, p, d), *branch_row]
            row = np.array([ctx.value(*r) for r in refs[:d]]) + np.array([ctx.value(*r) for r in branch_row])
            inner = f"{ctx.ref(skip, p)} + {ctx.ref(branch, p)}"

            def compute(v) -> float:
                return ln_entry(np.asarray(v[:d]) + np.asarray(v[d:]), j, eps)

            what = "the sum's row"
        else:
            refs = branch_row
            row = np.array([ctx.value(*r) for r in refs])
            inner = ctx.ref(branch, p)

            def compute(v) -> float:
                return ln_entry(np.asarray(v), j, eps)

            what = ctx.ref(branch, p)
        note = "" if res else "   (residual off: no skip)"
        return ctx.make(
            cell,
            f"{at} = LN({inner})[{j}]   (post-norm){note}",
            ln_filled(row, j, eps, what),
            refs,
            compute,
        )

    return rule


def x_mid_norm(ctx: Ctx, cell: Cell) -> Why:
    p, j = cell.index
    src = ctx.name(cell.block, "x_mid")
    at = _at(ctx, cell)
    if ctx.sw.norm == "post":
        return ctx.make(
            cell,
            f"{at} = {ctx.ref(src, p, j)}   (post-norm: x' is already normalised)",
            num(ctx.value(src, (p, j))),
            [(src, (p, j))],
            lambda v: v[0],
        )
    refs = _row(ctx, src, p, ctx.cfg.d_model)
    row = np.array([ctx.value(*r) for r in refs])
    eps = ctx.cfg.eps
    return ctx.make(
        cell,
        f"{at} = LN({ctx.ref(src, p)})[{j}] = ({ctx.ref(src, p, j)} {MINUS} μ) / √(σ² + ε)",
        ln_filled(row, j, eps, ctx.ref(src, p)),
        refs,
        lambda v: ln_entry(np.asarray(v), j, eps),
    )


def _affine(src_local: str, w_local: str, b_local: str) -> Rule:
    def rule(ctx: Ctx, cell: Cell) -> Why:
        p, u = cell.index
        src, w, b = (ctx.name(cell.block, n) for n in (src_local, w_local, b_local))
        n_in = ctx.array(src).shape[1]
        pairs = [((src, (p, j)), (w, (j, u))) for j in range(n_in)]
        text, refs, compute = linear(ctx, pairs, (b, (u,)))
        return ctx.make(
            cell,
            f"{_at(ctx, cell)} = {ctx.ref(src, p)} · {ctx.ref(w, ':', u)} + {ctx.ref(b, u)}",
            text,
            refs,
            compute,
        )

    return rule


def hidden(ctx: Ctx, cell: Cell) -> Why:
    p, u = cell.index
    pre = ctx.name(cell.block, "hidden_pre")
    h = ctx.value(pre, (p, u))
    at, hp = _at(ctx, cell), ctx.ref(pre, p, u)
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


# ---- after the last block: the final norm, the logits, the loss and one step against it -------------


def z(ctx: Ctx, cell: Cell) -> Why:
    (j,) = cell.index
    src, last = ctx.last_y(), ctx.T - 1
    refs = _row(ctx, src, last, ctx.cfg.d_model)
    row = np.array([ctx.value(*r) for r in refs])
    eps = ctx.cfg.eps
    return ctx.make(
        cell,
        f"{_at(ctx, cell)} = LN({ctx.ref(src, last)})[{j}]   (the last position only)",
        ln_filled(row, j, eps, ctx.ref(src, last)),
        refs,
        lambda v: ln_entry(np.asarray(v), j, eps),
    )


def logits(ctx: Ctx, cell: Cell) -> Why:
    (t,) = cell.index
    pairs = [(("z", (j,)), ("E", (t, j))) for j in range(ctx.cfg.d_model)]
    text, refs, compute = linear(ctx, pairs)
    return ctx.make(
        cell, f"{_at(ctx, cell)} = z · E[{t}]   (the row of {ctx.cfg.vocab[t]!r})", text, refs, compute
    )


def _probs(src: str) -> Rule:
    def rule(ctx: Ctx, cell: Cell) -> Why:
        (t,) = cell.index
        refs = [(src, (u,)) for u in range(ctx.cfg.n_vocab)]
        return ctx.make(
            cell,
            f"{_at(ctx, cell)} = exp({ctx.ref(src, t)}) / Σ_u exp({ctx.ref(src, 'u')})",
            _softmax_filled(ctx, refs, t),
            refs,
            lambda v: float(_softmax(np.asarray(v))[t]),
        )

    return rule


def _loss(src: str) -> Rule:
    def rule(ctx: Ctx, cell: Cell) -> Why:
        t = ctx.target
        return ctx.make(
            cell,
            f"{_at(ctx, cell)} = −log {ctx.ref(src, t)}   (the target, {ctx.cfg.vocab[t]!r})",
            f"−log {num(ctx.value(src, (t,)))}",
            [(src, (t,))],
            lambda v: -math.log(v[0]),
        )

    return rule


def grad_logits(ctx: Ctx, cell: Cell) -> Why:
    (t,) = cell.index
    one = 1.0 if t == ctx.target else 0.0
    src = "probs"
    return ctx.make(
        cell,
        f"{_at(ctx, cell)} = {ctx.ref(src, t)} − y[{t}],  y = onehot({ctx.cfg.vocab[ctx.target]!r})",
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
        f"{_at(ctx, cell)} = {ctx.ref('logits', t)} − lr·{ctx.ref('grad_logits', t)},  lr = {const(lr)}",
        f"{num(a)} − {const(lr)}·{factor(g)}",
        refs,
        lambda v: v[0] - lr * v[1],
    )


def weight(ctx: Ctx, cell: Cell) -> Why:
    """A parameter is where a computation starts: it comes from the model file (or an edit)."""
    value = ctx.value(cell.name, cell.index)
    return ctx.make(
        cell,
        f"{_at(ctx, cell)}: a weight, read from the model file (edits and training change it)",
        num(value),
        (),
        lambda v: value,
    )


def _skip_of_x_mid(ctx: Ctx, cell: Cell) -> str:
    return ctx.block_input(cell.block)


def _skip_of_y(ctx: Ctx, cell: Cell) -> str:
    return ctx.name(cell.block, "x_mid")


# Block-local name (a head's tensors without the head) -> its rule.
RULES: dict[str, Rule] = {
    "ids": ids,
    "emb": emb,
    "pe": pe,
    "x": x,
    "mask": mask,
    "ln1.mean": ln1_mean,
    "ln1.var": ln1_var,
    "x_norm": x_norm,
    "q": _projection("W_Q"),
    "k": _projection("W_K"),
    "v": _projection("W_V"),
    "scores": scores,
    "attn": attn,
    "head": head,
    "mha": mha,
    "x_mid": _residual(_skip_of_x_mid, "mha"),
    "x_mid_norm": x_mid_norm,
    "hidden_pre": _affine("x_mid_norm", "W_1", "b_1"),
    "hidden": hidden,
    "ffn": _affine("hidden", "W_2", "b_2"),
    "y": _residual(_skip_of_y, "ffn"),
    "z": z,
    "logits": logits,
    "probs": _probs("logits"),
    "loss": _loss("probs"),
    "grad_logits": grad_logits,
    "logits_stepped": logits_stepped,
    "probs_stepped": _probs("logits_stepped"),
    "loss_stepped": _loss("probs_stepped"),
    **{name: weight for name in ("E", "W_Q", "W_K", "W_V", "W_O", "W_1", "b_1", "W_2", "b_2")},
}
