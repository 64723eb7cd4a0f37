"""The "terminal too small" screen. Below MIN_SIZE the app covers everything with it: its keys (the app's,
a dialog's, the command palette's) cannot act unseen, and no dialog opens (the app refuses); q quits.
The app's -too-small class also hides what is under it (app.tcss), so no table, list or box is ever laid
out in a few columns, even by Textual tidying up the screens at exit."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widget import Widget

MIN_SIZE = (60, 16)  # below this the app shows this notice instead of cramped tables


def is_too_small(width: int, height: int) -> bool:
    return width < MIN_SIZE[0] or height < MIN_SIZE[1]


def too_small_text(width: int, height: int) -> str:
    return (
        f"tinytui needs a terminal of at least {MIN_SIZE[0]}×{MIN_SIZE[1]} characters; this one is "
        f"{width}×{height}. Make the window larger (or the font smaller). q quits."
    )


class TooSmall(Widget):
    """Says how large the terminal must be (shown only while the app has the -too-small class)."""

    DEFAULT_CSS = "TooSmall { display: none; }"

    def render(self) -> str:
        width, height = self.app.size
        return too_small_text(width, height)


class TooSmallScreen(ModalScreen[None]):
    """On top of every other screen while the terminal is too small; the app removes it when it fits.

    Modal, so no key reaches the screens below it: nothing changes that cannot be seen."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "app.quit", "Quit", id="too-small-quit")]
    DEFAULT_CSS = "TooSmallScreen { background: $background; }"

    def compose(self) -> ComposeResult:
        yield TooSmall(id="too-small")
