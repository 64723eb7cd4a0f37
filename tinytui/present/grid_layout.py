"""Where a Grid's parts sit: the label column, each column's x and width, the header lines, and how a
heatmap too wide for its room becomes narrow shaded blocks. Pure geometry (no Textual).

A heatmap (attention weights, scores, the mask) whose numbers do not fit the room it has is drawn with
every cell BLOCK columns wide and no number in it: the shade carries the value (the cursor still reads
it in the inspector), the marks keep their glyphs, and the column header shows position numbers every
few columns, as an axis does.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import MutableMapping
from dataclasses import dataclass, replace
from functools import cached_property

from tinytui.model import names
from tinytui.present.grid_spec import GridSpec

BLOCK_TEXT = 0  # a narrow cell prints no number: its lead (" " or ▸) and its glyph, two columns in all
HEATMAPS = ("attn.", "scores.")  # per-head tensors drawn as heatmaps; the mask is one too
# Fewer key positions than this and a heatmap pans instead: its numbers are few enough to read one by
# one (the chapter's four tokens at 80 columns), while from eight on the pattern is what one reads.
MIN_BLOCKS = 8


def _positions(spec: GridSpec) -> int:
    """Columns per head (the key positions): the widest group, or every column without groups."""
    return max((span for _, span in spec.groups), default=len(spec.cols))


def group_title(label: str, room: int) -> str:
    """A head's title in room columns: whole, or up to its colon ('head 1'), or cut with …."""
    if len(label) <= room:
        return label
    short = label.partition(":")[0]
    return short if len(short) <= room else label[: max(room - 1, 0)] + "…"


def is_heatmap(spec: GridSpec) -> bool:
    """Whether a table is an attention-style heatmap (its shade says enough when numbers do not fit)."""
    if not spec.shade:
        return False
    first = next((src for row in spec.sources for src in row if src is not None), None)
    if first is None:
        return False
    local = names.split(first[0])[1].removeprefix(names.GRAD)
    return local == "mask" or local.startswith(HEATMAPS)


def can_be_narrow(spec: GridSpec) -> bool:
    """Whether the table is drawn as narrow shaded blocks when its numbers do not fit."""
    return is_heatmap(spec) and _positions(spec) >= MIN_BLOCKS


@dataclass(frozen=True)
class Shape:
    """Where a table's parts sit: the label column's width, each column's width and x, the columns
    a rule is drawn before (a second head), the header lines above the rows, the footer below; each
    column's header text as drawn; narrow when the cells are shaded blocks without numbers."""

    label_w: int
    widths: tuple[int, ...]
    xs: tuple[int, ...]
    starts: frozenset[int]
    top: int  # content lines above the first row (the group header, the column header)
    table_width: int
    rows: int
    headers: tuple[str, ...] = ()  # each column's header text, as wide as its cell
    narrow: bool = False
    natural: int = 0  # the table's width with numbers printed (what decides narrow)
    footer: tuple[str, ...] = ()

    def __hash__(self) -> int:
        # a drawn line is kept by its table's shape: hashed once, not from its hundreds of widths,
        # offsets and headers each time a line is looked up (dataclass keeps an __hash__ it is given)
        return self._hash

    @cached_property
    def _hash(self) -> int:
        where = (self.label_w, self.widths, self.xs, self.starts, self.top, self.table_width, self.rows)
        return hash((where, self.headers, self.narrow, self.natural, self.footer))

    @classmethod
    def of(
        cls,
        spec: GridSpec,
        editing_col: int,
        editor_width: int,
        room: int | None = None,
        kept: MutableMapping[tuple, Shape] | None = None,
    ) -> Shape:
        """The table's layout; a heatmap of MIN_BLOCKS positions or more that is wider than room
        (content columns) gets narrow blocks. kept: shapes by what they are made of (the view's, bounded):
        a table whose numbers changed and whose widths did not (a switch flipped, a weight edited) has
        the shape it had."""
        narrowable = can_be_narrow(spec)
        key: tuple[object, ...] = (spec.corner, spec.rows, spec.cols, spec.cells.widths(), spec.groups)
        key += (spec.shaded, narrowable, editing_col, editor_width, room)
        shape = kept.get(key) if kept is not None else None
        if shape is not None:
            return shape
        full = cls._measure(spec, editing_col, editor_width, narrow=False)
        if room is not None and full.table_width > room and narrowable:
            narrow = cls._measure(spec, editing_col, editor_width, narrow=True)
            full = replace(narrow, natural=full.table_width)
        if kept is not None:
            kept[key] = full
        return full

    @classmethod
    def _measure(cls, spec: GridSpec, editing_col: int, editor_width: int, narrow: bool) -> Shape:
        label_w = max([len(spec.corner), *(len(r) for r in spec.rows)], default=0)
        if narrow and spec.rows and spec.shaded:
            label_w += 1  # a space between a row's label and its first block, never "oak▇▇"
        widths = []
        # each column's widest text: numbers' widths are known without writing them (LazyRows.widths)
        longest = spec.cells.widths() if not narrow else ()
        for c, col in enumerate(spec.cols):
            w = BLOCK_TEXT if narrow else max(len(col), longest[c] if c < len(longest) else 0)
            if c == editing_col:
                w = max(w, editor_width)
            widths.append(w)
        starts, at = set(), 0
        for label, span in spec.groups:
            inner = sum(widths[at : at + span]) + 2 * span
            # a header group wider than its columns widens the last of them (narrow: the label is cut)
            if span and len(label) + 1 > inner and not narrow:
                widths[at + span - 1] += len(label) + 1 - inner
            if at:
                starts.add(at)  # columns that open a new group: a rule is drawn before them
            at += span
        xs, x = [], label_w
        for c, w in enumerate(widths):
            if c in starts:
                x += 1
            xs.append(x)
            x += w + 2
        if narrow:
            headers = _ticks(spec, widths)
        else:
            headers = tuple(" " + col.rjust(w) + " " for col, w in zip(spec.cols, widths))
        top = 1 + bool(spec.groups)
        rows = len(spec.rows)
        return cls(label_w, tuple(widths), tuple(xs), frozenset(starts), top, x, rows, headers, narrow, x)

    def columns_in(self, x0: int, x1: int) -> range:
        """The columns any part of which lies in content columns [x0, x1)."""
        if not self.xs or x1 <= x0:
            return range(0)
        first = max(bisect_right(self.xs, x0) - 1, 0)
        if self.xs[first] + self.widths[first] + 2 <= x0:
            first += 1
        last = bisect_right(self.xs, x1 - 1)
        return range(first, max(first, last))


def _ticks(spec: GridSpec, widths: list[int]) -> tuple[str, ...]:
    """Narrow columns' headers: the position within its group every few columns, as an axis has them.

    Each label needs its digits and a space; a label never runs into the next group (the last one
    is left out when it would)."""
    out: list[str] = []
    groups = list(spec.groups) or [("", len(spec.cols))]
    at = 0
    for _, span in groups:
        cell = [w + 2 for w in widths[at : at + span]]
        line = [" "] * sum(cell)
        every = max(1, -(-(len(str(max(span - 1, 0))) + 1) // max(min(cell, default=2), 1)))
        x = 0
        for i, w in enumerate(cell):
            label = str(i)  # where the cell's lead is, so a space always separates it from the labels
            if i % every == 0 and x + 1 + len(label) <= len(line):
                line[x + 1 : x + 1 + len(label)] = label
            x += w
        text, x = "".join(line), 0
        for w in cell:
            out.append(text[x : x + w])
            x += w
        at += span
    return tuple(out)
