"""What each line of each table in the step view shows, as a small number its strip is kept by.

A table's line is numbered by what it shows: the same content gets the same number, so a value toggled
back, or an undo, finds its lines drawn; numbers are never given twice, so a line shown long ago (its
number forgotten) is drawn again, never taken for another. A line is numbered when it is drawn or
compared, once per spec (kept with the spec): a mask toggle at d_model 64 changes some 280 lines of which
25 are on screen, and only those are looked at; one off screen is numbered when it scrolls in (a scroll
draws every line). A drawn line's key holds this number, not the whole row of numbers and marks. The bars
have no rows to compare: each change gives their lines a new count.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from textual.cache import LRUCache

from tinytui.present.grid_spec import GridSpec, Item, KeptBySpec
from tinytui.present.step_layout import Box, StepLayout

NUMBERS_KEPT = 16384  # contents numbered (a big model's step has a few hundred lines)
SPECS_KEPT = 256  # specs whose lines' numbers are kept, for drawing and comparing with the next


class LineVersions:
    """Each table's lines' versions, for the one step view that owns it."""

    def __init__(self) -> None:
        self._seen: dict[str, Item] = {}  # table's key -> the spec it showed last
        self._bars: dict[tuple[str, int], int] = {}  # (the bars' key, line) -> that line's count
        self._numbers: LRUCache[Hashable, int] = LRUCache(NUMBERS_KEPT)  # what a line shows -> its number
        self._next = 1
        # a spec's geometry (first row, height), its lines' numbers and its frame's, each worked out when
        # first asked
        self._kept: KeptBySpec[_Numbered] = KeptBySpec(SPECS_KEPT)

    def of(self, box: Box, line: int) -> int:
        """The version of a line of the box's table as it shows now."""
        item = box.item
        if isinstance(item, GridSpec):
            return self._line_number(item, box, line)
        return self._bars.get((item.key, line), 0)

    def changed(
        self, layout: StepLayout, top: int = 0, bottom: int | None = None
    ) -> list[tuple[Box, list[int]]]:
        """The tables of a layout that show a new spec, each with the lines that differ from the spec it
        showed last, among those from line top to bottom of the view's virtual space (None: to the end)
        and a table's title and header (pinned at the view's top when it is scrolled past)."""
        return [
            (b, self._differ(b, top, bottom))
            for b in layout.boxes
            if self._seen.get(b.item.key) is not b.item
        ]

    def _differ(self, box: Box, top: int, bottom: int | None) -> list[int]:
        new = box.item
        old = self._seen.get(new.key)
        self._seen[new.key] = new
        if old is None:
            return []
        if isinstance(old, GridSpec) and isinstance(new, GridSpec):
            return self._differing(old, new, box, _lines_within(box, top, bottom))
        lines = list(range(box.height)) if old != new else []
        for line in lines:  # the bars: a new version each time they change
            key = (new.key, line)
            self._bars[key] = self._bars.get(key, 0) + 1
        return lines

    def _differing(self, old: GridSpec, new: GridSpec, box: Box, lines: range | list[int]) -> list[int]:
        """Those of the lines that show something else in the new spec. A row the new spec took over
        from the old one (a weight's table patched after an edit keeps the rows that did not move) is
        the same line under the same frame: it takes the old one's number without its numbers read."""
        was, now = self._numbered(old, box), self._numbered(new, box)
        # a spec patched from the old one holds its very rows (a spec made anew, new tuples of them)
        patched = old.rows is new.rows and frame_of(old) == frame_of(new)
        out, first_row, n_rows = [], box.first_row, len(new.rows)
        for line in lines:
            before = was.lines[line]
            if before is None:
                before = self._line_of(old, box, line, was)
            after = now.lines[line]
            if after is None:
                r = line - first_row
                if patched and 0 <= r < n_rows and _same_row(old, new, r):
                    after = now.lines[line] = before
                else:
                    after = self._line_of(new, box, line, now)
            if after != before:
                out.append(line)
        return out

    def _numbered(self, spec: GridSpec, box: Box) -> _Numbered:
        geometry = (box.first_row, box.height)
        kept = self._kept.get(spec)
        if kept is None or kept.geometry != geometry:
            kept = self._kept.put(spec, _Numbered(geometry, [None] * box.height))
        return kept

    def _line_number(self, spec: GridSpec, box: Box, line: int) -> int:
        """The number of what a table's line shows (line_shows), kept with the spec: a switch toggled
        back and forth compares and draws the same two specs' lines again."""
        numbered = self._numbered(spec, box)
        number = numbered.lines[line]
        return self._line_of(spec, box, line, numbered) if number is None else number

    def _line_of(self, spec: GridSpec, box: Box, line: int, numbered: _Numbered) -> int:
        """Work a line's number out and keep it with the spec's."""
        if numbered.frame is None and 0 <= line - box.first_row < len(spec.rows):  # a row's key holds it
            numbered.frame = self._number(("frame", *frame_of(spec)))
        number = numbered.lines[line] = self._number(line_shows(spec, box, line, numbered.frame))
        return number

    def _number(self, shows: Hashable) -> int:
        number = self._numbers.get(shows)
        if number is None:
            number = self._numbers[shows] = self._next
            self._next += 1
        return number


