"""A screen line of the step view made of its tables' lines: each placed at its table's column, the
gaps in the view's colours, cut to the view, the row labels of a table scrolled sideways kept at the
left edge, and a table the right edge cuts ending in a dim ›.

Segments in, segments out: a table's line is a list of segments (as long as its box is wide), a screen
line is put together as a list of segments (with its length in cells) and the view makes the one Strip
it keeps of it. Textual's Strip keeps seven caches of its own, so a Strip for every crop and join (six
a line of a table the edge cuts) cost more than the cutting itself.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.segment import Segment
from rich.style import Style

from tinytui.present.step_layout import Box
from tinytui.tui.widgets.step_geometry import cut_by_labels, kept_at_right, label_width

Line = tuple[list[Segment], int]  # segments, and their length in cells


def crop(segments: Iterable[Segment], start: int, end: int) -> list[Segment]:
    """The segments between cells start and end, cut as Strip.crop cuts them (rich's Segment.divide: a
    segment the edge cuts is split at it, a double-width character cut in two becomes spaces)."""
    start = max(start, 0)
    if end <= start:
        return []
    parts = list(Segment.divide(segments, [start, end]))
    return parts[1] if len(parts) > 1 else []  # nothing from start on: the line ends before it


def placed(parts: list[tuple[int, Line]], base: Style) -> Line:
    """Lines at their columns (x, line), the gaps between them blank over base."""
    segments: list[Segment] = []
    at = length = 0
    for x, (part, part_length) in parts:
        if x > at:
            segments.append(Segment(" " * (x - at), base))
            length += x - at
        segments.extend(part)
        at = x + part_length
        length += part_length
    return segments, length


def cut_to(line: Line, sx: int, width: int) -> Line:
    """The part of a line the view shows, scrolled to sx."""
    segments, length = line
    end = min(sx + width, length)
    if sx <= 0 and end == length:
        return segments, length
    return crop(segments, sx, end), max(end - max(sx, 0), 0)


def pin_labels(line: Line, box: Box, own: list[Segment], sx: int, width: int, base: Style) -> Line:
    """line (cut to the view at sx) with box's row labels, from its own line (own: as wide as the box),
    over its left edge; the column the labels' edge cuts is left blank: no piece of a number beside
    them."""
    segments, length = line
    labels = min(label_width(box), box.width)
    rest_end = min(width, length)
    rest, rest_length = crop(segments, labels, rest_end), max(rest_end - labels, 0)
    gap = min(cut_by_labels(box, sx), rest_length)
    if gap:
        rest = [Segment(" " * gap, base), *crop(rest, gap, rest_length)]
    return [*crop(own, 0, labels), *rest], labels + rest_length


def cut_at_right(
    line: Line, box: Box, at: int, sx: int, width: int, mark: Style, base: Style, start: int
) -> Line:
    """A screen line across a table the view's right edge cuts (at: the table's line here; the view
    scrolled to sx), cut to the view in one cut from cell start of line (sx for a line not cut yet, 0
    for one cut already): its last column is a dim › (the table goes on to the right), and the column
    the edge cuts is left blank."""
    keep = kept_at_right(box, at, sx, width)
    out = crop(extended(line, start + width, base)[0], start, start + keep)
    if width - 1 - keep > 0:
        out.append(Segment(" " * (width - 1 - keep), base))
    out.append(Segment("›", mark))
    return out, width


def extended(line: Line, width: int, base: Style) -> Line:
    """The line made width cells long with blanks over base, if it is shorter (the blanks in its last
    segment when that is over base already)."""
    segments, length = line
    if length >= width:
        return segments, length
    blank = " " * (width - length)
    if segments and segments[-1].style is base:
        return [*segments[:-1], Segment(segments[-1].text + blank, base)], width
    return [*segments, Segment(blank, base)], width
