"""A table's lines inside its frame, as (text, style) pieces: the group header, the column header and a
row of cells. The frame around them is step_lines'.

A line has every column of its table; cols (first, end) draws only those of a table wider than the view,
the others as one blank as wide as they are (the line is as long either way). Draws a spec; computes
nothing.
"""

from __future__ import annotations

from typing import NamedTuple

from rich.style import Style

from tinytui.present.grid_layout import Shape, group_title
from tinytui.present.grid_spec import GridSpec, glyph
from tinytui.present.step_layout import Box
from tinytui.tui.widgets.cell_editor import Shown, typed_pieces
from tinytui.tui.widgets.line_styles import LineStyles
from tinytui.tui.widgets.shading import levels

LIT = "▸"  # before a cell the focused value reads
WIDE_GROUP = 60  # columns: a group header wider than this starts its name at its left, not centred

Pieces = list[tuple[str, Style]]


def grid_line(
    styles: LineStyles,
    box: Box,
    y: int,
    cursor: tuple[int, int] | None,
    lit: frozenset,
    edit: Shown | None = None,
    cols: tuple[int, int] | None = None,
) -> Pieces:
    """Content line y of a table (group header, column header, or a row)."""
    spec, shape = box.item, box.shape
    assert isinstance(spec, GridSpec) and shape is not None
    if spec.groups and y == 0:
        return _group_line(styles, spec, shape)
    first, end = cols if cols is not None else (0, len(shape.widths))
    if y == shape.top - 1:
        on = cursor[1] if cursor is not None and cursor[0] == -1 else None
        return _header_line(styles, spec, shape, on, first, end)
    r = y - shape.top
    row = _Row(styles, spec, shape, r, cursor[1] if cursor is not None and cursor[0] == r else None)
    return row.pieces(lit, edit, first, end)


def _group_line(styles: LineStyles, spec: GridSpec, shape: Shape) -> Pieces:
    header, label = styles.style("header"), styles.style("label")
    out: Pieces = [(" " * shape.label_w, styles.ground)]
    start = 0
    for name, span in spec.groups:
        if start in shape.starts:
            out.append(("│", label))
        inner = sum(w + 2 for w in shape.widths[start : start + span])
        name = group_title(name, inner - 1)
        # a group may be wider than the view (one head shown alone; d_model 64's vector beside the
        # prompt's tokens): its name where its columns begin, not in the middle of them, off the screen
        wide = len(spec.groups) == 1 or inner > WIDE_GROUP
        placed = (" " + name).ljust(inner) if wide else name.center(inner)
        out.append((placed if name else " " * inner, header))
        start += span
    return out


def _header_line(
    styles: LineStyles, spec: GridSpec, shape: Shape, on: int | None, first: int, end: int
) -> Pieces:
    """The column header; on: the cursor's column when the cursor is on the header (-1: the corner)."""
    header, label, ground = styles.style("header"), styles.style("label"), styles.ground
    header_on = styles.over(header, "cursor")
    out: Pieces = [(spec.corner.ljust(shape.label_w), header_on if on == -1 else header)]
    skipped = 0  # columns left out (outside cols) since the last piece: one blank as wide as they are
    for c, text in enumerate(shape.headers):
        if not first <= c < end:
            skipped += len(text) + (c in shape.starts)
            continue
        if skipped:
            out.append((" " * skipped, ground))
            skipped = 0
        if c in shape.starts:
            out.append(("│", label))
        out.append((text, header_on if on == c else header))
    if skipped:
        out.append((" " * skipped, ground))
    return out


# a NamedTuple, not a frozen dataclass: loaded as the app starts, and a frozen dataclass compiles
# its methods from source as its class is made (~3 M instructions; a NamedTuple's ~0.5 M)
class _Row(NamedTuple):
    """Row r of a table drawn; cursor_col: the cursor's column when the cursor is on this row."""

    styles: LineStyles
    spec: GridSpec
    shape: Shape
    r: int
    cursor_col: int | None

    def pieces(self, lit: frozenset, edit: Shown | None, first: int, end: int) -> Pieces:
        styles, shape, ground = self.styles, self.shape, self.styles.ground
        label = styles.style("label")
        on_label = self.cursor_col == -1
        out: Pieces = [
            (
                self.spec.rows[self.r].ljust(shape.label_w),
                styles.over(label, "cursor") if on_label else label,
            )
        ]
        if first >= end:
            if shape.table_width > shape.label_w:
                out.append((" " * (shape.table_width - shape.label_w), ground))
            return out
        if first:  # the columns left of the window: one blank as wide as they are
            out.append((" " * (shape.xs[first] - shape.label_w - (first in shape.starts)), ground))
        out += self._cells(lit, edit, first, end)
        if end < len(shape.widths):  # the columns right of the window
            out.append((" " * (shape.table_width - shape.xs[end - 1] - shape.widths[end - 1] - 2), ground))
        return out

    def _cells(self, lit: frozenset, edit: Shown | None, first: int, end: int) -> Pieces:
        """The cells first … end-1; those the cursor, the operand marks or the first column's lead make
        different are drawn by _marked_cell, the others here. Only their texts are written (a part of
        the row: a d_model 64 row has 64 numbers, some ten on screen)."""
        spec, shape, r = self.spec, self.shape, self.r
        texts, marks, widths, starts, shade = (
            spec.cells.part(r, first, end),
            spec.marks[r],
            shape.widths,
            shape.starts,
            spec.shade,
        )
        at = levels(shade, spec.values[r][first:end], spec.limit) if shade else [None] * (end - first)
        lit_here = {c for row, c in lit if row == r} if lit else set()
        marked = {self.cursor_col, 0, *lit_here}
        look, label, narrow = self.styles.cell_look, self.styles.style("label"), shape.narrow
        out: Pieces = []
        for c in range(first, end):
            if c in starts:
                out.append(("│", label))
            if c in marked:
                out += self._marked_cell(c, texts[c - first], at[c - first], c in lit_here, edit)
                continue
            mark, style = look(shade, marks[c], at[c - first])  # a run in one style: one segment (joined)
            out.append(
                (" " + (" " * widths[c] if narrow else texts[c - first].rjust(widths[c])) + mark, style)
            )
        return out

    def _marked_cell(self, c: int, cell: str, at: float | None, lit: bool, edit: Shown | None) -> Pieces:
        """Cell c (its text: cell) under the cursor (or typed into), one the focused value reads (▸
        before it), or the first column, whose shade starts after its lead (a row's label never runs
        into a shaded number)."""
        styles, spec, shape = self.styles, self.spec, self.shape
        here = c == self.cursor_col
        if here and edit is not None:
            return typed_pieces(edit, styles.ground, styles.style("editing"), styles.component("caret"))
        mark = spec.marks[self.r][c]
        style = styles.cell(spec.shade, mark, at)
        lead = LIT if lit else " "
        if lit:
            style = styles.over(style, "source")
        if here:
            style = styles.over(style, "cursor")
        text = " " * shape.widths[c] if shape.narrow else cell.rjust(shape.widths[c])
        if c == 0 and self._lead_apart(lit or here, style):
            return [(lead, styles.ground), (text + glyph(mark), style)]
        return [(lead + text + glyph(mark), style)]

    def _lead_apart(self, marked: bool, style: Style) -> bool:
        """Whether the first column's lead is drawn apart from its shaded number (not when a mark or
        the cursor is on it, nor in a table too narrow for numbers)."""
        shaded = style.bgcolor != self.styles.ground.bgcolor
        return bool(self.spec.shade) and not self.shape.narrow and not marked and shaded
