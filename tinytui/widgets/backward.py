"""What the backward walk and the gradient overlay show, read off a View: gradients as labelled grids.

Pure data like cells.py (no Textual). Every number is the session's Gradients (model.backward) in
tinytui.report's format; the rules, the explanations and which gradient belongs to which step come from
model.backward's table of the walk. The walk goes 15 → 2, and "next" in the walk is the step before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from tinytui.display_names import DISPLAY, PER_HEAD
from tinytui.model import names, steps
from tinytui.model.backward import PREFIX, BackwardStage, backward_stage_for, backward_stages, grad_name
from tinytui.model.backward_rows import ROWS_OF
from tinytui.model.panels import LOGITS_GRADIENT
from tinytui.model.stages import STAGE_BY_NUMBER
from tinytui.model.trace import Tensor
from tinytui.report import fmt
from tinytui.widgets import windows
from tinytui.widgets.cells import (
    MASKABLE_PREFIXES,
    MASKED,
    PARAM_NAMES,
    Cell,
    Details,
    GridSpec,
    Item,
    Section,
    Source,
    _limit,
    grid,
    param_grid,
    short_key_labels,
    side_by_side,
    step_sections,
)
from tinytui.widgets.top_tokens import TOP, shown_tokens
from tinytui.widgets.view import View

# A gradient is named after its tensor's display name (tinytui.display_names: x′, h_pre, MHA, ℓ), as the
# transcript and the handouts name it; a per-head tensor by its letter (∂L/∂Q, its heads side by side).
# E's two shares of gradient (model.backward): what a share is called after its symbol
SHARES = {"E.lookup": "lookup share, step 2", "E.unembed": "unembedding share, step 14"}


def walk_steps(view: View) -> tuple[int, ...]:
    """The forward steps the walk visits, in walk order (15, 14, …, 2)."""
    return tuple(s.number for s in _stages(view))


def _stages(view: View) -> tuple[BackwardStage, ...]:
    return backward_stages(view.trace.switches, view.trace.cfg)


def backward_stage(view: View) -> BackwardStage:
    """The stage of the walk at the view's step (the rules spelled for the trace's switches)."""
    return backward_stage_for(view.step, view.trace.switches, view.trace.cfg)


def in_walk(view: View) -> bool:
    return view.mode.backward and view.step in walk_steps(view)


# ---- naming ------------------------------------------------------------------------------------------


def _split(gname: str) -> tuple[str, int | None]:
    """'grad.blocks.0.q.1' -> ('q', 1); 'grad.W_2' -> ('W_2', None); 'grad.E.lookup' -> ('E.lookup', None)."""
    base = names.split(names.canonical(gname))[1].removeprefix(PREFIX)
    stem, _, last = base.rpartition(".")
    return (stem, int(last)) if stem and last.isdigit() else (base, None)


def symbol(gname: str) -> str:
    """'grad.y' -> '∂L/∂y', 'grad.q.{h}' -> '∂L/∂Q', 'grad.W_2' -> '∂L/∂W_2', 'grad.E.lookup' -> '∂L/∂E'."""
    stem, _ = _split(gname.replace(".{h}", ".0"))
    stem = stem.split(".")[0] if stem in SHARES else stem
    return f"∂L/∂{PER_HEAD.get(stem) or DISPLAY.get(stem, stem)}"


def title_of(gname: str) -> str:
    """symbol(), and for one of E's shares which one: '∂L/∂E (lookup share, step 2)'."""
    share = SHARES.get(gname.removeprefix(PREFIX))
    return f"{symbol(gname)} ({share})" if share else symbol(gname)


# ---- one gradient as a grid --------------------------------------------------------------------------


