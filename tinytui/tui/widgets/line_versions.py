"""What each line of each table in the step view shows, as a small number its strip is kept by.

A table's lines start at version 0 (as first shown). When a table shows a new spec, each line whose
content differs from the spec it showed last takes the number of what it now shows: the same content
gets the same number, so a value toggled back, or an undo, finds its lines drawn; numbers are never
given twice, so a line shown long ago (its number forgotten) is drawn again, never taken for another.
A drawn line's key hashes this number, not the whole row of numbers and marks. The bars have no rows
to compare: each change gives their lines a new count.
"""

from __future__ import annotations

from collections.abc import Hashable

from textual.cache import LRUCache

from tinytui.present.grid_spec import GridSpec, Item, KeptBySpec
from tinytui.present.step_layout import Box, StepLayout

NUMBERS_KEPT = 16384  # contents numbered (a big model's step has a few hundred lines)
SPECS_KEPT = 256  # specs whose lines' contents are kept, for comparing with the next


class LineVersions:
    """Each table's lines' versions, for the one step view that owns it."""

    def __init__(self) -> None:
        self._seen: dict[str, Item] = {}  # table's key -> the spec it showed last
        self._versions: dict[tuple[str, int], int] = {}  # (table's key, line) -> that line's version
        self._numbers: LRUCache[Hashable, int] = LRUCache(NUMBERS_KEPT)  # what a line shows -> its number
        self._next = 1  # 0: a table's lines as first shown
        self._shown: KeptBySpec[tuple[tuple[int, int], tuple[Hashable, ...]]] = KeptBySpec(SPECS_KEPT)

    def of(self, key: str, line: int) -> int:
        return self._versions.get((key, line), 0)

    def changed(self, layout: StepLayout) -> list[tuple[Box, list[int]]]:
        """The tables of a layout that show a new spec, each with the lines that differ from the spec it
        showed last (those get their new version)."""
        return [(b, self._bump(b)) for b in layout.boxes if self._seen.get(b.item.key) is not b.item]

    def _bump(self, box: Box) -> list[int]:
        new = box.item
        old = self._seen.get(new.key)
        self._seen[new.key] = new
        if old is None:
            return []
        if isinstance(old, GridSpec) and isinstance(new, GridSpec):
            return self._bump_rows(box, new, old)
        lines = list(range(box.height)) if old != new else []
        for line in lines:  # the bars: a new version each time they change
            key = (new.key, line)
            self._versions[key] = self._versions.get(key, 0) + 1
        return lines

    def _bump_rows(self, box: Box, new: GridSpec, old: GridSpec) -> list[int]:
        lines = []
        now, before = self._lines_shown(new, box), self._lines_shown(old, box)
        for line, (shows, showed) in enumerate(zip(now, before)):  # a frame that moved moves every line
            if shows is not showed and shows != showed:
                self._versions[(new.key, line)] = self._number(shows)
                lines.append(line)
        return lines

    def _lines_shown(self, spec: GridSpec, box: Box) -> tuple[Hashable, ...]:
        """What each line of a table shows (line_shows), kept for the spec: a switch toggled back and
        forth compares the same two specs' lines again."""
        geometry = (box.first_row, box.height)
        kept = self._shown.get(spec)
        if kept is not None and kept[0] == geometry:
            return kept[1]
        shown = tuple(line_shows(spec, box, line) for line in range(box.height))
        self._shown.put(spec, (geometry, shown))
        return shown

    def _number(self, shows: Hashable) -> int:
        number = self._numbers.get(shows)
        if number is None:
            number = self._numbers[shows] = self._next
            self._next += 1
        return number


def frame_of(spec: GridSpec) -> tuple:
    """What every line of a table depends on: a change of it draws the whole table again."""
    return (spec.title, spec.shade, spec.limit, spec.corner, spec.cols, spec.groups, len(spec.rows))


def line_shows(spec: GridSpec, box: Box, line: int) -> Hashable:
    """What a table's line shows, as a key its strip is kept by: for a row, the table's frame and its
    label, its numbers (or texts), marks and values; for a line of the frame, only what that line draws
    (a new shading scale changes the key in the bottom border, not the title or the column header)."""
    r = line - box.first_row
    if not 0 <= r < len(spec.rows):
        if line == 0:
            return "top", spec.role, spec.title
        if line == box.height - 1:
            return "bottom", spec.role, spec.shade, spec.limit, spec.shaded
        return "header", line, spec.role, spec.corner, spec.cols, spec.groups
    numbers = spec.cells.basis  # a row written from numbers reads as they do: no text written to compare
    row = tuple(numbers[r]) if numbers is not None else tuple(spec.cells[r])
    return frame_of(spec), spec.rows[r], row, spec.marks[r], tuple(spec.values[r])
