"""The app's notices, drawn in a line of their own above the footer (in place of Textual's toasts).

The line is always there and always the same size (one row on a short terminal, two on a taller one,
app.tcss), so a notice shown or taken away repaints the line's own rows and nothing else: nothing is
laid out again and no table's number is ever covered. The newest notice comes first: a coloured edge by
severity, its title in bold, then its message, wrapped to the line's width; older live notices fill the
rows left ("· 1 more: M" says how many found none). A notice cut short ends with "… M: more": the notice log
(tinytui.tui.screens.notice_log_screen) shows every notice of the session whole. Which notices are live,
and for how long, is tinytui.tui.toasts's. A click on a notice takes it away.
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
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from tinytui.report.tables import on_screen_text

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.timer import Timer

EDGE = "▌"  # the coloured left edge
CUT = "… M: more"  # the end of a notice cut short: M opens the notice log, where it is whole
SEVERITIES = ("information", "warning", "error")
KEPT_LINES = 256  # lines drawn, kept by what they show (a notice shown again draws nothing)


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
    when: str = ""  # the wall-clock time it was raised (HH:MM:SS), for the notice log
    timer: Timer | None = field(default=None, repr=False)
    _lines: dict[tuple[int, Style], list[Text]] = field(default_factory=dict, repr=False)

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

    def lines(self, width: int, console: Console, title: Style) -> list[Text]:
        """Its title and message as one paragraph (the message's line breaks as wide gaps), wrapped to
        this many columns."""
        kept = self._lines.get((width, title))
        if kept is None:
            line = Text(end="")
            if self.title:
                line.append(self.title, title)
                line.append("  ")
            body = self.text(console)
            for i, part in enumerate(body.split("\n", allow_blank=False)):
                if i:
                    line.append("  ")
                line.append_text(part)
            out = list(line.wrap(console, max(width, 1)))
            for piece in out:
                piece.rstrip()
            kept = self._lines[(width, title)] = out or [Text()]
        return kept

    def taken_away(self) -> None:
        """No line draws it any more (the log writes it anew from its message): its wrapped lines go,
        so the log's notices hold their words and nothing drawn."""
        self._lines.clear()


def cut_short(line: Text, width: int, end: str = CUT) -> Text:
    """A line shown last when more follows: as much of it as fits before the end, then the end."""
    out = line.copy()
    if out.cell_len + len(end) > width:
        out.truncate(max(width - len(end), 0))
        out.rstrip()
    out.append(end)
    return out


def more_notices(hidden: int) -> str:
    """The end of the last row when whole notices are left out: how many, and the key that shows them."""
    return f"  · {hidden} more: M"


class NoticeSource(Protocol):
    """What the line draws: tinytui.tui.toasts.Toasts."""

    def dismiss(self, notice: Notice) -> None: ...  # a click on it
    def forget(self, line: NoticeLine) -> None: ...  # the line is gone with its screen


class NoticeLine(Widget):
    """The live notices, newest first, in the rows the line has (its height is set by app.tcss)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "notice-line--body",
        *(f"notice-line--edge-{s}" for s in SEVERITIES),
        *(f"notice-line--title-{s}" for s in SEVERITIES),
    }

    DEFAULT_CSS = """
    NoticeLine { height: 1; width: 1fr; background: $panel; }
    NoticeLine > .notice-line--body { background: $panel; color: $foreground; }
    NoticeLine > .notice-line--edge-information { color: $success; }
    NoticeLine > .notice-line--edge-warning { color: $warning; }
    NoticeLine > .notice-line--edge-error { color: $error; }
    NoticeLine > .notice-line--title-information { color: $text-success; text-style: bold; }
    NoticeLine > .notice-line--title-warning { color: $text-warning; text-style: bold; }
    NoticeLine > .notice-line--title-error { color: $text-error; text-style: bold; }
    """

    def __init__(self, source: NoticeSource, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(**kwargs)
        self.source = source
        self.notices: tuple[Notice, ...] = ()  # the live notices, newest first
        self.rows: list[tuple[Notice | None, tuple]] = []  # each row drawn: its notice, what it shows
        self._strips: dict[tuple, Strip] = {}  # a row, by what it shows
        # a notice's wrapped lines by what it says: b and Esc raise the same two notices in turn
        self._wrapped: LRUCache[tuple, list[Text]] = LRUCache(16)
        self._styles: dict[str, Style] = {}  # the component styles of the theme they were read in
        self._theme = ""

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._theme_changed())

    def on_unmount(self) -> None:
        self.source.forget(self)

    def on_resize(self) -> None:
        # the first frame may be painted before the line knows its size: draw again what it shows now
        self.rows = self._rows(self.size)
        self.refresh()

    def _theme_changed(self) -> None:
        self._styles.clear()
        self._strips.clear()
        self._wrapped.clear()
        self.rows = self._rows(self.size)
        self.refresh()

    # ---- what it shows ------------------------------------------------------------------------------
    def show(self, notices: Sequence[Notice]) -> None:
        """Show these notices (newest first): the rows that say something else are repainted, no more."""
        self.notices = tuple(notices)
        if not self.is_mounted:
            return
        before, self.rows = self.rows, self._rows(self.size)
        width = self.size.width
        for y, ((_, was), (_, now)) in enumerate(zip(before, self.rows, strict=False)):
            if was != now:
                self.refresh(Region(0, y, width, 1))

    def _rows(self, size: Size) -> list[tuple[Notice | None, tuple]]:
        """What each of the line's rows shows: the notices' wrapped lines, newest first, as many as fit;
        the last row of a notice cut short ends with CUT."""
        width, height = size
        room = width - 2  # the edge and a space
        console = self.app.console
        rows: list[tuple[Notice | None, Text]] = []
        cut, hidden = False, 0  # the last notice shown is cut short; notices with no row left
        for note in self.notices:
            left = height - len(rows)
            if not left:
                hidden += 1
                continue
            title = self._style(f"title-{note.severity}")
            key = (note.title, note.message, note.markup, room, title)
            lines = self._wrapped.get(key)
            if lines is None:
                lines = self._wrapped[key] = note.lines(room, console, title)
            cut = len(lines) > left
            rows += [(note, line) for line in lines[:left]]
        if (cut or hidden) and rows:
            note, line = rows[-1]
            rows[-1] = (note, cut_short(line, room, CUT if cut else more_notices(hidden)))
        drawn: list[tuple[Notice | None, tuple]] = [
            (note, (note.severity, line.plain, tuple(line.spans))) for note, line in rows if note is not None
        ]
        return drawn + [(None, ())] * (height - len(drawn))

    def text(self) -> str:
        """What the line says, a row a line (tests and transcripts)."""
        return "\n".join(self.render_line(y).text.rstrip() for y in range(self.size.height))

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
            style = self.get_component_rich_style(f"notice-line--{name}", partial=partial)
            self._styles[name] = style
        return style

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        body = self._style("body")  # first: a new theme empties the caches
        key = self.rows[y][1] if 0 <= y < len(self.rows) else ()
        strip = self._strips.get((key, width))
        if strip is None:
            if len(self._strips) >= KEPT_LINES:
                self._strips.clear()
            strip = self._strips[(key, width)] = self._draw(key, width, body)
        return strip

    def _draw(self, key: tuple, width: int, body: Style) -> Strip:
        if not key:
            return Strip.blank(width, body)
        severity, plain, spans = key
        segments = [Segment(EDGE, body + self._style(f"edge-{severity}")), Segment(" ", body)]
        line = Text(plain, spans=list(spans), end="")
        segments += Segment.apply_style(line.render(self.app.console), body)
        return Strip(segments).adjust_cell_length(width, body)