def _matrix_spec(
    view: View,
    key: str,
    title: str,
    tensor: Tensor,
    values,
    index,
    role: str,
    step_size: bool,
    head: int | None = None,
    at: tuple[Sequence[int], Sequence[int]] | None = None,
    picked: bool = False,
) -> GridSpec:
    """A 1-d or 2-d slice of a gradient: values is the slice, index(r, c) where a cell sits in it
    (as the inspector writes it); head: the slice's first index when the gradient is 3-d; at: only these
    rows and columns of the slice (windows.py), else all; picked: values holds only at's rows (E's,
    from Gradients.rows)."""
    stem, _ = _split(tensor.name)
    sym = symbol(tensor.name)
    lr = view.session.state.lr
    table = values[None, :] if values.ndim == 1 else values
    at_rows, at_cols = at or (range(table.shape[0]), range(table.shape[1]))
    cols = tuple(tensor.axes[-1].labels[c] for c in at_cols)
    if values.ndim == 1:
        rows, corner = (sym,), ""
    else:
        rows, corner = tuple(tensor.axes[-2].labels[r] for r in at_rows), tensor.axes[-2].name
    # picked: values are already the at rows (of every column), as Gradients.rows gives E's
    from_rows = range(table.shape[0]) if picked else at_rows
    grid_values = windows.at(table, from_rows, at_cols).astype(float).tolist()
    texts = tuple(tuple(fmt(v) for v in row) for row in grid_values)
    masked = _masked_cells(view, stem, values.ndim, at_rows, at_cols)  # scores and attn only
    rows_at, cols_at = list(at_rows), list(at_cols)

    def source(r: int, c: int) -> Source:
        full = (rows_at[r], cols_at[c]) if values.ndim == 2 else (cols_at[c],)
        return (tensor.name, full if head is None else (head, *full))

    def detail_row(r: int) -> list[str]:
        """The inspector's lines of row r, written when the cursor first reads them."""
        out = []
        for c, col_label in enumerate(cols):
            v = grid_values[r][c]
            where = ", ".join(x for x in (rows[r] if values.ndim == 2 else "", col_label) if x)
            text = f"{sym}[{index(r, c)}{where}] = {texts[r][c]}"
            if stem in SHARES:
                text += f"  · {SHARES[stem]}; a learning step follows E's total (step 2)"
            elif step_size:
                text += f"  · a learning step (lr {lr:g}) moves this weight by {fmt(-lr * v)}"
            elif (r, c) in masked:
                text += "  · masked: nothing flows back through this entry"
            out.append(text)
        return out

    n_rows, n_cols = len(rows), len(cols)
    values_t = tuple(tuple(row) for row in grid_values)
    marks = tuple(tuple(_MASKED if (r, c) in masked else _NONE for c in range(n_cols)) for r in range(n_rows))
    return GridSpec(
        key,
        title,
        corner,
        tuple(rows),
        cols,
        texts,
        marks,
        values_t,
        "diverging",
        _limit(values_t),
        tuple(tuple(None for _ in range(n_cols)) for _ in range(n_rows)),
        Details(n_rows, detail_row),
        role,
        (),
        tuple(tuple(source(r, c) for c in range(n_cols)) for r in range(n_rows)),
    )


_MASKED, _NONE = frozenset({MASKED}), frozenset()


def _masked_cells(view: View, stem: str, ndim: int, at_rows, at_cols) -> frozenset[tuple[int, int]]:
    """The (row, column) places of the table that the causal mask hides (attention and scores only)."""
    local = names.split(stem + ".")[1]
    if ndim != 2 or not (local == "mask" or local.startswith(MASKABLE_PREFIXES)):
        return frozenset()
    mask = view.trace["mask"]
    if mask.shape != (len(view.trace.prompt),) * 2:
        return frozenset()
    return frozenset(
        (r, c) for r, at_r in enumerate(at_rows) for c, at_c in enumerate(at_cols) if mask[at_r, at_c] == 0
    )


