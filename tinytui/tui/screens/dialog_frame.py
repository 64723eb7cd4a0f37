"""The frame the one-line dialogs share (a value, a path to save to): a titled box with an input, a line
for a refusal or a question, and a hint. Subclasses name the parts (tests find them by id), bind Esc and
handle Input.Submitted."""

from __future__ import annotations

from typing import TypeVar

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from tinytui.model.checks import short_values

Result = TypeVar("Result")


class InputDialog(ModalScreen[Result]):
    DEFAULT_CSS = """
    InputDialog { align: center middle; }
    InputDialog > Vertical {
        width: 72; max-width: 95%; height: auto; border: round $accent; background: $surface; padding: 0 1;
    }
    InputDialog .message { color: $warning; height: auto; }
    InputDialog .hint { color: $foreground-muted; }
    """

    def __init__(
        self, title: str, value: str, hint: str, input_id: str, message_id: str, select_on_focus: bool = True
    ) -> None:
        """select_on_focus: the value is selected when the box opens (the first key typed replaces it);
        False when the value is what was typed already, so the keys after it go on from its end."""
        super().__init__()
        self.title_text, self.value, self.hint = title, value, hint
        self.input_id, self.message_id = input_id, message_id
        self.select_on_focus = select_on_focus
        self.message = ""  # what the message line shows, for tests

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.title_text
            yield Input(self.value, id=self.input_id, select_on_focus=self.select_on_focus)
            # plain text: a refusal repeats what was typed ("[/]" would be a markup error)
            yield Static("", id=self.message_id, classes="message", markup=False)
            yield Static(self.hint, classes="hint", markup=False)

    def say(self, message: str) -> None:
        """Show a refusal or a question under the input; a long value it repeats is cut (short_values)."""
        message = short_values(message)
        self.message = message
        self.query_one(f"#{self.message_id}", Static).update(message)
