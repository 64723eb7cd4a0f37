"""Gradients as labelled grids, read off a View: a tensor's or a weight's ∂L/∂ (heads side by side, a big
one as its window, E's made for the window's rows only) and the loss's ∂L/∂ℓ beside p.

Pure data like cells.py (no Textual). Every number is the session's Gradients (model.backward) in
tinytui.report.step_report's format. What the walk and the overlay show of them is
model/backward/gradients.py's.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import replace
from types import MappingProxyType

import numpy as np

from tinytui.lesson.texts.display_names import DISPLAY, PER_HEAD
from tinytui.model import names
from tinytui.model.backward.rows import ROWS_OF
from tinytui.model.trace import Tensor
from tinytui.present import windows
from tinytui.present.cells import PARAM_NAMES, short_key_labels, side_by_side
from tinytui.present.grid_spec import MASKED, Cell, GridSpec, Source, array_limit, grid
from tinytui.present.tensor_cells import MASKABLE_PREFIXES
from tinytui.present.view import View
from tinytui.report.lazy_rows import LazyRows
from tinytui.report.tables import fmt, fmt_widths, written_numbers

# A gradient is named after its tensor's display name (lesson/texts/display_names.py: x′, h_pre, MHA, ℓ), as
# the transcript and the handouts name it; a per-head tensor by its letter (∂L/∂Q, its heads side by side).
# E's two shares of gradient (model.backward): what a share is called after its symbol
SHARES = MappingProxyType({"E.lookup": "lookup share, step 2", "E.unembed": "unembedding share, step 14"})


def _split(gname: str) -> tuple[str, int | None]:
    """'grad.blocks.0.q.1' -> ('q', 1); 'grad.W_2' -> ('W_2', None); 'grad.E.lookup' -> ('E.lookup', None)."""
    base = names.split(names.canonical(gname))[1].removeprefix(names.GRAD)
    stem, _, last = base.rpartition(".")
    return (stem, int(last)) if stem and last.isdigit() else (base, None)


def symbol(gname: str) -> str:
    """'grad.y' -> '∂L/∂y', 'grad.q.{h}' -> '∂L/∂Q', 'grad.W_2' -> '∂L/∂W_2', 'grad.E.lookup' -> '∂L/∂E'."""
    stem, _ = _split(gname.replace(".{h}", ".0").replace(".{g}", ".0"))
    stem = stem.split(".")[0] if stem in SHARES else stem
    return f"∂L/∂{PER_HEAD.get(stem) or DISPLAY.get(stem, stem)}"


def title_of(gname: str) -> str:
    """symbol(), and for one of E's shares which one: '∂L/∂E (lookup share, step 2)'."""
    share = SHARES.get(gname.removeprefix(names.GRAD))
    return f"{symbol(gname)} ({share})" if share else symbol(gname)


# ---- one gradient as a grid --------------------------------------------------------------------------


KEEP_UP_TO = 1 << 16  # a gradient's slice up to this many numbers has its table kept (no big one pinned)


class _Held:
    """Equal only to a _Held of the same object, which it holds weakly: a kept table compares the
    gradients it was made from by identity (never as mappings) and does not keep them alive."""

    __slots__ = ("ref",)

    def __init__(self, obj: object) -> None:
        self.ref = weakref.ref(obj)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Held) and self.ref() is not None and self.ref() is other.ref()

    @property
    def gone(self) -> bool:
        """What it holds no longer exists: a table kept with it can never be used again (grid_spec)."""
        return self.ref() is None

    # equal by what it holds, so never hashed; mypy reads None in place of object's method as a type error
    __hash__ = None  # type: ignore[assignment]


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
    from Gradients.rows).

    Kept while the trace's gradients and the learning rate are the same: entering the walk, leaving it
    and showing ∂L/∂w beside the weights (d) made every gradient's table again each time."""
    args = (view, key, title, tensor, values, index, role, step_size, head, at, picked)
    if max(values.size, tensor.values.size) > KEEP_UP_TO:  # the table would hold the whole gradient
        return _made_matrix_spec(*args)
    where = None if at is None else (tuple(at[0]), tuple(at[1]))
    kept_as = ("gradient", key, title, tensor.name, head, where, picked, role, step_size)
    made_of = (_Held(view.gradients), view.lr)
    if (hit := view.kept.find(kept_as, made_of)) is not None:
        return hit
    return view.kept.keep(kept_as, made_of, _made_matrix_spec(*args))


