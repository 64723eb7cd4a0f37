"""Why each cell has its value in a Llama-family model: the tensors only these blocks make (RMSNorm's
mean square, the projections q_pre and k_pre before RoPE turns them, the gated feed-forward's gate_pre,
gate and up) and, in INSTEAD, the rules of the chapter's tensors that such a model computes another way
(x_norm, x_mid_norm and z without a mean; q and k turned by position; hidden as gate times up; ffn
through W_down; the logits through W_U; a PE of zeros). An INSTEAD rule answers None for a model that
computes the tensor the chapter's way, and the chapter's rule answers.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from tinytui.lesson.why.attention_cells import projection
from tinytui.lesson.why.rule_templates import Rule, here, linear, row_of, sigmoid
from tinytui.lesson.why.why import MINUS, Cell, Ctx, Why, const, factor, num, sum_text
from tinytui.model import ops
from tinytui.model.names import GRAD


def _gain(ctx: Ctx, name: str) -> str | None:
    """The norm's gain (ln1_g, ln2_g, lnf_g) when the model has one."""
    return name if name in ctx.params else None


def _rms(ctx: Ctx, cell: Cell, src: str, p: int, gain: str | None, note: str = "") -> Why:
    """src[p]'s RMSNorm, entry j: x_j / √(mean(x²) + ε) (· g_j)."""
    j = cell.index[-1]
    d, eps = ctx.cfg.d_model, ctx.cfg.eps
    refs = row_of(src, p, d)
    row = np.array([ctx.value(*r) for r in refs])
    ms = float((row * row).mean())
    core = f"{ctx.ref(src, p, j)} / √(mean({ctx.ref(src, p)}²) + ε)"
    filled = f"{num(row[j])} / √({num(ms)} + {const(eps)})"

    def compute(v) -> float:
        x = np.asarray(v[:d], dtype=np.float64)
        return float(x[j] / np.sqrt((x * x).mean() + eps))

    if gain is None:
        return ctx.make(cell, f"{here(ctx, cell)} = {core}   (RMSNorm){note}", filled, refs, compute)
    g = ctx.value(gain, (j,))
    return ctx.make(
        cell,
        f"{here(ctx, cell)} = {core} · {ctx.ref(gain, j)}   (RMSNorm){note}",
        f"{filled} · {factor(g)}",
        [*refs, (gain, (j,))],
        lambda v: compute(v) * v[d],
    )


def mean_sq(ctx: Ctx, cell: Cell) -> Why:
    (p,) = cell.index
    src = ctx.block_input(cell.b)
    refs = row_of(src, p, ctx.cfg.d_model)
    terms = [f"{factor(ctx.value(*r))}²" for r in refs]
    note = "   (post-norm: shown only, nothing is normalised here)" if ctx.sw.norm == "post" else ""
    d = ctx.cfg.d_model
    return ctx.make(
        cell,
        f"{here(ctx, cell)} = (1/d) Σ_j {ctx.ref(src, p, 'j')}²{note}",
        f"({sum_text(terms)}) / {d}",
        refs,
        lambda v: float((np.asarray(v, dtype=np.float64) ** 2).mean()),
    )


def x_norm(ctx: Ctx, cell: Cell) -> Why | None:
    if ctx.cfg.norm != "rms" or ctx.sw.norm == "post":
        return None
    return _rms(ctx, cell, ctx.block_input(cell.b), cell.index[0], _gain(ctx, ctx.name(cell.b, "ln1_g")))


def x_mid_norm(ctx: Ctx, cell: Cell) -> Why | None:
    if ctx.cfg.norm != "rms" or ctx.sw.norm == "post":
        return None
    src = ctx.name(cell.b, "x_mid")
    return _rms(ctx, cell, src, cell.index[0], _gain(ctx, ctx.name(cell.b, "ln2_g")))


def z(ctx: Ctx, cell: Cell) -> Why | None:
    if ctx.cfg.norm != "rms":
        return None
    return _rms(ctx, cell, ctx.last_y(), ctx.T - 1, _gain(ctx, "lnf_g"), "   (the last position only)")


