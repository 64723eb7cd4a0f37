"""Where things are in the step view, as numbers on a laid-out step (tinytui.present.step_layout): the
columns of a wide table worth drawing at a scroll, where the pinned labels and the view's right edge cut
a table, the line a marked value is on, a cell's region, the cell under a click. No widget state: the
step view asks with its scroll offset and cursor.
"""

from __future__ import annotations

from bisect import bisect_left

from textual.geometry import Region, Spacing

from tinytui.present.grid_spec import LogitsSpec, Source
from tinytui.present.step_layout import FRAME, Box, StepLayout


def label_width(box: Box) -> int:
    """Columns of the frame's left side and the row labels: what stays pinned when scrolled sideways."""
    return FRAME + (box.shape.label_w if box.shape is not None else 0)


def window(box: Box, sx: int, width: int) -> tuple[int, int] | None:
    """The columns of a table wider than the view worth drawing when it is scrolled to sx: those in the
    view and half a view past its right edge, from the half-view step at or before sx, so a scroll by a
    few columns finds its lines drawn (at d_model 64, W_O's lines are 586 columns and the view shows 90).
    None: all."""
    shape = box.shape
    if shape is None or box.width <= width:
        return None
    half = max(width // 2, 1)
    low = sx // half * half
    inside = shape.columns_in(low - box.x - FRAME, low + 3 * half - box.x - FRAME)
    if len(inside) == len(shape.widths):
        return None
    return inside.start, inside.stop


def header_pinned(box: Box, sy: int) -> bool:
    """Whether the view's top (scrolled to sy) is inside box's rows: its title and header then stay at
    the top."""
    return box.y < sy and sy + box.first_row < box.y + box.height - 1


def labels_pinned(box: Box, line: int, sx: int) -> bool:
    """Whether box's row labels stay at the view's left edge on this line when scrolled to sx (a border
    line has no labels: it is not pinned)."""
    inside = 0 < line < box.height - 1
    return inside and box.x < sx < box.x + box.width - label_width(box) - 1


def cut_by_labels(box: Box, sx: int) -> int:
    """Columns from the pinned labels' right edge to the first of the table's columns that begins at or
    after it, when the view is scrolled to sx: the part of a column the labels cut into."""
    shape = box.shape
    if shape is None:
        return 0
    edge = sx + label_width(box) - box.x - FRAME  # in the table's own columns
    i = bisect_left(shape.xs, edge)
    start = shape.xs[i] if i < len(shape.xs) else shape.table_width
    return max(start - edge, 0)


def kept_at_right(box: Box, line: int, sx: int, width: int) -> int:
    """Of a screen line across a table the view's right edge cuts, the view's columns kept as drawn: all
    but the last (a › goes there), and inside the frame none of the column the edge cuts (no piece of a
    number, a lone 0, is read as a value)."""
    keep = width - 1
    shape = box.shape
    if shape is not None and 0 < line < box.height - 1:
        inner = sx + width - box.x - FRAME  # the edge, in the table's own columns
        cols = shape.columns_in(inner - 1, inner)
        if cols and shape.xs[cols.start] + shape.widths[cols.start] + 2 > inner:
            keep = min(keep, max(box.x + FRAME + shape.xs[cols.start] - sx, 0))
    return keep


def line_of(box: Box, cell: tuple[int, int] | Source) -> int:
    """The line of box a marked cell (a table's (row, col), or a source among the bars) is on."""
    if isinstance(box.item, LogitsSpec):
        for i, r in enumerate(box.item.rows):
            if cell in (r.logit_source, r.prob_source):
                return box.first_row + i
        return 0
    return box.first_row + cell[0]  # type: ignore[operator]


def cell_region(box: Box, row: int, col: int) -> Region:
    """A table's cell (or label, col -1) in the view's virtual space; the whole box for the bars."""
    shape = box.shape
    y = box.y + box.first_row + row
    if shape is None:
        return Region(box.x, box.y, box.width, box.height)
    if col < 0:
        return Region(box.x + FRAME, y, shape.label_w, 1)
    return Region(box.x + FRAME + shape.xs[col], y, shape.widths[col] + 2, 1)


def cursor_view(box: Box, row: int, col: int) -> tuple[Region, Spacing]:
    """What to scroll into view for the cursor at (row, col) of box, and the room to keep around it: the
    header above and the labels left of it, and at the right edge a column after the cursor's (where a
    cut table's › goes) or the frame after the last column, so the cursor's cell is never the one the
    edge cuts."""
    cell = cell_region(box, row, col)
    left = box.x if col <= 0 else cell.x
    top = box.y if row <= 0 else cell.y
    region = Region(left, top, cell.right - left, cell.bottom - top)
    last = box.shape is None or col == len(box.shape.widths) - 1
    top_room = box.first_row if row > 0 else 0
    left_room = label_width(box) if col > 0 else 0
    return region, Spacing(top_room, FRAME if last else 1, 0, left_room)


def cell_at(layout: StepLayout, x: int, y: int) -> tuple[Box, int, int] | None:
    """The table's cell (box, row, col; -1 for a label) at (x, y) of the view's virtual space, or None."""
    box = next((b for b in layout.at(y) if b.x <= x < b.x + b.width and b.shape is not None), None)
    if box is None or box.shape is None:
        return None
    row = y - box.y - box.first_row
    if not -1 <= row < box.shape.rows:
        return None
    inner = x - box.x - FRAME
    cols = box.shape.columns_in(inner, inner + 1)
    if cols:
        return box, row, cols[-1]
    return (box, row, -1) if inner < box.shape.label_w else None


def same_rows(a: StepLayout, b: StepLayout) -> bool:
    """Whether two layouts put the same blocks on the same lines (their widths may differ)."""
    if len(a.boxes) != len(b.boxes) or a.headings != b.headings:
        return False
    return all(
        (x.index, x.item.key, x.y, x.height) == (y.index, y.item.key, y.y, y.height)
        for x, y in zip(a.boxes, b.boxes)
    )