def gradient_grid(view: View, template: str, role: str, window: windows.Window | None = None) -> GridSpec:
    """One gradient as a grid: 'grad.y', a parameter's 'grad.W_Q' (heads side by side) or a per-head
    tensor 'grad.attn.{h}' (heads side by side, one shading scale). A big one shows a window of it: the
    given one (a weight's, as the parameter browser shows it), else the step's (windows.py)."""
    grads = view.gradients
    key = f"grad:{view.name(template)}"
    title = title_of(template)
    is_param = _weight_of(template) in PARAM_NAMES
    if "{h}" in template:
        parts = []
        for h, name in enumerate(view.names((template,)), start=1):
            t = grads.tensor(name)
            win = windows.gradient_window(view, t, None)
            at = windows.indices(win, *t.values.shape)
            part = _matrix_spec(
                view, key, windows.titled(f"head {h}", win), t, t.values, _no_prefix, role, False, at=at
            )
            parts.append(short_key_labels(part))
        return replace(side_by_side(key, f"{title} — per head", parts), key=key)
    name = view.name(template)
    if is_param and name in ROWS_OF and hasattr(grads, "rows"):  # E's: the window's rows only
        win = window or windows.param_window(view, view.name(_weight_of(template)))
        if win is not None:
            named = Tensor(name, np.empty((0, 0)), grads.axes(name))  # its labels (values: picked below)
            picked = grads.rows(name, win.rows)
            at = (win.rows, win.cols)
            titled = windows.titled(title, win)
            return _matrix_spec(view, key, titled, named, picked, _no_prefix, role, True, at=at, picked=True)
    t = grads.tensor(name)
    win = window or windows.gradient_window(view, t, view.name(_weight_of(template)) if is_param else None)
    if t.values.ndim == 3:  # W_Q, W_K, W_V: one table per head (those the window shows)
        parts = []
        for h, label in enumerate(t.axes[0].labels):
            at = None if win is None else (win.rows, win.head_cols(h))
            if at is None or at[1]:
                prefix = lambda r, c, h=h: f"h{h + 1}: "  # noqa: E731
                parts.append(_matrix_spec(view, key, label, t, t.values[h], prefix, role, True, h, at))
        title = windows.titled(title, win)
        return replace(side_by_side(key, title, parts), key=key, title=title)
    at = None if win is None else (win.rows, win.cols)
    return _matrix_spec(view, key, windows.titled(title, win), t, t.values, _no_prefix, role, is_param, at=at)


def _no_prefix(r: int, c: int) -> str:
    return ""


def logits_gradient_grid(view: View) -> GridSpec:
    """Step 15's result, one row per token: p beside ∂L/∂ℓ, so p − onehot(target) can be read off. A long
    vocabulary shows its most likely tokens and the target, and one row for the rest (their sums)."""
    trace, grads = view.trace, view.gradients
    probs, d = trace["probs"], grads["grad.logits"]
    vocab = trace.cfg.vocab
    target = vocab.index(trace.target) if trace.target in vocab else None
    shown = shown_tokens(probs, target)
    rows = [f"{vocab[i]} (target)" if i == target else vocab[i] for i in shown.ids]
    cells = []
    for i in shown.ids:
        tok, p, g = vocab[i], float(probs[i]), float(d[i])
        cells.append(
            [
                Cell(fmt(p), detail=f"p[{tok}] = {fmt(p)}", source=("probs", (i,))),
                Cell(fmt(g), value=g, detail=f"∂L/∂ℓ[{tok}] = {fmt(g)}", source=("grad.logits", (i,))),
            ]
        )
    title = "∂L/∂ℓ = p − onehot(target), one row per token"
    if shown.others:
        rest = f"{shown.others:,} others"
        g_rest = float(d.sum() - d[list(shown.ids)].sum())
        rows.append(f"⋯ {rest}")
        cells.append(
            [
                Cell(fmt(shown.others_p), detail=f"p of the {rest}, together = {fmt(shown.others_p)}"),
                Cell(fmt(g_rest), value=g_rest, detail=f"∂L/∂ℓ of the {rest}, together = {fmt(g_rest)}"),
            ]
        )
        title = f"∂L/∂ℓ = p − onehot(target): top {TOP} of {len(vocab):,} tokens and the target"
    return grid("grad:grad.logits", title, "token", tuple(rows), ("p", "∂L/∂ℓ"), cells, "diverging", "output")


# The panels (model.panels) a forward stage can show in place of its walk step's outgoing gradients.
PASSED_BACK = {LOGITS_GRADIENT: logits_gradient_grid}


# ---- the walk's sections -----------------------------------------------------------------------------


def _sources(stages: tuple[BackwardStage, ...], stage: BackwardStage, grads: tuple[str, ...]) -> list[int]:
    """The walk steps before this one (higher numbers) whose outgoing gradients are these."""
    return sorted({s.number for s in stages if s.number > stage.number and set(s.outgoing) & set(grads)})


