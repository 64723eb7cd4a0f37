"""Practice mode in the tables: a cell the learner has still to work out is drawn as "?" (no number, no
shade, no ▲▼ mark, and an inspector line that gives nothing away); a cell answered right shows its value
after a ✓. Pure data: conceal() turns a step's Sections into the same Sections with those cells changed,
so every widget that draws a GridSpec or a LogitsSpec draws practice without knowing of it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, TypeVar

from tinytui.present.grid_spec import MASKED, GridSpec, Item, KeptSpecs, LogitsSpec, Section, Source
from tinytui.present.view import View
from tinytui.report.lazy_rows import LazyRows

if TYPE_CHECKING:  # made by the session's practice: loaded once practice is on
    from tinytui.session.practice_state import Shown

ItemT = TypeVar("ItemT", GridSpec, LogitsSpec)

HIDDEN = "?"
RIGHT = "✓"
_ONLY_MASKED = frozenset({MASKED})


def conceal(view: View, sections: list[Section]) -> list[Section]:
    """The sections with practice's hidden cells as "?" and its right answers with ✓."""
    shown = view.practice
    if shown is None or not (shown.hidden or shown.right):
        return sections
    n_blocks = view.trace.cfg.n_blocks
    return [
        s._replace(
            rows=tuple(tuple(_item(view.kept, item, shown, n_blocks) for item in row) for row in s.rows)
        )
        for s in sections
    ]


def ask_line(source: Source, n_blocks: int) -> str:
    """The inspector's line for a hidden cell."""
    from tinytui.lesson.practice.questions import cell_text  # its questions: only while practising

    return f"{cell_text(*source, n_blocks)} = ?   practice: Enter to give your value, h for a hint"


def _item(kept: KeptSpecs, item: Item, shown: Shown, n_blocks: int) -> Item:
    """The item with its practised cells drawn so; kept with the spec it was made from and its cells'
    states (a key that changes nothing else draws the same spec)."""
    if isinstance(item, GridSpec):
        in_grid = tuple(
            (r, c, src in shown.right)
            for r, c, src in ((r, c, src) for r, row in enumerate(item.sources) for c, src in enumerate(row))
            if src is not None and (src in shown.hidden or src in shown.right)
        )
        return _kept(kept, item, in_grid, lambda: _grid(item, in_grid, n_blocks))
    in_bars = tuple(
        (i, which, src in shown.right)
        for i, row in enumerate(item.rows)
        for which, src in (("logit", row.logit_source), ("prob", row.prob_source))
        if src is not None and (src in shown.hidden or src in shown.right)
    )
    return _kept(kept, item, in_bars, lambda: _bars(item, in_bars))


def _kept(kept: KeptSpecs, item: ItemT, states: tuple, make: Callable[[], ItemT]) -> ItemT:
    """The item as practice draws it: itself when none of its cells is practised, else the kept spec
    made from it with these states, or a new one made and kept."""
    if not states:
        return item
    key = ("practice", item.key, states)
    if (hit := kept.find_made_of(key, (item,))) is not None:
        return hit
    return kept.keep(key, (item,), make())


def _grid(spec: GridSpec, states: tuple[tuple[int, int, bool], ...], n_blocks: int) -> GridSpec:
    right = {(r, c): ok for r, c, ok in states}
    cells = [list(row) for row in spec.cells]
    values = [list(row) for row in spec.values]
    marks = [list(row) for row in spec.marks]
    for (r, c), ok in right.items():
        text = cells[r][c]
        if ok:
            cells[r][c] = (RIGHT + text.strip()).rjust(len(text))
        else:
            cells[r][c] = HIDDEN.rjust(len(text))
            values[r][c] = None
            marks[r][c] = marks[r][c] & _ONLY_MASKED
    old, sources = spec.details, spec.sources

    def detail_row(r: int) -> tuple[str, ...]:
        row = list(old[r])
        for c, src in enumerate(sources[r]):
            if src is not None and right.get((r, c)) is False:
                row[c] = ask_line(src, n_blocks)
        return tuple(row)

    # the scale's end (and so the key under the table, "−2.44 0 +2.44") from the numbers still shown:
    # the largest |value| of the table would give a hidden value's size away
    shown_values = [abs(v) for row in values for v in row if v is not None]
    limit = spec.limit
    if spec.shade == "diverging":
        limit = max(shown_values) if shown_values and max(shown_values) > 0 else 1.0
    return replace(
        spec,
        cells=LazyRows.of(cells),
        values=tuple(tuple(row) for row in values),
        marks=tuple(tuple(row) for row in marks),
        details=LazyRows(len(old), detail_row),
        limit=limit,
        parts=(),  # the heads' tables it was joined from show every number: a narrow screen cuts this one
    )


def _bars(spec: LogitsSpec, states: tuple[tuple[int, str, bool], ...]) -> LogitsSpec:
    rows = list(spec.rows)
    for i, which, ok in states:
        row = rows[i]
        text = row.logit if which == "logit" else row.prob
        written = (RIGHT + text.strip()).rjust(len(text)) if ok else HIDDEN.rjust(len(text))
        if which == "logit":
            rows[i] = (
                replace(row, logit=written) if ok else replace(row, logit=written, logit_mark=frozenset())
            )
        elif ok:
            rows[i] = replace(row, prob=written)
        else:  # a hidden probability draws no bar and no "predicted" tag either
            rows[i] = replace(row, prob=written, prob_mark=frozenset(), p=0.0, predicted=False)
    return replace(spec, rows=tuple(rows))
