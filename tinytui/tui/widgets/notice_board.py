"""The app's notices, drawn by one widget on Textual's Line API (in place of Textual's toasts).

A notice looks like a toast: a coloured edge on its left by severity, a bold title line, then its message,
wrapped to the board's width (60 columns, at most half the screen), a blank row above and below. The
board stacks the live notices (tinytui.tui.toasts keeps them: which live, where the board sits) and
draws each line from a cache kept by what the line shows, so a notice replaced by one of the same height
only repaints the lines that differ; the board is laid out again only when it shows more or fewer lines
or moves. It sits on its own layer (the screen's `notices`, app.tcss), placed by an offset from the top
left of the screen, and is not displayed while there is no notice. A click on a notice takes it away.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Protocol

from rich.console import Console
from rich.errors import MarkupError, MissingStyle, StyleSyntaxError
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Region
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tinytui.report.tables import on_screen_text

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.timer import Timer

WIDTH = 60  # a notice's width at most, as Textual's toast; at most half the screen
EDGE = "▌"  # the coloured left edge
RIGHT = 1  # columns left clear at the screen's right edge (the step view's scrollbar), as Textual's toasts
SEVERITIES = ("information", "warning", "error")


def board_width(screen_width: int) -> int:
    """The board's width on a screen this wide: 60 columns, at most half the screen."""
    return max(min(WIDTH, screen_width // 2), 12)


@dataclass(eq=False)
class Notice:
    """One notice, as the app raised it."""

    message: str
    title: str = ""
    severity: SeverityLevel = "information"
    timeout: float = 5.0
    markup: bool = True  # the message may hold Rich markup ([b]…[/b]); shown as typed when it does not parse
    replaces: str = ""  # what it is about ("refusal", "switches"): a new one about the same takes its place
    turn: int = 0  # the app's input turn it was raised in (tinytui.tui.toasts)
    timer: Timer | None = field(default=None, repr=False)
    _lines: dict[int, list[tuple[str, Text]]] = field(default_factory=dict, repr=False)

    def text(self, console: Console) -> Text:
        """The message as Rich text: its markup when it parses into styles the console knows (a bracket
        in plain English, as in W_O[h1.k0, thing], does not), else the message as typed."""
        message = on_screen_text(self.message)  # −0.0313, as the tables write a negative number
        if not self.markup or "[" not in message:
            return Text(message)
        try:
            text = Text.from_markup(message)
            for span in text.spans:
                if isinstance(span.style, str):
                    console.get_style(span.style)
        except (MarkupError, MissingStyle, StyleSyntaxError):
            return Text(message)
        return text

    def lines(self, width: int, console: Console) -> list[tuple[str, Text]]:
        """Its title and message lines, (kind, text) with kind "title" or "body", wrapped to the width of
        a board this wide (less its edge and a column each side)."""
        kept = self._lines.get(width)
        if kept is None:
            room = width - 3
            out: list[tuple[str, Text]] = []
            if self.title:
                out += [("title", line) for line in Text(self.title).wrap(console, room)]
            body = self.text(console)
            out += [("body", line) for line in body.wrap(console, room)] if body.plain else []
            for _, line in out:
                line.rstrip()
            kept = self._lines[width] = out or [("body", Text())]
        return kept

    def height(self, width: int, console: Console) -> int:
        """Rows it takes on a board this wide: its lines and a blank row above and below."""
        return len(self.lines(width, console)) + 2


class NoticeSource(Protocol):
    """What the board draws: tinytui.tui.toasts.Toasts."""

    def dismiss(self, notice: Notice) -> None: ...  # a click on it
    def fit(self) -> None: ...  # the screen changed size: place the notices again
    def forget(self, board: NoticeBoard) -> None: ...  # the board is gone with its screen


class NoticeBoard(ScrollView):
    """The live notices, stacked at the right of the screen (tinytui.tui.toasts places it).

    A ScrollView that never scrolls: when the board takes a new size, Textual sets a plain widget's
    virtual size to it, which asks for a second layout of the whole screen; a ScrollView keeps its own."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "notice-board--body",
        *(f"notice-board--edge-{s}" for s in SEVERITIES),
        *(f"notice-board--title-{s}" for s in SEVERITIES),
    }

    DEFAULT_CSS = """
    NoticeBoard {
        layer: notices;
        position: absolute;
        display: none;
        width: 60;
        height: 1;
        overflow: hidden hidden;
    }
    NoticeBoard > .notice-board--body { background: $panel-lighten-1; color: $foreground; }
    NoticeBoard > .notice-board--edge-information { color: $success; }
    NoticeBoard > .notice-board--edge-warning { color: $warning; }
    NoticeBoard > .notice-board--edge-error { color: $error; }
    NoticeBoard > .notice-board--title-information { color: $text-success; text-style: bold; }
    NoticeBoard > .notice-board--title-warning { color: $text-warning; text-style: bold; }
    NoticeBoard > .notice-board--title-error { color: $text-error; text-style: bold; }
    """

    def __init__(self, source: NoticeSource, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(**kwargs)
        self.source = source
        self.rows: list[tuple[Notice, tuple]] = []  # each line drawn: its notice, and what it shows
        self.where = (0, 0, 0, 0)  # (x, y, width, height) on the screen
        self.size_for = (0, 0)  # the screen size the board was placed for
        self._strips: dict[tuple, Strip] = {}  # a line, by what it shows
        self._styles: dict[str, Style] = {}  # the component styles of the theme they were read in
        self._theme = ""
        self._watching = False  # subscribed to the screen's layouts (while it shows notices)

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._theme_changed())
        self._watch(bool(self.rows))  # notices given before it was mounted

    def on_unmount(self) -> None:
        self.source.forget(self)

    def _theme_changed(self) -> None:
        self._styles.clear()
        self._strips.clear()
        self.refresh()

    # ---- what it shows ------------------------------------------------------------------------------
    def show(self, notices: Sequence[Notice], y: int, size: tuple[int, int]) -> None:
        """Draw these notices, the first one's top row at screen row y, on a screen of this size. Laid out
        again only when it takes other rows or columns; else the lines that differ are repainted."""
        screen_width, _ = size
        width = board_width(screen_width)
        console = self.app.console
        rows: list[tuple[Notice, tuple]] = []
        for note in notices:
            pad = (note.severity, "pad", "", ())
            rows.append((note, pad))
            for kind, line in note.lines(width, console):
                rows.append((note, (note.severity, kind, line.plain, tuple(line.spans))))
            rows.append((note, pad))
        where = (screen_width - RIGHT - width, y, width, len(rows)) if rows else (0, 0, 0, 0)
        before = self.rows
        self.rows = rows
        self.size_for = size
        self._watch(bool(rows))
        if where != self.where:
            self.where = where
            x, y, width, height = where
            self.display = bool(rows)
            if rows:
                self.styles.offset = (x, y)
                self.styles.width = width
                self.styles.height = height
            return
        for i, ((_, was), (_, now)) in enumerate(zip(before, rows, strict=True)):
            if was != now:
                self.refresh(Region(0, i, width, 1))

    def _watch(self, on: bool) -> None:
        """While it shows notices, the board follows the screen's size (the notices sit from its right
        edge and its bottom)."""
        if on == self._watching or not self.is_mounted:
            return
        self._watching = on
        signal = self.screen.screen_layout_refresh_signal
        if on:
            signal.subscribe(self, lambda _screen: self._screen_laid_out())
        else:
            signal.unsubscribe(self)

    def _screen_laid_out(self) -> None:
        if self.rows and tuple(self.app.size) != self.size_for:
            self.source.fit()

    def notice_at(self, y: int) -> Notice | None:
        return self.rows[y][0] if 0 <= y < len(self.rows) else None

    def on_click(self, event: events.Click) -> None:
        event.stop()
        note = self.notice_at(event.y)
        if note is not None:
            self.source.dismiss(note)

    # ---- drawing ------------------------------------------------------------------------------------
    def _style(self, name: str) -> Style:
        if self._theme != self.app.theme:
            self._theme = self.app.theme
            self._styles.clear()
            self._strips.clear()
        style = self._styles.get(name)
        if style is None:
            partial = name != "body"  # the body's is whole: the others are laid over it
            style = self._styles[name] = self.get_component_rich_style(
                f"notice-board--{name}", partial=partial
            )
        return style

    def render_line(self, y: int) -> Strip:
        width = self.where[2]
        if not 0 <= y < len(self.rows):
            return Strip.blank(self.size.width)
        key = self.rows[y][1]
        body = self._style("body")  # first: a new theme empties the caches
        strip = self._strips.get((key, width))
        if strip is None:
            if len(self._strips) > 256:
                self._strips.clear()
            strip = self._strips[(key, width)] = self._draw(key, width, body)
        return strip

    def _draw(self, key: tuple, width: int, body: Style) -> Strip:
        severity, kind, plain, spans = key
        edge = body + self._style(f"edge-{severity}")
        segments = [Segment(EDGE, edge), Segment(" ", body)]
        if kind != "pad":
            base = body + self._style(f"title-{severity}") if kind == "title" else body
            line = Text(plain, spans=list(spans), end="")
            segments += Segment.apply_style(line.render(self.app.console), base)
        return Strip(segments).adjust_cell_length(width, body)
