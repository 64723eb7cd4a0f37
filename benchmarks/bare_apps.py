"""A bare Textual app that bench_view measures beside tinytui, in the same run and the same kind of
pseudo-terminal: one Line-API ScrollView that formats and draws all of the screen's lines anew on every
key (x), 24 styled numbers a line, as a step's tables are numbers in styled cells. What drawing a whole
screen costs Textual and Python with nothing else on the screen: the floor a key that redraws a screen
of tables is measured against.

python benchmarks/bare_apps.py      # the app, in the terminal it is started in (bench_view starts it)
"""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.app import App
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

# 64 styles (colour, background, some bold), as a shaded table's cells have
_STYLES = [
    Style(
        color=f"#{i * 37 % 256:02x}{i * 91 % 256:02x}{i * 53 % 256:02x}",
        bgcolor=f"#{i * 13 % 256:02x}2020",
        bold=i % 3 == 0,
    )
    for i in range(64)
]


class Lines(ScrollView):
    """Every line formatted and drawn anew after each key: nothing is kept between frames."""

    DEFAULT_CSS = "Lines { width: 100%; height: 100%; }"
    turn = 0

    def on_mount(self) -> None:
        self.virtual_size = Size(5 * 24, 200)

    def render_line(self, y: int) -> Strip:
        row = y + round(self.scroll_y)
        turn = self.turn
        cells = [
            Segment(f"{((turn + 7 * row + i) % 1000) / 97:.3f} "[:5], _STYLES[(row + i + turn) % 64])
            for i in range(24)
        ]
        return Strip(cells, 5 * 24)


class Canvas(App[None]):
    BINDINGS: ClassVar = [("x", "bump")]

    def compose(self):
        yield Lines()

    def action_bump(self) -> None:
        lines = self.query_one(Lines)
        lines.turn += 1  # every line's numbers and styles change
        lines.refresh()


if __name__ == "__main__":
    Canvas().run()
