"""Choose one item from a short list (a token, the target, a parameter). Esc cancels."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option


class PickScreen(ModalScreen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss(None)", "Cancel", id="pick-cancel")]
    DEFAULT_CSS = """
    PickScreen { align: center middle; }
    PickScreen > Vertical {
        width: 60; max-width: 95%; height: auto; max-height: 90%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    PickScreen OptionList { height: auto; max-height: 20; }
    PickScreen .hint { color: $foreground-muted; }
    """

    def __init__(self, title: str, choices: list[tuple[str, str]], current: str | None = None) -> None:
        """choices: (value, what the user reads)."""
        super().__init__()
        self.title_text = title
        self.choices = choices
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.title_text
            # a label is plain text: a token may look like markup ('[/]', '[b]bold')
            yield OptionList(*(Option(Content(label), id=value) for value, label in self.choices))
            yield Static("↑↓ choose · Enter picks · Esc cancels", classes="hint")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        values = [v for v, _ in self.choices]
        if self.current in values:
            options.highlighted = values.index(self.current)
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)