def pe(ctx: Ctx, cell: Cell) -> Why | None:
    if ctx.cfg.positions not in ("rope", "none"):
        return None
    why = "rotary positions: nothing is added to x" if ctx.cfg.positions == "rope" else "no positions"
    return ctx.make(cell, f"{here(ctx, cell)} = 0   ({why})", "0", (), lambda v: 0.0)


def _turned(which: str) -> Callable[[Ctx, Cell], Why | None]:
    """q.h or k.g with rotary positions: dims i and i + k/2 of row p turn together by p's angle."""

    def rule(ctx: Ctx, cell: Cell) -> Why | None:
        if ctx.cfg.positions != "rope":
            return None
        p, i = cell.index
        pre = ctx.name(cell.b, f"{which}_pre.{cell.h}")
        at = here(ctx, cell)
        if not ctx.sw.positional_encoding:
            return ctx.make(
                cell,
                f"{at} = {ctx.ref(pre, p, i)}   (positional encoding off: not turned)",
                num(ctx.value(pre, (p, i))),
                [(pre, (p, i))],
                lambda v: v[0],
            )
        k = ctx.cfg.d_head
        half = k // 2
        pair = i % half
        angles = ops.rope_angles(ctx.T, k, ctx.cfg.rope_theta, ctx.cfg.rope_scaling)
        angle = float(angles[p, pair])
        cos, sin = math.cos(angle), math.sin(angle)
        first = i < half
        partner = i + half if first else i - half
        refs = [(pre, (p, i)), (pre, (p, partner))]
        a, b = (ctx.value(*r) for r in refs)
        turn = f"θ = {p}·f_{pair} = {num(angle)}   (RoPE: dims {pair} and {pair + half} turn together)"
        if first:
            formula = f"{at} = {ctx.ref(pre, p, i)}·cos θ {MINUS} {ctx.ref(pre, p, partner)}·sin θ,  {turn}"
            filled = f"{factor(a)}·{factor(cos)} {MINUS} {factor(b)}·{factor(sin)}"
            return ctx.make(cell, formula, filled, refs, lambda v: v[0] * cos - v[1] * sin)
        formula = f"{at} = {ctx.ref(pre, p, i)}·cos θ + {ctx.ref(pre, p, partner)}·sin θ,  {turn}"
        filled = f"{factor(a)}·{factor(cos)} + {factor(b)}·{factor(sin)}"
        return ctx.make(cell, formula, filled, refs, lambda v: v[0] * cos + v[1] * sin)

    return rule


def _gated_linear(src_local: str, w_local: str) -> Rule:
    """gate_pre, up: x_mid_norm · W[:, u]; ffn: hidden · W_down[:, j] (no biases)."""

    def rule(ctx: Ctx, cell: Cell) -> Why:
        p, u = cell.index
        src, w = ctx.name(cell.b, src_local), ctx.name(cell.b, w_local)
        n_in = ctx.array(src).shape[1]
        pairs = [((src, (p, j)), (w, (j, u))) for j in range(n_in)]
        text, refs, compute = linear(ctx, pairs)
        return ctx.make(
            cell, f"{here(ctx, cell)} = {ctx.ref(src, p)} · {ctx.ref(w, ':', u)}", text, refs, compute
        )

    return rule


