"""The notice log (M, or the palette's "Notices"): every notice of the session whole, newest first.

The notice line above the footer has a row or two; a notice longer than that ends there with "… M:
more", and here it is in full, with its title, its time and its severity's colour, including the ones
whose time is up.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tinytui.tui.widgets.notice_line import Notice

UNTITLED = (("information", "Note"), ("warning", "Warning"), ("error", "Error"))  # a notice with no title
EMPTY = "No notices yet. What a key did, or why it was refused, is written here as well as above the footer."


class NoticeLogScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,M", "dismiss", "Close", id="notices-close"),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "notice-log--time",
        "notice-log--information",
        "notice-log--warning",
        "notice-log--error",
    }
    DEFAULT_CSS = """
    NoticeLogScreen { align: center middle; }
    NoticeLogScreen > VerticalScroll {
        width: 100; max-width: 98%; height: 90%; border: round $accent; background: $surface; padding: 0 1;
    }
    NoticeLogScreen > .notice-log--time { color: $foreground-muted; }
    NoticeLogScreen > .notice-log--information { color: $text-success; text-style: bold; }
    NoticeLogScreen > .notice-log--warning { color: $text-warning; text-style: bold; }
    NoticeLogScreen > .notice-log--error { color: $text-error; text-style: bold; }
    """

    def __init__(self, notices: Sequence[Notice]) -> None:
        super().__init__()
        self.notices = list(notices)[::-1]  # newest first

    def compose(self) -> ComposeResult:
        with VerticalScroll() as box:
            box.border_title = "Notices, newest first — Esc, q or M closes"
            yield Static(id="notice-log")

    def on_mount(self) -> None:
        self.query_one("#notice-log", Static).update(self.text())
        self.query_one(VerticalScroll).focus()  # the arrows and PageDown scroll a long log

    def text(self) -> Text:
        """Each notice: its time and title on a line, then its message as raised, a blank line after."""
        if not self.notices:
            return Text(EMPTY)
        out = Text()
        time_style = self.get_component_rich_style("notice-log--time", partial=True)
        for i, note in enumerate(self.notices):
            if i:
                out.append("\n\n")
            out.append(f"{note.when}  ", time_style)
            untitled = next(word for severity, word in UNTITLED if severity == note.severity)
            out.append(note.title or untitled, self._severity(note.severity))
            out.append("\n")
            out.append_text(note.text(self.app.console))
        return out

    def _severity(self, severity: str) -> Style:
        return self.get_component_rich_style(f"notice-log--{severity}", partial=True)