def _made_matrix_spec(  # _matrix_spec's arguments, in its order
    view: View, key, title, tensor: Tensor, values, index, role, step_size, head, at, picked
) -> GridSpec:
    """_matrix_spec's table, made."""
    stem, _ = _split(tensor.name)
    sym = symbol(tensor.name)
    lr = view.lr
    table = values[None, :] if values.ndim == 1 else values
    at_rows, at_cols = at or (range(table.shape[0]), range(table.shape[1]))
    cols = tuple(tensor.axes[-1].labels[c] for c in at_cols)
    rows: tuple[str, ...]
    if values.ndim == 1:
        rows, corner = (sym,), ""
    else:
        rows, corner = tuple(tensor.axes[-2].labels[r] for r in at_rows), tensor.axes[-2].name
    # picked: values are already the at rows (of every column), as Gradients.rows gives E's
    from_rows = range(table.shape[0]) if picked else at_rows
    part = windows.at(table, from_rows, at_cols)
    # the numbers, each row written when first read (as tables.number_rows writes them, the numbers kept)
    numbers = np.asarray(part, dtype=float)
    grid_values = tuple(map(tuple, numbers.tolist()))
    texts = written_numbers(grid_values, fmt_widths(numbers))
    masked = _masked_cells(view, stem, values.ndim, at_rows, at_cols)  # scores and attn only
    rows_at, cols_at = list(at_rows), list(at_cols)
    two_d = values.ndim == 2  # what the closures read of values: kept by the spec, they must not hold it

    def source(r: int, c: int) -> Source:
        full = (rows_at[r], cols_at[c]) if two_d else (cols_at[c],)
        return (tensor.name, full if head is None else (head, *full))

    def detail_row(r: int) -> list[str]:
        """The inspector's lines of row r, written when the cursor first reads them."""
        out = []
        for c, col_label in enumerate(cols):
            v = grid_values[r][c]
            where = ", ".join(x for x in (rows[r] if two_d else "", col_label) if x)
            text = f"{sym}[{index(r, c)}{where}] = {texts[r][c]}"
            if stem in SHARES:
                text += f"  · {SHARES[stem]}; a learning step follows E's total (step 2)"
            elif step_size:
                moved = fmt(-lr * v)
                # checked as a reader would: lr times the gradient as printed
                rounded = (
                    "" if fmt(-lr * float(fmt(v))) == moved else " (lr times the gradient before rounding)"
                )
                text += f"  · a learning step (lr {lr:g}) moves this weight by {moved}{rounded}"
            elif (r, c) in masked:
                text += "  · masked: nothing flows back through this entry"
            out.append(text)
        return out

    n_rows, n_cols = len(rows), len(cols)
    marks = tuple(tuple(_MASKED if (r, c) in masked else _NONE for c in range(n_cols)) for r in range(n_rows))
    return GridSpec(
        key,
        title,
        corner,
        tuple(rows),
        cols,
        texts,
        marks,
        grid_values,
        "diverging",
        array_limit(part),
        tuple(tuple(None for _ in range(n_cols)) for _ in range(n_rows)),
        LazyRows(n_rows, detail_row),
        role,
        (),
        tuple(tuple(source(r, c) for c in range(n_cols)) for r in range(n_rows)),
    )