def gate(ctx: Ctx, cell: Cell) -> Why:
    """The gate: the activation of gate_pre (SiLU, the model's own; ReLU or GELU when switched)."""
    p, u = cell.index
    pre = ctx.name(cell.b, "gate_pre")
    g = ctx.value(pre, (p, u))
    at, gp = here(ctx, cell), ctx.ref(pre, p, u)
    if ctx.sw.activation == "relu":
        return ctx.make(
            cell, f"{at} = max(0, {gp})", f"max(0, {num(g)})", [(pre, (p, u))], lambda v: max(0.0, v[0])
        )
    if ctx.sw.activation == "gelu":
        c = float(ops.GELU_C)
        return ctx.make(
            cell,
            f"{at} = 0.5·h·(1 + tanh(√(2/π)·(h + 0.044715·h³))),  h = {gp}   (GELU, tanh form)",
            f"0.5·{factor(g)}·(1 + tanh({num(c)}·({num(g)} + 0.044715·{factor(g)}³)))",
            [(pre, (p, u))],
            lambda v: 0.5 * v[0] * (1.0 + math.tanh(c * (v[0] + 0.044715 * v[0] ** 3))),
        )
    return ctx.make(
        cell,
        f"{at} = h / (1 + exp({MINUS}h)),  h = {gp}   (SiLU: h times its sigmoid)",
        f"{num(g)} / (1 + exp({num(-g)}))",
        [(pre, (p, u))],
        lambda v: v[0] * sigmoid(v[0]),
    )


def hidden(ctx: Ctx, cell: Cell) -> Why | None:
    if not ctx.cfg.gated:
        return None
    p, u = cell.index
    refs = [(ctx.name(cell.b, "gate"), (p, u)), (ctx.name(cell.b, "up"), (p, u))]
    g, up = (ctx.value(*r) for r in refs)
    return ctx.make(
        cell,
        f"{here(ctx, cell)} = {ctx.ref(refs[0][0], p, u)} · {ctx.ref(refs[1][0], p, u)}   (gate times up)",
        f"{factor(g)}·{factor(up)}",
        refs,
        lambda v: v[0] * v[1],
    )


def ffn(ctx: Ctx, cell: Cell) -> Why | None:
    return _gated_linear("hidden", "W_down")(ctx, cell) if ctx.cfg.gated else None


def logits(ctx: Ctx, cell: Cell) -> Why | None:
    if ctx.cfg.tied:
        return None
    (t,) = cell.index
    pairs = [(("z", (j,)), ("W_U", (j, t))) for j in range(ctx.cfg.d_model)]
    text, refs, compute = linear(ctx, pairs)
    shown = f"{here(ctx, cell)} = z · W_U[:,{t}]   (the column of {ctx.cfg.vocab[t]!r}; W_U is not E)"
    return ctx.make(cell, shown, text, refs, compute)


# ---- gradients ---------------------------------------------------------------------------------------


def _group(ctx: Ctx, g: int) -> list[int]:
    """The query heads (1-based) that read key/value head g (1-based)."""
    return [h + 1 for h in range(ctx.cfg.n_heads) if ctx.cfg.kv_head(h) + 1 == g]


def _kv(ctx: Ctx, h: int) -> int:
    return ctx.cfg.kv_head(h - 1) + 1


def grad_q(ctx: Ctx, cell: Cell) -> Why | None:
    """∂L/∂q.h[i,c] = Σ_j ∂L/∂scores.h[i,j]·k.g[j,c] / √k, g the key/value head h reads."""
    if ctx.cfg.n_kv_heads == ctx.cfg.n_heads:
        return None
    i, c = cell.index
    g = GRAD + ctx.name(cell.b, f"scores.{cell.h}")
    k = ctx.name(cell.b, f"k.{_kv(ctx, cell.h)}")
    dk = ctx.cfg.d_head
    scale = float(np.sqrt(dk))
    pairs = [((g, (i, j)), (k, (j, c))) for j in range(ctx.T)]
    text, refs, compute = linear(ctx, pairs)
    formula = f"{here(ctx, cell)} = ({ctx.ref(g, i)} · {ctx.ref(k, ':', c)}) / √{dk}"
    return ctx.make(cell, formula, f"({text}) / {num(scale)}", refs, lambda v: compute(v) / scale)


