"""Ask for a file path: a check says yes, refuses with a reason, or asks once more before overwriting."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

# text -> (path, "") to accept; (path, question) to accept on a second Enter; (None, reason) to refuse
PathCheck = Callable[[str], tuple[Path | None, str]]


class PathScreen(ModalScreen[Path | None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss(None)", "Cancel", id="path-cancel")]
    DEFAULT_CSS = """
    PathScreen { align: center middle; }
    PathScreen > Vertical {
        width: 72; max-width: 95%; height: auto; border: round $accent; background: $surface; padding: 0 1;
    }
    PathScreen #path-message { color: $warning; height: auto; }
    PathScreen .hint { color: $foreground-muted; }
    """

    def __init__(self, title: str, suggestion: str, hint: str, check: PathCheck) -> None:
        super().__init__()
        self.title_text, self.suggestion, self.hint, self.check = title, suggestion, hint, check
        self.asked: str | None = None  # the text whose question was shown: Enter on it again accepts

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.title_text
            yield Input(self.suggestion, id="path-input")
            yield Static("", id="path-message")
            yield Static(f"Enter accepts · Esc cancels · {self.hint}", classes="hint")

    def on_input_changed(self) -> None:
        self.asked = None

    def on_input_submitted(self, event: Input.Submitted) -> None:
        path, message = self.check(event.value)
        if path is not None and (not message or self.asked == event.value):
            self.dismiss(path)
            return
        self.asked = event.value if path is not None else None
        self.query_one("#path-message", Static).update(message)
