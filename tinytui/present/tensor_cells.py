"""A tensor's grid, read off a View: its cells' numbers, change marks, mask and shading, whole or a window.

Pure data (no Textual), like the rest of cells. Numbers are the trace's or tinytui.report.step_report's
formatting; nothing is computed here beyond old − new for the inspector line. Also the grid whose columns
come from several per-row tensors (a layer norm's row statistics, the loss before and after a step).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from tinytui.lesson.texts.display_names import display
from tinytui.model import names
from tinytui.model.trace import Tensor
from tinytui.present import windows
from tinytui.present.grid_spec import (
    _MARKS,
    CHANGED,
    DOWN,
    UP,
    Cell,
    GridSpec,
    KeptSpecs,
    Located,
    Source,
    array_limit,
    grid,
)
from tinytui.present.param_grids import change
from tinytui.present.view import View
from tinytui.report.lazy_rows import LazyRows
from tinytui.report.tables import fmt

HEAT = frozenset({"mask"})  # tensors in [0, 1], shaded on the sequential scale (plus attn.h below)
MASKABLE_PREFIXES = ("scores.", "attn.")


def _change_marks(view: View, name: str, index: tuple[int, ...]) -> set[str]:
    d = view.diff.get(name)
    if d is None or not d.changed[index]:
        return set()
    if d.reshaped:
        return {CHANGED}
    return {UP if d.delta[index] > 0 else DOWN}


def _was(view: View, name: str, index: tuple[int, ...]) -> str:
    """' (was 0.9000, Δ −0.0382)' when the cell changed since the comparison trace, else ''."""
    return _was_in(view, name)(index)


def _was_in(view: View, name: str) -> Callable[[tuple[int, ...]], str]:
    """_was for the cells of one tensor, holding its diff and its numbers before, not the view: a table
    kept for later (grid_spec's kept specs) writes its inspector lines with it, and must not keep the
    view's traces alive."""
    d = view.diff.get(name)
    if d is None or d.reshaped or name not in view.base.tensors:
        return lambda index: ""
    before = view.base[name]

    def was(index: tuple[int, ...]) -> str:
        if not d.changed[index]:
            return ""
        b = float(before[index])
        return f"  (was {fmt(b)}, Δ {change(b + float(d.delta[index]), b)})"  # checkable as printed

    return was


def _marked_by(view: View, name: str, by_tokens: bool, win: windows.Window | None) -> tuple:
    """What a tensor's table takes from the diff, inside its window: where cells moved and by how much,
    and their numbers before (its inspector lines say "was"); all None when nothing moved. Part of what
    a kept table was made of: a toggle's marks, shown again, find their table."""
    d = view.diff.get(name)
    if d is None or not d.n_changed:
        return None, None, None, None
    changed = windows.part(_as_table(d.changed, by_tokens), win)
    if d.reshaped:
        return True, changed, None, None
    before = view.base[name] if name in view.base.tensors else None
    return (
        False,
        changed,
        windows.part(_as_table(d.delta, by_tokens), win),
        None if before is None else windows.part(_as_table(before, by_tokens), win),
    )


def _shade_of(name: str) -> str:
    local = names.split(name)[1]
    return "heat" if local in HEAT or local.startswith("attn.") else "diverging"


def _as_table(a: np.ndarray, by_tokens: bool) -> np.ndarray:
    """A tensor's values laid out as its table (tensor_table): a scalar 1 × 1, a per-token vector one
    column, any other vector one row."""
    if a.ndim == 0:
        return a.reshape(1, 1)
    if a.ndim == 1:
        return a[:, None] if by_tokens else a[None, :]
    return a


def _mark_codes(marked: tuple, shape: tuple[int, int]) -> np.ndarray:
    """Each table cell's change mark as a code of _MARKS (0 none, 1 up, 2 down, 3 changed), from what
    _marked_by read off the diff inside the table's window."""
    reshaped, changed, delta, _ = marked
    codes = np.zeros(shape, np.int8)
    if changed is None:
        return codes
    if reshaped:
        codes[changed] = 3
    else:
        codes[changed] = np.where(delta > 0, 1, 2)[changed]
    return codes


def _masked_cells(view: View, name: str, shape: tuple[int, int]) -> np.ndarray | None:
    """Where the causal mask blocks a cell of a scores / attention / mask table (None: not such a table)."""
    local = names.split(name)[1]
    if not (local == "mask" or local.startswith(MASKABLE_PREFIXES)):
        return None
    mask = view.trace["mask"]
    if mask.shape != (len(view.trace.prompt),) * 2:
        return np.zeros(shape, bool)
    return (mask == 0)[: shape[0], : shape[1]]


_NO_MARKS_ROW = (_MARKS[0],)
SPARSE = 8  # at most one cell in this many marked: the marked cells are set one by one


def _marks_of(codes: np.ndarray) -> tuple[tuple[frozenset[str], ...], ...]:
    """Each cell's marks from its code (_mark_codes, + 4 where masked): a row without any, one shared
    row of empty marks; only the rows with marks are read cell by cell."""
    blank = _NO_MARKS_ROW * codes.shape[1]
    rows, cols = np.nonzero(codes)
    if not len(rows):
        return (blank,) * codes.shape[0]
    if len(rows) * SPARSE <= codes.size:  # a few marks (an edit moved one column): those cells alone
        out: list[Sequence[frozenset[str]]] = [blank] * codes.shape[0]
        marked: dict[int, list[frozenset[str]]] = {}
        for r, c, code in zip(rows.tolist(), cols.tolist(), codes[rows, cols].tolist()):
            if r not in marked:
                marked[r] = list(blank)
            marked[r][c] = _MARKS[code]
        for r, row in marked.items():
            out[r] = tuple(row)
        return tuple(out)  # type: ignore[arg-type]
    return tuple(
        tuple(map(_MARKS.__getitem__, row)) if marked else blank
        for row, marked in zip(codes.tolist(), np.any(codes, axis=1).tolist())
    )


def _sources(
    kept: KeptSpecs, full: str, ndim: int, by_tokens: bool, at_rows: Sequence[int], at_cols: Sequence[int]
) -> tuple[Sequence[Sequence[Source]], Located]:
    """Which of the tensor's cells each table cell shows, and where each is: the same for every run of
    one window, so kept. A grid's rows are made when first read: a token appended gives every table a
    new window, and a screen reads a few rows of them (d_model 64: some 2,000 sources a key)."""
    rows_at, cols_at = tuple(at_rows), tuple(at_cols)
    made_of = (ndim, by_tokens, rows_at, cols_at)
    key = ("sources", full)
    if (hit := kept.find(key, made_of)) is not None:
        return hit
    if ndim == 0:
        sources: Sequence[Sequence[Source]] = (((full, ()),),)
    elif ndim == 1:
        sources = (
            tuple(((full, (r,)),) for r in rows_at) if by_tokens else (tuple((full, (c,)) for c in cols_at),)
        )
    else:
        sources = LazyRows(len(rows_at), lambda r: tuple((full, (rows_at[r], c)) for c in cols_at))
    return kept.keep(key, made_of, (sources, Located(sources)))


def _made_from(view: View, name: str, tensor: Tensor) -> tuple:
    """The objects a whole tensor's table is worked out from: the tensor (its numbers and labels), its
    diff, the tensor before when it moved (its "was"), and the mask for a table it blocks. The same
    objects again (a step shown again on the same run, a switch toggled back: the session keeps the runs
    and their diffs) give the same table, found without working out the rest for each of a step's tables
    (d_model 64: some fourteen, every head's)."""
    d = view.diff.get(name)
    local = names.split(name)[1]
    maskable = local == "mask" or local.startswith(MASKABLE_PREFIXES)
    return (
        tensor,
        d,
        view.base.tensors.get(name) if d is not None and d.n_changed else None,
        view.trace.tensors.get("mask") if maskable else None,
    )


def tensor_grid(view: View, name: str, role: str) -> GridSpec:
    trace = view.trace
    t = trace.tensor(name)
    arr = t.values
    by_tokens = arr.ndim == 1 and t.axes[0].name == "tokens"
    whole = _as_table(arr, by_tokens).shape
    win = windows.tensor_window(view, whole, [a.name for a in t.axes])  # None: the whole tensor
    key = ("tensor", role, name)
    made_from = _made_from(view, name, t) if win is None else None  # a window: its part, not the whole
    if made_from is not None and (hit := view.kept.find_by(key, made_from)) is not None:
        return hit
    masked = _masked_cells(view, name, whole)
    masked = None if masked is None else windows.part(masked, win)
    shown_values = windows.part(_as_table(arr, by_tokens), win)  # the numbers the table shows
    marked = _marked_by(view, name, by_tokens, win)
    numbers = (arr if win is None else shown_values, t.axes, trace.cfg.n_blocks, masked, win)
    made_of = (*numbers, *marked)
    if (hit := view.kept.find(key, made_of)) is not None:
        return hit
    shown = display(name, trace.cfg.n_blocks)  # x′, h_pre, MHA: the transcript's and the handout's names
    # the same numbers with other marks (an undo: the change it compares to is another) share the texts
    like = view.kept.like(key, numbers)
    if like is not None:
        title, corner, rows, cols, cells, values, limit = (
            like.title, like.corner, like.rows, like.cols, like.cells, like.values, like.limit,
        )  # fmt: skip
    else:
        table = windows.tensor_part_table(trace, name, shown, win)
        title, corner, rows, cols = table.title, table.corner, tuple(table.rows), tuple(table.cols)
        cells, values = windows.numbers_of(table)  # the texts, and the numbers its rows are written from
        limit = array_limit(shown_values)
    n_rows, n_cols = len(rows), len(cols)
    at_rows, at_cols = windows.indices(win, n_rows, n_cols)  # the tensor's own rows and columns
    codes = _mark_codes(marked, shown_values.shape)
    if masked is not None:
        codes = codes + 4 * masked
    marks = _marks_of(codes)
    full = names.canonical(name)
    sources, located = _sources(view.kept, full, arr.ndim, by_tokens, at_rows, at_cols)

    was = _was_in(view, name)

    def detail_part(r: int, a: int, b: int) -> list[str]:
        """The inspector lines of columns a..b of row r (the cursor's cell alone, or the whole row)."""
        row_label, texts, at = rows[r], cells.part(r, a, b), sources[r]
        out = []
        for c, col_label, text in zip(range(a, b), cols[a:b], texts):
            where = ", ".join(x for x in (row_label, col_label) if x and x != shown)
            out.append(f"{shown}[{where}] = {text}{was(at[c][1])}")
        return out

    spec = GridSpec(
        f"{role}:{name}",
        title,
        corner,
        rows,
        cols,
        cells,
        marks,
        values,
        _shade_of(name),
        limit,
        ((None,) * n_cols,) * n_rows,
        LazyRows(n_rows, lambda r: detail_part(r, 0, n_cols), part=detail_part),
        role,
        (),
        sources,
        located,
    )
    return view.kept.keep(key, made_of, spec, made_from)


def columns_grid(
    view: View, key: str, title: str, rows: tuple[str, ...], cols: tuple[tuple[str, str, bool], ...]
) -> GridSpec:
    """A grid whose columns come from several per-row tensors: (label, tensor name, indexed by row)."""
    cells = []
    for r, row_label in enumerate(rows):
        row = []
        for label, name, by_row in cols:
            idx = (r,) if by_row else ()
            v = float(view.trace[name][idx])
            shown = display(name, view.trace.cfg.n_blocks)
            detail = f"{label} ({shown}) for {row_label} = {fmt(v)}{_was(view, name, idx)}"
            marks = frozenset(_change_marks(view, name, idx))
            row.append(Cell(fmt(v), marks, v, detail=detail, source=(names.canonical(name), idx)))
        cells.append(row)
    return grid(key, title, "", rows, tuple(c[0] for c in cols), cells, "", "output", limit=1.0)
