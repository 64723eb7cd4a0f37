"""A weight's tables: one grid per table of the weight (per head for W_Q, W_K and W_V), every cell
editable, read off a View (a big weight: the window's part, tinytui.present.windows)."""

from __future__ import annotations

from functools import partial

from tinytui.model import names
from tinytui.present import windows
from tinytui.present.grid_spec import _EDITED, _NO_MARKS, CellRef, Details, GridSpec, _keep, _kept, _limit
from tinytui.present.view import View
from tinytui.report.tables import fmt, param_table


def param_grids(view: View, name: str, win: windows.Window | None = None) -> list[GridSpec]:
    """One grid per table of the parameter (per head for W_Q, W_K, W_V), every cell editable; win: only
    its part of a big weight (windows.py)."""
    full = names.canonical(name)
    arr, original = view.session.params[full], view.session.model.params[full]
    if arr.size > _KEEP_UP_TO:  # a kept entry holds what it was made of: no big weight is pinned
        return _param_grids(view, full, win)
    # an edit of one weight redraws every table of the step: the others' grids are kept (_KEPT)
    key = ("param grids", full)  # not cells.param_grid's key: the two kept entries are not the same thing
    made_of = (arr, original, frozenset(view.edited.get(full, ())), win, view.session.params.cfg)
    if (hit := _kept(key, made_of)) is not None:
        return hit
    return _keep(key, made_of, _param_grids(view, full, win))


_KEEP_UP_TO = 1 << 16  # elements


def _param_grids(view: View, full: str, win: windows.Window | None) -> list[GridSpec]:
    params = view.session.params
    original = view.session.model.params[full]
    arr = params[full]
    label = names.label(full, params.cfg.n_blocks)
    edited = frozenset(view.edited.get(full, ()))
    out = []
    whole = partial(param_table, view.trace, params, full)
    for h, table, at_rows, at_cols in windows.param_tables(view, full, win, whole):
        n_rows = len(table.rows)  # at_rows, at_cols: the weight's own rows and columns the table shows
        if arr.ndim == 3:
            idx = [[(h, r, c) for c in at_cols] for r in at_rows]
            sub = windows.at(arr[h], at_rows, at_cols)
        elif arr.ndim == 1:
            idx = [[(c,) for c in at_cols]]
            sub = windows.at(arr[None, :], at_rows, at_cols)
        else:
            idx = [[(r, c) for c in at_cols] for r in at_rows]
            sub = windows.at(arr, at_rows, at_cols)
        values = tuple(tuple(row) for row in sub.astype(float).tolist())
        marks = tuple(tuple(_EDITED if i in edited else _NO_MARKS for i in row) for row in idx)
        refs, sources = _cell_refs(full, label, h, arr.ndim, table, idx)

        def detail_row(r: int, table=table, idx=idx, refs=refs) -> list[str]:
            out_row = []
            for c, i in enumerate(idx[r]):
                detail = f"{refs[r][c].label} = {table.cells[r][c]}"
                if i in edited:
                    was = float(original[i])
                    detail += f"  (model file {fmt(was)}, Δ {float(arr[i]) - was:+.4f})"
                out_row.append(detail + "  · Enter to edit")
            return out_row

        spec = GridSpec(
            f"param:{full}:{h}",
            table.title,
            table.corner,
            tuple(table.rows),
            tuple(table.cols),
            table.cells,
            marks,
            values,
            "diverging",
            _limit(values),
            refs,
            Details(n_rows, detail_row),
            "param",
            (),
            sources,
        )
        out.append(spec)
    return out


def _cell_refs(full: str, label: str, h: int, ndim: int, table, idx: list) -> tuple[tuple, tuple]:
    """(refs, sources) of a weight's table: each cell's CellRef, labelled as the inspector names it.

    They name the cells, not their values, so they are kept (grid_spec's cache of kept specs) across
    edits of the weight's numbers: at d_model 64, W_O's 4,096 labelled refs were a third of an edit's
    redraw."""
    key = ("param refs", full, label, h, ndim, tuple(table.rows), tuple(table.cols), tuple(map(tuple, idx)))
    if (hit := _kept(key, ())) is not None:
        return hit

    def where_of(r: int, c: int) -> str:
        row_label, col_label = table.rows[r], table.cols[c]
        if ndim == 3:
            return f"h{h + 1}: {row_label}, {col_label}"
        if ndim == 1:
            return col_label
        return f"{row_label}, {col_label}"

    refs = tuple(
        tuple(CellRef("param", full, i, f"{label}[{where_of(r, c)}]") for c, i in enumerate(row))
        for r, row in enumerate(idx)
    )
    sources = tuple(tuple((full, i) for i in row) for row in idx)
    return _keep(key, (), (refs, sources))
