"""Ask for one value (a learning rate, a number of steps): Enter tries it, a refusal is shown in place."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import Input

from tinytui.tui.screens.dialog_frame import InputDialog


class AskScreen(InputDialog[bool]):
    """submit(text) makes the change and returns None, or returns why it refused (the box stays open).

    Dismisses with True once a value was taken, False on Esc.
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss(False)", "Cancel", id="ask-cancel")]
    DEFAULT_CSS = "AskScreen #ask-message { color: $error; }"

    def __init__(
        self,
        title: str,
        value: str,
        hint: str,
        submit: Callable[[str], str | None],
        select_on_focus: bool = True,
    ) -> None:
        words = f"{hint} · Enter takes it · Esc cancels"
        super().__init__(title, value, words, "ask-value", "ask-message", select_on_focus)
        self.submit = submit

    def on_input_changed(self) -> None:
        self.say("")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        why = self.submit(event.value)
        if why is None:
            self.dismiss(True)
        else:
            self.say(f"✗ {why}")
