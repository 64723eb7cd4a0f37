"""Bare Textual apps that bench_view measures beside tinytui, in the same Pilot and the same run.

OneLine: a key changes one number on one line: the least a key that draws anything can measure.
Canvas: a key has one widget draw every line of the screen anew (40 lines of 24 styled numbers at
120×40): what drawing a whole step's worth of screen costs when one widget draws it, without the many
widgets, layouts and containers of tinytui's screen.
"""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.app import App
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

# 64 styles (colour, background, some bold), as a shaded table's cells have
_STYLES = [
    Style(
        color=f"#{i * 37 % 256:02x}{i * 91 % 256:02x}{i * 53 % 256:02x}",
        bgcolor=f"#{i * 13 % 256:02x}2020",
        bold=i % 3 == 0,
    )
    for i in range(64)
]


class OneLine(App[None]):
    BINDINGS: ClassVar = [("x", "bump")]

    def compose(self):
        yield Static("0")

    def action_bump(self) -> None:
        line = self.query_one(Static)
        line.update(str(int(str(line.content)) + 1))


class _Lines(Widget):
    DEFAULT_CSS = "_Lines { width: 100%; height: 100%; }"
    turn = 0

    def render_line(self, y: int) -> Strip:
        cells = [
            Segment(f"{(self.turn + 7 * y + i) % 1000:4d} ", _STYLES[(y + i + self.turn) % 64])
            for i in range(24)
        ]
        return Strip(cells, 5 * 24)


class Canvas(App[None]):
    BINDINGS: ClassVar = [("x", "bump")]

    def compose(self):
        yield _Lines()

    def action_bump(self) -> None:
        lines = self.query_one(_Lines)
        lines.turn += 1  # every line's numbers and styles change
        lines.refresh()
