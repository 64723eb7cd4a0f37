"""A weight's tables: one grid per table of the weight (per head for W_Q, W_K and W_V), every cell
editable, read off a View (a big weight: the window's part, tinytui.present.windows)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from typing import cast

import numpy as np

from tinytui.model import names
from tinytui.present import windows
from tinytui.present.grid_spec import (
    _EDITED,
    _NO_MARKS,
    CellRef,
    GridSpec,
    KeptSpecs,
    Located,
    _limit,
    array_limit,
)
from tinytui.present.view import View
from tinytui.report.lazy_rows import LazyRows
from tinytui.report.tables import fmt, fmt_widths, param_table, written_numbers


def param_grids(view: View, name: str, win: windows.Window | None = None) -> list[GridSpec]:
    """One grid per table of the parameter (per head for W_Q, W_K, W_V), every cell editable; win: only
    its part of a big weight (windows.py)."""
    full = names.canonical(name)
    arr, original = view.params[full], view.original[full]
    if arr.size > _KEEP_UP_TO:  # a kept entry holds what it was made of: no big weight is pinned
        return _param_grids(view, full, win)
    # an edit of one weight redraws every table of the step: the others' grids are kept (view.kept)
    key = ("param grids", full)  # not cells.param_grid's key: the two kept entries are not the same thing
    made_of = (arr, original, frozenset(view.edited.get(full, ())), win, view.params.cfg)
    if (hit := view.kept.find(key, made_of)) is not None:
        return hit
    before = view.kept.newest(key)
    patched = _patched(full, before[0], before[1], made_of) if before is not None else None
    return view.kept.keep(key, made_of, patched if patched is not None else _param_grids(view, full, win))


_KEEP_UP_TO = 1 << 16  # elements
_PATCH_UP_TO = 64  # cells: a weight whose numbers moved in at most this many is redrawn from its last grids


def _patched(full: str, was: tuple, specs: list[GridSpec], made_of: tuple) -> list[GridSpec] | None:
    """The weight's grids as they were made last, with only the cells that moved written again: an edit
    (or its undo) moves one number of a 64 × 64 W_O, and writing all 4,096 again was most of the key.
    None when more moved than that, or anything but the numbers and their edited marks changed."""
    old_arr, old_original, old_edited, old_win, old_cfg = was
    arr, original, edited, win, cfg = made_of
    if old_arr.shape != arr.shape or old_win != win or old_cfg != cfg:
        return None
    if old_original is not original and not np.array_equal(old_original, original):
        return None
    moved = {tuple(int(x) for x in i) for i in np.argwhere(old_arr != arr)} | (old_edited ^ edited)
    if not moved or len(moved) > _PATCH_UP_TO:
        return None
    out = []
    for spec in specs:
        at = [(spec.where[(full, i)], i) for i in moved if (full, i) in spec.where]
        if not at:
            out.append(spec)
            continue
        # a weight's grid (_param_grids) has a CellRef and a number in every cell: never None
        refs = cast(Sequence[Sequence[CellRef]], spec.refs)
        was_values = cast(Sequence[tuple[float, ...]], spec.values)
        moved_rows = {r for (r, _), _ in at}
        marks = {r: list(spec.marks[r]) for r in moved_rows}
        values = {r: list(was_values[r]) for r in moved_rows}
        old_largest = max(abs(values[r][c]) for (r, c), _ in at)
        for (r, c), i in at:
            values[r][c] = float(arr[i])
            marks[r][c] = _EDITED if i in edited else _NO_MARKS
        # the rows that did not move are kept as they were
        now_marks = tuple(tuple(marks[r]) if r in marks else row for r, row in enumerate(spec.marks))
        now_values = tuple(tuple(values[r]) if r in values else row for r, row in enumerate(was_values))
        widths = list(spec.cells.widths())
        for c in {c for (_, c), _ in at}:  # a moved column's width from its numbers
            widths[c] = fmt_widths(np.array([[row[c]] for row in now_values], dtype=float))[0]
        cells = written_numbers(now_values, tuple(widths))  # each row written when it is drawn
        largest = max(abs(values[r][c]) for (r, c), _ in at)
        # the scale's end moves only when a moved cell was at it or goes past it
        limit = _limit(now_values) if old_largest >= spec.limit or largest > spec.limit else spec.limit
        details = _details(cells, refs, edited, original, arr)
        out.append(
            replace(spec, limit=limit, cells=cells, marks=now_marks, values=now_values, details=details)
        )
    return out


def _param_grids(view: View, full: str, win: windows.Window | None) -> list[GridSpec]:
    params = view.params
    original = view.original[full]
    arr = params[full]
    label = names.label(full, params.cfg.n_blocks)
    edited = frozenset(view.edited.get(full, ()))
    out = []
    whole = partial(param_table, view.trace, params, full)
    for h, table, at_rows, at_cols in windows.param_tables(view, full, win, whole):
        # at_rows, at_cols: the weight's own rows and columns the table shows
        at_rows, at_cols = tuple(at_rows), tuple(at_cols)
        idx = _indices(h, arr.ndim, at_rows, at_cols)
        sub = windows.at(
            arr[h] if arr.ndim == 3 else arr[None, :] if arr.ndim == 1 else arr, at_rows, at_cols
        )
        cells, values = windows.numbers_of(table)  # the texts, and the numbers its rows are written from
        if edited:
            marks = tuple(tuple(_EDITED if i in edited else _NO_MARKS for i in row) for row in idx)
        else:
            marks = ((_NO_MARKS,) * len(at_cols),) * len(idx)
        refs, sources, located = _cell_refs(
            view.kept, full, label, h, arr.ndim, table, idx, (at_rows, at_cols)
        )

        spec = GridSpec(
            f"param:{full}:{h}",
            table.title,
            table.corner,
            tuple(table.rows),
            tuple(table.cols),
            cells,
            marks,
            values,
            "diverging",
            array_limit(sub),
            refs,
            _details(cells, refs, edited, original, arr),
            "param",
            (),
            sources,
            located,
        )
        out.append(spec)
    return out


def _details(
    cells: LazyRows,
    refs: Sequence[Sequence[CellRef]],
    edited: frozenset,
    original: np.ndarray,
    arr: np.ndarray,
) -> LazyRows:
    """The inspector line of each cell of a weight's table: its name and number, and for an edited one
    the model file's number and the change; written a row at a time when first read, or the cursor's
    cell alone (LazyRows.part)."""

    def part(r: int, a: int, b: int) -> list[str]:
        out = []
        for ref, text in zip(refs[r][a:b], cells.part(r, a, b)):
            i = ref.index
            detail = f"{ref.label} = {text}"
            if i in edited:
                was = float(original[i])
                detail += f"  (model file {fmt(was)}, Δ {change(float(arr[i]), was)})"
            out.append(detail + "  · Enter to edit")
        return out

    return LazyRows(len(cells), lambda r: part(r, 0, len(refs[r])), part=part)


def change(now: float, was: float) -> str:
    """now − was, signed, as a reader checks it against the two numbers printed beside it: where their
    four decimals give another difference (two numbers each rounded), it says the change is the one
    before rounding, '+0.0014 before rounding' beside −0.0340 and −0.0355."""
    d = f"{now - was:+.4f}"
    shown = f"{float(fmt(now)) - float(fmt(was)):+.4f}"
    return d if shown.lstrip("+-") == d.lstrip("+-") == "0.0000" or shown == d else f"{d} before rounding"


def _indices(h: int, ndim: int, at_rows: tuple[int, ...], at_cols: tuple[int, ...]) -> LazyRows:
    """The weight's index of each cell of its table (head h of a per-head weight), a row when first read:
    a first visit at d_model 64 shows 12,288 weight cells and reads a few."""
    if ndim == 3:
        return LazyRows(len(at_rows), lambda r: tuple((h, at_rows[r], c) for c in at_cols))
    if ndim == 1:
        return LazyRows(1, lambda r: tuple((c,) for c in at_cols))
    return LazyRows(len(at_rows), lambda r: tuple((at_rows[r], c) for c in at_cols))


def _cell_refs(
    kept: KeptSpecs, full: str, label: str, h: int, ndim: int, table, idx: LazyRows, window: tuple
) -> tuple[LazyRows, LazyRows, Located]:
    """(refs, sources, where the sources are) of a weight's table: each cell's CellRef, labelled as the
    inspector names it, and the run's cell it shows, a row of them made when first read (the cursor's
    cell is all the editor reads: at d_model 64 a first visit to step 6 made 12,288 of them, most of
    its 80 ms). window: the weight's rows and columns the table shows, which decide idx.

    They name the cells, not their values, so they are kept (the app's KeptSpecs) across
    edits of the weight's numbers: at d_model 64, W_O's 4,096 labelled refs were a third of an edit's
    redraw."""
    key = ("param refs", full, label, h, ndim, tuple(table.rows), tuple(table.cols), window)
    if (hit := kept.find(key, ())) is not None:
        return hit

    def where_of(r: int, c: int) -> str:
        row_label, col_label = table.rows[r], table.cols[c]
        if ndim == 3:
            return f"h{h + 1}: {row_label}, {col_label}"
        if ndim == 1:
            return col_label
        return f"{row_label}, {col_label}"

    def refs_row(r: int) -> tuple[CellRef, ...]:
        return tuple(CellRef("param", full, i, f"{label}[{where_of(r, c)}]") for c, i in enumerate(idx[r]))

    refs = LazyRows(len(idx), refs_row)
    sources = LazyRows(len(idx), lambda r: tuple((full, i) for i in idx[r]))
    return kept.keep(key, (), (refs, sources, Located(sources)))