_MASKED: frozenset[str] = frozenset({MASKED})
_NONE: frozenset[str] = frozenset()


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
    at: tuple[Sequence[int], Sequence[int]] | None  # the rows and columns a table shows (None: all)
    if "{h}" in template or "{g}" in template:  # one per query head, or per key/value head
        parts, small = [], True
        for h, name in enumerate(view.names((template,)), start=1):
            t = grads.tensor(name)
            small = small and t.values.size <= KEEP_UP_TO
            win = windows.gradient_window(view, t, None)
            at = windows.indices(win, *t.values.shape)
            parts.append(
                _matrix_spec(
                    view, key, windows.titled(f"head {h}", win), t, t.values, _no_prefix, role, False, at=at
                )
            )
        return _heads_joined(view, key, f"{title} — per head", None, parts, short_key_labels, small)
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
        return _heads_joined(view, key, title, title, parts, _as_it_is, t.values.size <= KEEP_UP_TO)
    at = None if win is None else (win.rows, win.cols)
    return _matrix_spec(view, key, windows.titled(title, win), t, t.values, _no_prefix, role, is_param, at=at)


def _heads_joined(
    view: View,
    key: str,
    title: str,
    one_title: str | None,
    made: list[GridSpec],
    relabel: Callable[[GridSpec], GridSpec],
    small: bool,
) -> GridSpec:
    """The heads' tables side by side under title (one head: its own table under key, titled one_title,
    or its own title when None), kept while each head's table is the one kept (_matrix_spec): going in
    and out of the walk finds the same table, so the view lays out and draws nothing again. small: the
    heads' gradients are small enough for their tables to be kept (else neither is this one)."""
    kept_as = ("gradient heads", key, title, one_title)
    made_of = (_Held(view.gradients), *(_Held(part) for part in made))
    if small and (hit := view.kept.find(kept_as, made_of)) is not None:
        return hit
    parts = [relabel(part) for part in made]
    joined = side_by_side(view.kept, key, title, parts)
    if len(parts) == 1:  # one head: its own spec, renamed
        joined = replace(joined, key=key, title=joined.title if one_title is None else one_title)
    return view.kept.keep(kept_as, made_of, joined) if small else joined


def _as_it_is(part: GridSpec) -> GridSpec:
    return part


def _no_prefix(r: int, c: int) -> str:
    return ""


def logits_gradient_grid(view: View) -> GridSpec:
    """Step 15's result, one row per token: p beside ∂L/∂ℓ, so p − onehot(target) can be read off. A long
    vocabulary shows its most likely tokens and the target, and one row for the rest (their sums). Kept
    while the gradients are the same: going in and out of the walk at step 15 finds the same table."""
    trace, grads = view.trace, view.gradients
    probs = trace["probs"]
    made_of = (_Held(grads), probs, trace.target)
    if (hit := view.kept.find(("logits gradient",), made_of)) is not None:
        return hit
    return view.kept.keep(("logits gradient",), made_of, _made_logits_gradient_grid(view))


def _made_logits_gradient_grid(view: View) -> GridSpec:
    """logits_gradient_grid's table, made."""
    from tinytui.present.top_tokens import TOP, shown_tokens  # the logits' steps only, not the start's

    trace, grads = view.trace, view.gradients
    probs, d = trace["probs"], grads["grad.logits"]
    vocab = trace.cfg.vocab
    target = vocab.index(trace.target) if trace.target in vocab else None
    shown = shown_tokens(probs, target, vocab=vocab)
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
                Cell(
                    fmt(shown.others_p),
                    detail=f"p of the {rest}, together = {fmt(shown.others_p)}"
                    + (f" · {shown.tie}" if shown.tie else ""),  # one of them as likely as a row shown
                ),
                Cell(fmt(g_rest), value=g_rest, detail=f"∂L/∂ℓ of the {rest}, together = {fmt(g_rest)}"),
            ]
        )
        title = f"∂L/∂ℓ = p − onehot(target): top {TOP} of {len(vocab):,} tokens and the target"
    return grid("grad:grad.logits", title, "token", tuple(rows), ("p", "∂L/∂ℓ"), cells, "diverging", "output")


def _weight_of(gname: str) -> str:
    """The weight a parameter gradient belongs to: 'grad.E.lookup' -> 'E', 'grad.W_2' -> 'W_2'."""
    return names.split(names.canonical(gname))[1].removeprefix(names.GRAD).split(".")[0]