def grad_k(ctx: Ctx, cell: Cell) -> Why | None:
    """∂L/∂k.g[j,c] = Σ over the query heads h reading g, Σ_i ∂L/∂scores.h[i,j]·q.h[i,c] / √k."""
    if ctx.cfg.n_kv_heads == ctx.cfg.n_heads:
        return None
    j, c = cell.index
    heads = _group(ctx, cell.h)
    dk = ctx.cfg.d_head
    scale = float(np.sqrt(dk))
    pairs = [
        ((GRAD + ctx.name(cell.b, f"scores.{h}"), (i, j)), (ctx.name(cell.b, f"q.{h}"), (i, c)))
        for h in heads
        for i in range(ctx.T)
    ]
    text, refs, compute = linear(ctx, pairs)
    gs, qs = (
        ctx.ref(GRAD + ctx.name(cell.b, "scores.h"), "i", j),
        ctx.ref(ctx.name(cell.b, "q.h"), "i", c),
    )
    over = ", ".join(str(h) for h in heads)
    formula = f"{here(ctx, cell)} = (Σ_h Σ_i {gs}·{qs}) / √{dk},  h = {over} (the query heads reading it)"
    return ctx.make(cell, formula, f"({text}) / {num(scale)}", refs, lambda v: compute(v) / scale)


def grad_v(ctx: Ctx, cell: Cell) -> Why | None:
    """∂L/∂v.g[j,c] = Σ over the query heads h reading g (not ablated), Σ_i attn.h[i,j]·∂L/∂head.h[i,c]."""
    if ctx.cfg.n_kv_heads == ctx.cfg.n_heads:
        return None
    j, c = cell.index
    b = cell.b
    heads = [h for h in _group(ctx, cell.h) if not ctx.sw.is_ablated(b or 0, h)]
    if not heads:
        return ctx.make(
            cell, f"{here(ctx, cell)} = 0   (every head reading it is ablated)", "0", (), lambda v: 0.0
        )
    pairs = [
        ((ctx.name(b, f"attn.{h}"), (i, j)), (GRAD + ctx.name(b, f"head.{h}"), (i, c)))
        for h in heads
        for i in range(ctx.T)
    ]
    text, refs, compute = linear(ctx, pairs)
    a, gh = ctx.ref(ctx.name(b, "attn.h"), "i", j), ctx.ref(GRAD + ctx.name(b, "head.h"), "i", c)
    over = ", ".join(str(h) for h in heads)
    formula = f"{here(ctx, cell)} = Σ_h Σ_i {a}·{gh},  h = {over} (the query heads reading it)"
    return ctx.make(cell, formula, text, refs, compute)


def grad_attn(ctx: Ctx, cell: Cell) -> Why | None:
    """∂L/∂attn.h[i,j] = ∂L/∂head.h[i] · v.g[j], g the key/value head h reads."""
    if ctx.cfg.n_kv_heads == ctx.cfg.n_heads or ctx.sw.is_ablated(cell.b, cell.h):
        return None
    i, j = cell.index
    g = GRAD + ctx.name(cell.b, f"head.{cell.h}")
    v = ctx.name(cell.b, f"v.{_kv(ctx, cell.h)}")
    pairs = [((g, (i, c)), (v, (j, c))) for c in range(ctx.cfg.d_head)]
    text, refs, compute = linear(ctx, pairs)
    return ctx.make(cell, f"{here(ctx, cell)} = {ctx.ref(g, i)} · {ctx.ref(v, j)}", text, refs, compute)


def _grad_pre(which: str) -> Rule:
    """∂L/∂q_pre, ∂L/∂k_pre: the gradient of the turned row turned back by the same angle."""

    def rule(ctx: Ctx, cell: Cell) -> Why:
        p, i = cell.index
        g = GRAD + ctx.name(cell.b, f"{which}.{cell.h}")
        at = here(ctx, cell)
        if not ctx.sw.positional_encoding:
            return ctx.make(
                cell,
                f"{at} = {ctx.ref(g, p, i)}   (positional encoding off: nothing was turned)",
                num(ctx.value(g, (p, i))),
                [(g, (p, i))],
                lambda v: v[0],
            )
        k = ctx.cfg.d_head
        half = k // 2
        pair = i % half
        angle = float(ops.rope_angles(ctx.T, k, ctx.cfg.rope_theta, ctx.cfg.rope_scaling)[p, pair])
        cos, sin = math.cos(angle), math.sin(angle)
        first = i < half
        partner = i + half if first else i - half
        refs = [(g, (p, i)), (g, (p, partner))]
        a, b = (ctx.value(*r) for r in refs)
        sign = "+" if first else MINUS
        turn = f"θ = {num(angle)}   (turned back: a rotation's transpose)"
        formula = f"{at} = {ctx.ref(g, p, i)}·cos θ {sign} {ctx.ref(g, p, partner)}·sin θ,  {turn}"
        filled = f"{factor(a)}·{factor(cos)} {sign} {factor(b)}·{factor(sin)}"
        if first:
            return ctx.make(cell, formula, filled, refs, lambda v: v[0] * cos + v[1] * sin)
        return ctx.make(cell, formula, filled, refs, lambda v: v[0] * cos - v[1] * sin)

    return rule


