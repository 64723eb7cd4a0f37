"""Where a step's blocks sit in the step view: each section's heading, then its tables (side by side
when they fit the width, each under the one before when they do not), every block a known number of
lines. Pure geometry on the specs (no Textual): the step view draws what this places. What laying out keeps
between keys (LayoutKept) belongs to the view that lays out, and goes with it.

A table's block is its frame: the top border with the title, the header lines, the rows, and the
bottom border with the shading's key. Its inner width is the table's (grid_layout.Shape) or the title's
or the key's, whichever is widest; two columns of frame and padding each side.
"""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, NamedTuple

from tinytui.present.grid_layout import Shape
from tinytui.present.grid_spec import GridSpec, Item, KeptBySpec, LogitsSpec, Section
from tinytui.report.lazy_rows import LazyRows

FRAME = 2  # columns of border and padding on each side of a table
GAP = 1  # columns between tables side by side
KEY_CELLS = 10  # the shading key's widest form: this many shaded cells between its end values
BAR_WIDTH = 30  # a bar of p = 1 (narrower when the width is smaller)
MIN_BAR = 8
BAR_TAGS = "  ◀ target ★ predicted"
SHORT_TAGS = "  ◀ ★"


# a NamedTuple, not a frozen dataclass: loaded as the app starts, and a frozen dataclass compiles
# its methods from source as its class is made (~3 M instructions; a NamedTuple's ~0.5 M)
class Heading(NamedTuple):
    """A section's heading placed in the step view: the line it is on and its text."""

    y: int
    text: str


@dataclass(frozen=True)
class Box:
    """One table (or the bars) placed: its number in the step (the cursor's table), where its frame's
    top left is, its frame's size, and its shape (None for the bars)."""

    index: int
    item: Item
    x: int
    y: int
    width: int
    height: int
    shape: Shape | None
    section: int  # which section it is in
    bar_width: int = 0  # the bars' length at p = 1 (bars only)
    short: bool = False  # the bars' tags written ◀ ★ (the header says what they mean): no room for words

    @property
    def inner(self) -> int:
        return self.width - 2 * FRAME

    @property
    def first_row(self) -> int:
        """The frame's line of the first row (tables: after the border and the header lines)."""
        return 1 + (self.shape.top if self.shape is not None else 1)

    def covers(self, y: int) -> bool:
        return self.y <= y < self.y + self.height


@dataclass(frozen=True)
class StepLayout:
    """Where everything of one step sits in the step view: the section headings and the tables placed,
    how wide and tall it all is, and the pages a presenter moves through."""

    headings: tuple[Heading, ...]
    boxes: tuple[Box, ...]
    width: int  # the widest line (the view scrolls sideways past its own width)
    height: int
    pages: tuple[tuple[int, tuple[int, ...]], ...]  # (section, the boxes of one row of it): a presenter page

    def at(self, y: int) -> tuple[Box, ...]:
        """The boxes that have line y (one, or several side by side)."""
        found = self._boxes_by_line.get(y)
        if found is None:
            found = self._boxes_by_line[y] = tuple(box for box in self.boxes if box.covers(y))
        return found

    def heading_at(self, y: int) -> Heading | None:
        return self._headings_by_line.get(y)

    # looked up for every line drawn: a line's boxes found by one walk over the boxes, then kept (only the
    # lines drawn are looked up: a d_model 64 step has some 340 lines, 30 on screen)
    @cached_property
    def _boxes_by_line(self) -> dict[int, tuple[Box, ...]]:
        return {}

    @cached_property
    def _headings_by_line(self) -> dict[int, Heading]:
        by_line: dict[int, Heading] = {}
        for heading in self.headings:
            by_line.setdefault(heading.y, heading)  # the first, as a walk over them finds it
        return by_line


@dataclass(eq=False)
class LayoutKept:
    """What laying a view's steps out keeps between keys, made and owned by that view: a table's shape by
    what it is made of (shapes: bounded, the view gives Textual's LRUCache), and by spec (held weakly:
    an entry goes with its spec) its size for a room and, for a table of heads, its heads. A table that
    did not change (present keeps its spec) is not measured or split again when a step around it is
    laid out anew."""

    shapes: MutableMapping[tuple, Shape]
    sized: KeptBySpec[tuple[int | None, tuple[Shape, int, int]]] = field(
        default_factory=lambda: KeptBySpec(256)
    )
    # at GPT-2 small, 12 heads of each table on every move: the splits of earlier traces' tables go with them
    split: KeptBySpec[tuple[GridSpec, ...]] = field(default_factory=lambda: KeptBySpec(256))

    def clear(self) -> None:
        self.shapes.clear()
        self.sized.clear()
        self.split.clear()


def key_width(spec: GridSpec) -> int:
    """Columns the shading's key takes under a table (0 when it has none)."""
    if spec.shade not in ("heat", "diverging") or not spec.shaded:
        return 0
    ends = 8 if spec.shade == "heat" else 2 * len(f"{spec.limit:.2f}") + 6
    return ends + KEY_CELLS + 2


def table_box_size(spec: GridSpec, room: int | None, kept: LayoutKept) -> tuple[Shape, int, int]:
    """A table's shape, its frame's width and height (a heatmap too wide for room gets narrow blocks)."""
    sized = kept.sized.get(spec)
    if sized is not None and sized[0] == room:
        return sized[1]
    return kept.sized.put(spec, (room, _measured(spec, room, kept)))[1]


