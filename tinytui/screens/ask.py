"""Ask for one value (a learning rate, a number of steps): Enter tries it, a refusal is shown in place."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class AskScreen(ModalScreen[bool]):
    """submit(text) makes the change and returns None, or returns why it refused (the box stays open).

    Dismisses with True once a value was taken, False on Esc.
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss(False)", "Cancel", id="ask-cancel")]
    DEFAULT_CSS = """
    AskScreen { align: center middle; }
    AskScreen > Vertical {
        width: 72; max-width: 95%; height: auto; border: round $accent; background: $surface; padding: 0 1;
    }
    AskScreen #ask-message { color: $error; height: auto; }
    AskScreen .hint { color: $foreground-muted; }
    """

    def __init__(self, title: str, value: str, hint: str, submit: Callable[[str], str | None]) -> None:
        super().__init__()
        self.title_text, self.value, self.hint, self.submit = title, value, hint, submit
        self.message = ""  # the last refusal, for tests

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.title_text
            yield Input(self.value, id="ask-value", select_on_focus=True)
            yield Static("", id="ask-message")
            yield Static(f"{self.hint} · Enter takes it · Esc cancels", classes="hint")

    def on_input_changed(self) -> None:
        self._say("")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        why = self.submit(event.value)
        if why is None:
            self.dismiss(True)
        else:
            self._say(f"✗ {why}")

    def _say(self, message: str) -> None:
        self.message = message
        self.query_one("#ask-message", Static).update(message)
