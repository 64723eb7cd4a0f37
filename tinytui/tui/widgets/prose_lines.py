"""The step view's lines that are not tables: the step's words wrapped to the view, and a section's
heading. Both stay in place when the tables scroll sideways.
"""

from __future__ import annotations

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip


def wrap_words(text: Text, width: int, console: Console) -> list[Strip]:
    """The words as strips, one a line, width columns wide after a column of margin; no blank lines at
    the end."""
    out = []
    for line in text.wrap(console, width, no_wrap=False):
        line.rstrip()
        out.append(Strip([Segment(" "), *line.render(console)], line.cell_len + 1))
    while out and not out[-1].text.strip():
        out.pop()
    return out


def words_line(strip: Strip, width: int, base: Style) -> Strip:
    """A line of the words on screen: as wide as the view, over its colours."""
    return strip.crop(0, width).extend_cell_length(width).apply_style(base)


def heading_line(text: str, style: Style, width: int, base: Style) -> Strip:
    """A section's heading on screen."""
    line = Strip([Segment(" " + text, style)], len(text) + 1)
    return line.crop(0, width).extend_cell_length(width).apply_style(base)