def _lines_within(box: Box, top: int, bottom: int | None) -> range | list[int]:
    """A box's lines from virtual line top to bottom, and its title and header lines wherever it is."""
    first = max(top - box.y, 0)
    last = box.height if bottom is None else min(bottom - box.y, box.height)
    if first <= box.first_row:
        return range(0, max(last, min(box.first_row, box.height)))
    return [*range(box.first_row), *range(first, last)]


def frame_of(spec: GridSpec) -> tuple:
    """What every line of a table depends on: a change of it draws the whole table again."""
    return (spec.title, spec.shade, spec.limit, spec.corner, spec.cols, spec.groups, len(spec.rows))


def line_shows(spec: GridSpec, box: Box, line: int, frame: int | None) -> Hashable:
    """What a table's line shows, as a key its strip is kept by: for a row, the table's frame (by its
    number: a wide table's frame holds every column's label, hashed once, not once a row) and its
    label, its numbers (or texts), marks and values (once when its numbers are them); for a line of the
    frame, only what that line draws (a new shading scale changes the key in the bottom border, not the
    title or the column header)."""
    r = line - box.first_row
    if not 0 <= r < len(spec.rows):
        if line == 0:
            return "top", spec.role, spec.title
        if line == box.height - 1:
            return "bottom", spec.role, spec.shade, spec.limit, spec.shaded
        return "header", line, spec.role, spec.corner, spec.cols, spec.groups
    numbers = spec.cells.basis  # a row written from numbers reads as they do: no text written to compare
    row = tuple(numbers[r]) if numbers is not None else tuple(spec.cells[r])
    values = tuple(spec.values[r])
    return frame, spec.rows[r], row, spec.marks[r], "as written" if values is row else values


def _same_row(old: GridSpec, new: GridSpec, r: int) -> bool:
    """Whether row r of new (with old's row labels) is old's very row: its numbers, marks and values the
    same objects (what a patched spec keeps), so it reads the same without its numbers being compared."""
    old_numbers, new_numbers = old.cells.basis, new.cells.basis
    if old_numbers is None or new_numbers is None:
        return False
    return (
        old_numbers[r] is new_numbers[r] and old.marks[r] is new.marks[r] and old.values[r] is new.values[r]
    )


@dataclass(eq=False)
class _Numbered:
    """A spec's numbers for one geometry: each line's and its frame's (None: not yet worked out)."""

    geometry: tuple[int, int]  # (first row, height) of the box it was numbered for
    lines: list[int | None]
    frame: int | None = None  # the number of frame_of(spec), which every row's number is made with