def grad_x_norm(ctx: Ctx, cell: Cell) -> Why | None:
    """∂L/∂x_n[p,j]: each query head's share through W_Q and each key/value head's through W_K and W_V
    (the projections' gradients: q_pre and k_pre when RoPE turns them)."""
    cfg = ctx.cfg
    rope = cfg.positions == "rope"
    if cfg.n_kv_heads == cfg.n_heads and not rope:
        return None
    p, j = cell.index
    b = cell.b
    qn, kn = ("q_pre", "k_pre") if rope else ("q", "k")
    parts = [(qn, "W_Q", cfg.n_heads), (kn, "W_K", cfg.n_kv_heads), ("v", "W_V", cfg.n_kv_heads)]
    pairs = [
        ((GRAD + ctx.name(b, f"{part}.{h + 1}"), (p, c)), (ctx.name(b, w), (h, j, c)))
        for part, w, n in parts
        for h in range(n)
        for c in range(cfg.d_head)
    ]
    text, refs, compute = linear(ctx, pairs)
    gq, gk, gv = (
        ctx.ref(GRAD + ctx.name(b, f"{part}.{x}"), p) for part, x in ((qn, "h"), (kn, "g"), ("v", "g"))
    )
    wq, wk, wv = (ctx.ref(ctx.name(b, w), x, j) for w, x in (("W_Q", "h"), ("W_K", "g"), ("W_V", "g")))
    formula = f"{here(ctx, cell)} = Σ_h {gq} · {wq} + Σ_g ({gk} · {wk} + {gv} · {wv})"
    return ctx.make(cell, formula, text, refs, compute)


def _grad_product(left_local: str, right_local: str) -> Rule:
    """∂L/∂W[a,c] = Σ_p left[p,a]·∂L/∂right[p,c] (W_gate, W_up, W_down; W_Q, W_K, W_V one head at a
    time, right: that head's projection)."""

    def rule(ctx: Ctx, cell: Cell) -> Why:
        b = cell.b
        left, right = ctx.name(b, left_local), GRAD + ctx.name(b, right_local)
        if len(cell.index) == 3:
            h, a, c = cell.index
            right = GRAD + ctx.name(b, f"{right_local}.{h + 1}")
        else:
            a, c = cell.index
        pairs = [((left, (p, a)), (right, (p, c))) for p in range(ctx.T)]
        text, refs, compute = linear(ctx, pairs)
        formula = f"{here(ctx, cell)} = Σ_p {ctx.ref(left, 'p', a)}·{ctx.ref(right, 'p', c)}"
        return ctx.make(cell, formula, text, refs, compute)

    return rule


def _grad_w_qk(which: str) -> Callable[[Ctx, Cell], Why | None]:
    def rule(ctx: Ctx, cell: Cell) -> Why | None:
        if ctx.cfg.positions != "rope":
            return None
        return _grad_product("x_norm", f"{which}_pre")(ctx, cell)

    return rule