def _measured(spec: GridSpec, room: int | None, kept: LayoutKept) -> tuple[Shape, int, int]:
    shape = Shape.of(spec, -1, 0, None if room is None else room - 2 * FRAME, kept.shapes)
    inner = max(shape.table_width, len(spec.title) + 2, key_width(spec))
    if room is not None:  # a long title is cut (with …), never widening the table past the room
        inner = max(shape.table_width, min(inner, room - 2 * FRAME))
    return shape, inner + 2 * FRAME, 1 + shape.top + len(spec.rows) + 1


def bars_box_size(spec: LogitsSpec, room: int | None) -> tuple[int, int, int, bool]:
    """The bars' frame width and height, their length at p = 1 (shorter on a narrow screen) and
    whether their tags are short (even the shortest bars leave no room for the words)."""
    token = max(len(r.token) for r in spec.rows) + 2 * (spec.number_width + 2)  # " -1.2345▲" twice
    inside = None if room is None else room - 2 * FRAME
    short = inside is not None and inside < token + len(BAR_TAGS) + MIN_BAR
    fixed = token + len(SHORT_TAGS if short else BAR_TAGS)
    bar = BAR_WIDTH if inside is None else max(MIN_BAR, min(BAR_WIDTH, inside - fixed))
    inner = max(fixed + bar, len(spec.others), len(spec.title) + 2)
    if inside is not None:  # a long title is cut (with …), never widening the bars past the room
        inner = max(fixed + bar, min(inner, inside))
    return inner + 2 * FRAME, 1 + 1 + len(spec.rows) + bool(spec.others) + 1, bar, short


def heads_of(spec: GridSpec, kept: LayoutKept) -> tuple[GridSpec, ...]:
    """A table of several heads (column groups) as one table per head, each under the one before when
    the whole is too wide: the same rows, cells, marks and shading scale; keys "<key>#<head>". Made once
    per spec (kept.split: the same spec gives the same tables, so an unchanged table draws nothing again)."""
    split = kept.split.get(spec)
    if split is not None:
        return split
    joined = spec.parts
    if joined and len(joined) == len(spec.groups):
        # the tables it was joined from: their cells, sources and lines as they are, on the shared scale
        heads = tuple(
            replace(part, key=f"{spec.key}#{i}", title=spec.title, groups=(group,), limit=spec.limit)
            for i, (part, group) in enumerate(zip(joined, spec.groups))
        )
        return kept.split.put(spec, heads)
    parts = []
    start = 0
    for i, (label, span) in enumerate(spec.groups):
        a, b = start, start + span
        start = b

        def cut(rows: Sequence[Sequence[Any]], a: int = a, b: int = b) -> tuple:
            return tuple(tuple(row[a:b]) for row in rows)

        parts.append(
            GridSpec(
                f"{spec.key}#{i}",
                spec.title,
                spec.corner,
                spec.rows,
                spec.cols[a:b],
                spec.cells.columns(a, b),
                cut(spec.marks),
                cut(spec.values),
                spec.shade,
                spec.limit,
                LazyRows.of(spec.refs).columns(a, b),
                spec.details.columns(a, b),
                spec.role,
                ((label, span),),
                LazyRows.of(spec.sources).columns(a, b) if spec.sources else (),  # read when asked
            )
        )
    return kept.split.put(spec, tuple(parts))


def lay_out(
    sections: list[Section], width: int, kept: LayoutKept, top: int = 0, margin: int = 0
) -> StepLayout:
    """Every section's heading and tables, top to bottom from line top, for a view width columns wide;
    margin: columns left of every table and a blank line above each row of them (the presenter's room);
    kept: the view's sizes and splits of the tables it laid out before."""
    headings: list[Heading] = []
    boxes: list[Box] = []
    pages: list[tuple[int, tuple[int, ...]]] = []
    y, widest = top, 0
    for s, section in enumerate(sections):
        if s:
            y += 1  # a blank line between sections
        headings.append(Heading(y, section.title))
        widest = max(widest, len(section.title) + 2)
        y += 1
        width_left = width - margin
        for row in section.rows:
            y += 1 if margin else 0
            # each item with its shape (None: the bars), frame width and height, and (bar width, short)
            sized: list[tuple[Item, Shape | None, int, int, tuple[int, bool]]] = []
            for item in row:
                if isinstance(item, LogitsSpec):
                    w, h, bar_width, short = bars_box_size(item, width_left)
                    sized.append((item, None, w, h, (bar_width, short)))
                else:
                    shape, w, h = table_box_size(item, width_left, kept)
                    heads = len(item.groups) > 1 and all(g.startswith("head") for g, _ in item.groups)
                    if w > width_left and heads:
                        for head in heads_of(item, kept):  # too wide: its heads under each other
                            shape, w, h = table_box_size(head, width_left, kept)
                            sized.append((head, shape, w, h, (0, False)))
                        continue
                    sized.append((item, shape, w, h, (0, False)))
            side_by_side = sum(w for _, _, w, _, _ in sized) + GAP * (len(sized) - 1) <= width_left
            x, top, tallest = margin, y, 0
            page = []
            for placed, placed_shape, w, h, bars in sized:
                if not side_by_side and x > margin:
                    x, top = margin, top + tallest
                    tallest = 0
                boxes.append(Box(len(boxes), placed, x, top, w, h, placed_shape, s, *bars))
                page.append(len(boxes) - 1)
                widest = max(widest, x + w)
                tallest = max(tallest, h)
                x += w + GAP
            y = top + tallest
            pages.append((s, tuple(page)))
        if not section.rows:
            pages.append((s, ()))
    return StepLayout(tuple(headings), tuple(boxes), widest, y, tuple(pages))
