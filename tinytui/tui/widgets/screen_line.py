"""A screen line of the step view made of its tables' lines: each placed at its table's column, the
gaps in the view's colours, cut to the view, the row labels of a table scrolled sideways kept at the
left edge, and a table the right edge cuts ending in a dim ›. Strips in, a strip out.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from tinytui.present.step_layout import Box
from tinytui.tui.widgets.step_geometry import cut_by_labels, kept_at_right, label_width


def placed(parts: list[tuple[int, Strip]], base: Style) -> Strip:
    """Strips at their columns (x, strip), the gaps between them blank over base."""
    if len(parts) == 1 and parts[0][0] == 0:
        return parts[0][1]
    segments: list[Strip] = []
    at = 0
    for x, strip in parts:
        if x > at:
            segments.append(Strip([Segment(" " * (x - at), base)], x - at))
        segments.append(strip)
        at = x + strip.cell_length
    return Strip.join(segments) if segments else Strip([])


def pin_labels(line: Strip, box: Box, strip: Strip, sx: int, width: int, base: Style) -> Strip:
    """line (cut to the view at sx) with box's row labels, from its own line strip, over its left edge;
    the column the labels' edge cuts is left blank: no piece of a number beside them."""
    label = strip.crop(0, label_width(box))
    rest = line.crop(label.cell_length, width)
    gap = min(cut_by_labels(box, sx), rest.cell_length)
    if gap:
        rest = Strip.join([Strip.blank(gap, base), rest.crop(gap, rest.cell_length)])
    return Strip.join([label, rest])


def cut_at_right(line: Strip, box: Box, at: int, sx: int, width: int, mark: Style, base: Style) -> Strip:
    """A screen line across a table the view's right edge cuts (at: the table's line here): its last
    column is a dim › (the table goes on to the right), and the column the edge cuts is left blank."""
    keep = kept_at_right(box, at, sx, width)
    line = line.extend_cell_length(width, base)
    return Strip.join(
        [line.crop(0, keep), Strip.blank(width - 1 - keep, base), Strip([Segment("›", mark)], 1)]
    )