def _grad_back_through(grad_local: str, w_local: str) -> Rule:
    """∂L/∂in[p,a] = Σ_c ∂L/∂out[p,c]·W[a,c] (hidden through W_down)."""

    def rule(ctx: Ctx, cell: Cell) -> Why:
        p, a = cell.index
        g, w = GRAD + ctx.name(cell.b, grad_local), ctx.name(cell.b, w_local)
        pairs = [((g, (p, c)), (w, (a, c))) for c in range(ctx.array(g).shape[1])]
        text, refs, compute = linear(ctx, pairs)
        return ctx.make(cell, f"{here(ctx, cell)} = {ctx.ref(g, p)} · {ctx.ref(w, a)}", text, refs, compute)

    return rule


def _grad_factor(other_local: str) -> Rule:
    """∂L/∂gate = ∂L/∂hidden·up, ∂L/∂up = ∂L/∂hidden·gate: a product passes each factor the other."""

    def rule(ctx: Ctx, cell: Cell) -> Why:
        p, u = cell.index
        refs = [(GRAD + ctx.name(cell.b, "hidden"), (p, u)), (ctx.name(cell.b, other_local), (p, u))]
        a, b = (ctx.value(*r) for r in refs)
        formula = f"{here(ctx, cell)} = {ctx.ref(refs[0][0], p, u)}·{ctx.ref(refs[1][0], p, u)}"
        return ctx.make(cell, formula, f"{factor(a)}·{factor(b)}", refs, lambda v: v[0] * v[1])

    return rule


def grad_gate_pre(ctx: Ctx, cell: Cell) -> Why:
    """∂L/∂gate_pre = ∂L/∂gate · act′(gate_pre) (SiLU′(h) = σ(h)(1 + h(1 − σ(h))))."""
    p, u = cell.index
    g, pre = GRAD + ctx.name(cell.b, "gate"), ctx.name(cell.b, "gate_pre")
    refs = [(g, (p, u)), (pre, (p, u))]
    gv, h = (ctx.value(*r) for r in refs)
    at, gr, hr = here(ctx, cell), ctx.ref(g, p, u), ctx.ref(pre, p, u)
    if ctx.sw.activation == "relu":
        return ctx.make(
            cell,
            f"{at} = {gr}·[{hr} > 0]",
            f"{num(gv)}·{int(h > 0)}",
            refs,
            lambda v: v[0] if v[1] > 0 else 0.0,
        )
    if ctx.sw.activation == "gelu":
        c = math.sqrt(2.0 / math.pi)

        def slope(hv: float) -> float:
            t = math.tanh(c * (hv + 0.044715 * hv**3))
            return 0.5 * (1.0 + t) + 0.5 * hv * (1.0 - t**2) * c * (1.0 + 3 * 0.044715 * hv**2)

        return ctx.make(
            cell,
            f"{at} = {gr}·GELU′({hr})",
            f"{num(gv)}·{factor(slope(h))}",
            refs,
            lambda v: v[0] * slope(v[1]),
        )

    def silu_slope(hv: float) -> float:
        sig = sigmoid(hv)
        return sig * (1.0 + hv * (1.0 - sig))

    return ctx.make(
        cell,
        f"{at} = {gr}·SiLU′({hr}),  SiLU′(h) = σ(h)·(1 + h·(1 − σ(h)))",
        f"{num(gv)}·SiLU′({num(h)}) = {num(gv)}·{factor(silu_slope(h))}",
        refs,
        lambda v: v[0] * silu_slope(v[1]),
    )


def grad_x_mid_norm(ctx: Ctx, cell: Cell) -> Why | None:
    """∂L/∂x'_n[p,a] = ∂L/∂gate_pre[p] · W_gate[a] + ∂L/∂up[p] · W_up[a]."""
    if not ctx.cfg.gated:
        return None
    p, a = cell.index
    b = cell.b
    pairs = [
        ((GRAD + ctx.name(b, part), (p, c)), (ctx.name(b, w), (a, c)))
        for part, w in (("gate_pre", "W_gate"), ("up", "W_up"))
        for c in range(ctx.cfg.d_ff)
    ]
    text, refs, compute = linear(ctx, pairs)
    gg, gu = (ctx.ref(GRAD + ctx.name(b, n), p) for n in ("gate_pre", "up"))
    wg, wu = (ctx.ref(ctx.name(b, n), a) for n in ("W_gate", "W_up"))
    return ctx.make(cell, f"{here(ctx, cell)} = {gg} · {wg} + {gu} · {wu}", text, refs, compute)