def _destinations(stages: tuple[BackwardStage, ...], stage: BackwardStage) -> list[int]:
    """The steps later in the walk (lower numbers) that start from this step's outgoing gradients."""
    out = set(stage.outgoing)
    return sorted(
        {s.number for s in stages if s.number < stage.number and set(s.incoming) & out}, reverse=True
    )


def _steps(numbers: list[int]) -> str:
    words = [str(n) for n in numbers]
    if len(words) == 1:
        return f"step {words[0]}"
    return "steps " + ", ".join(words[:-1]) + " and " + words[-1]


def _weight_of(gname: str) -> str:
    """The weight a parameter gradient belongs to: 'grad.E.lookup' -> 'E', 'grad.W_2' -> 'W_2'."""
    return names.split(names.canonical(gname))[1].removeprefix(PREFIX).split(".")[0]


def backward_sections(view: View) -> list[Section]:
    stages = _stages(view)
    stage = backward_stage(view)
    grids = lambda grads, role: tuple((gradient_grid(view, n, role),) for n in grads)  # noqa: E731
    sections: list[Section] = []
    if stage.incoming:
        sources = _sources(stages, stage, stage.incoming)
        title = f"Arriving from {_steps(sources)}" if sources else "Arriving"
        sections.append(Section(title, "input", grids(stage.incoming, "input")))
    if stage.within:
        sections.append(Section("Worked out on the way", "input", grids(stage.within, "input")))
    if stage.params:
        rows: list[tuple[Item, ...]] = []
        paired: set[str] = set()
        for name in stage.params:
            row: list[Item] = [gradient_grid(view, name, "param")]
            weight = _weight_of(name)
            if view.mode.gradients and weight not in paired:  # d: the weight itself beside its gradient
                paired.add(weight)
                row.append(param_grid(view, weight))
            rows.append(tuple(row))
        hint = "the weight beside each (d hides it)" if view.mode.gradients else "d shows each weight beside"
        sections.append(Section(f"Gradients of this step's weights — {hint}", "param", tuple(rows)))
    if stage.outgoing:
        title = f"Passed back to {_steps(_destinations(stages, stage))}"
        shown = STAGE_BY_NUMBER[stage.number].passed_back  # the forward stage's own panels, if any
        items = tuple((PASSED_BACK[p.kind](view),) for p in shown) or grids(stage.outgoing, "output")
        sections.append(Section(title, "output", items))
    if not sections:
        sections.append(Section("No gradient is made or changed at this step", "info", ()))
    return sections


# ---- the overlay in the forward steps ----------------------------------------------------------------


def with_gradients(view: View, sections: list[Section]) -> list[Section]:
    """Every weight table gets its gradient ∂L/∂w beside it (stacked below when they do not fit)."""
    out = []
    for section in sections:
        if section.role != "param":
            out.append(section)
            continue
        rows = []
        for row in section.rows:
            extra = [
                gradient_grid(view, grad_name(item.key.removeprefix("param:")), "param")
                for item in row
                if isinstance(item, GridSpec) and item.key.startswith("param:")
            ]
            rows.append((*row, *extra))
        out.append(replace(section, title=section.title + " · ∂L/∂w beside each (d hides)", rows=tuple(rows)))
    return out


def pane_sections(view: View) -> list[Section]:
    """What the step panes show: the walk's sections in the backward pass, else the step's own."""
    if in_walk(view):
        return backward_sections(view)
    sections = step_sections(view)
    return with_gradients(view, sections) if view.mode.gradients else sections


# ---- the heading ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Heading:
    title: str
    rules: tuple[str, ...]
    explain: str
    hint: str


def heading(view: View) -> Heading:
    stage = backward_stage(view)
    numbers = walk_steps(view)
    path, n_blocks = view.session.path(backward=True), view.trace.cfg.n_blocks
    at = path.index(view.here) if view.here in path else 0
    title = f"Backward pass · {view.heading} (walking {numbers[0]} → {numbers[-1]}) · {stage.title}"
    moves = []
    if at + 1 < len(path):
        moves.append(f"n: on to {steps.heading(path[at + 1], n_blocks)}")
    if at > 0:
        moves.append(f"p: back to {steps.heading(path[at - 1], n_blocks)}")
    moves.append("b or Esc: back to the forward pass")
    moves.append("L: one learning step down this gradient")
    return Heading(title, stage.rules, stage.explain, " · ".join(moves))
