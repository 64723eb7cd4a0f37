"""Ask for a file path: a check says yes, refuses with a reason, or asks once more before overwriting."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import Input

from tinytui.tui.screens.dialog_frame import InputDialog

# text -> (path, "") to accept; (path, question) to accept on a second Enter; (None, reason) to refuse
PathCheck = Callable[[str], tuple[Path | None, str]]


class PathScreen(InputDialog[Path | None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss(None)", "Cancel", id="path-cancel")]

    def __init__(self, title: str, suggestion: str, hint: str, check: PathCheck) -> None:
        super().__init__(
            title, suggestion, f"Enter accepts · Esc cancels · {hint}", "path-input", "path-message"
        )
        self.check = check
        self.asked: str | None = None  # the text whose question was shown: Enter on it again accepts

    def on_input_changed(self) -> None:
        self.asked = None

    def on_input_submitted(self, event: Input.Submitted) -> None:
        path, message = self.check(event.value)
        if path is not None and (not message or self.asked == event.value):
            self.dismiss(path)
            return
        self.asked = event.value if path is not None else None
        self.say(message)