def grad_hidden(ctx: Ctx, cell: Cell) -> Why | None:
    return _grad_back_through("ffn", "W_down")(ctx, cell) if ctx.cfg.gated else None


def grad_z(ctx: Ctx, cell: Cell) -> Why | None:
    """Untied: ∂L/∂z[j] = Σ_v ∂L/∂logits[v]·W_U[j,v]."""
    if ctx.cfg.tied:
        return None
    (j,) = cell.index
    g = GRAD + "logits"
    pairs = [((g, (t,)), ("W_U", (j, t))) for t in range(ctx.cfg.n_vocab)]
    text, refs, compute = linear(ctx, pairs)
    return ctx.make(cell, f"{here(ctx, cell)} = Σ_v {ctx.ref(g, 'v')}·W_U[{j},v]", text, refs, compute)


def grad_w_u(ctx: Ctx, cell: Cell) -> Why:
    """∂L/∂W_U[j,v] = z[j]·∂L/∂logits[v]."""
    j, t = cell.index
    refs = [("z", (j,)), (GRAD + "logits", (t,))]
    a, b = (ctx.value(*r) for r in refs)
    formula = f"{here(ctx, cell)} = {ctx.ref('z', j)}·{ctx.ref(GRAD + 'logits', t)}"
    return ctx.make(cell, formula, f"{factor(a)}·{factor(b)}", refs, lambda v: v[0] * v[1])


def grad_e(ctx: Ctx, cell: Cell) -> Why | None:
    """Untied: E is only looked up, so its gradient is the lookup's alone."""
    if ctx.cfg.tied:
        return None
    src = (GRAD + "E.lookup", cell.index)
    return ctx.make(
        cell,
        f"{here(ctx, cell)} = {ctx.ref(src[0], *cell.index)}   (untied: the logits read W_U, not E)",
        num(ctx.value(*src)),
        [src],
        lambda v: v[0],
    )


# Block-local name (with "grad." for a gradient) -> its rule, for the tensors only these models make.
RULES: dict[str, Rule] = {
    "ln1.mean_sq": mean_sq,
    "q_pre": projection("W_Q"),
    "k_pre": projection("W_K"),
    "gate_pre": _gated_linear("x_mid_norm", "W_gate"),
    "gate": gate,
    "up": _gated_linear("x_mid_norm", "W_up"),
    GRAD + "q_pre": _grad_pre("q"),
    GRAD + "k_pre": _grad_pre("k"),
    GRAD + "gate": _grad_factor("up"),
    GRAD + "up": _grad_factor("gate"),
    GRAD + "gate_pre": grad_gate_pre,
    GRAD + "W_gate": _grad_product("x_mid_norm", "gate_pre"),
    GRAD + "W_up": _grad_product("x_mid_norm", "up"),
    GRAD + "W_down": _grad_product("hidden", "ffn"),
    GRAD + "W_U": grad_w_u,
}

# The chapter's tensors these models compute another way: a rule that answers None leaves the cell to
# the chapter's.
INSTEAD: dict[str, Callable[[Ctx, Cell], Why | None]] = {
    "pe": pe,
    "x_norm": x_norm,
    "x_mid_norm": x_mid_norm,
    "z": z,
    "q": _turned("q"),
    "k": _turned("k"),
    "hidden": hidden,
    "ffn": ffn,
    "logits": logits,
    GRAD + "q": grad_q,
    GRAD + "k": grad_k,
    GRAD + "v": grad_v,
    GRAD + "attn": grad_attn,
    GRAD + "x_norm": grad_x_norm,
    GRAD + "W_Q": _grad_w_qk("q"),
    GRAD + "W_K": _grad_w_qk("k"),
    GRAD + "x_mid_norm": grad_x_mid_norm,
    GRAD + "hidden": grad_hidden,
    GRAD + "z": grad_z,
    GRAD + "E": grad_e,
}
