"""Ask where to save the edited model. Refuses the built-in preset and the recording being written; asks
again before overwriting a file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import Input

from tinytui.tui.output_paths import check_save_path, existing_file
from tinytui.tui.screens.dialog_frame import InputDialog


class SaveScreen(InputDialog[Path | None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss(None)", "Cancel", id="save-cancel")]

    def __init__(
        self, suggestion: str, folder: bool = False, busy: Callable[[], tuple[Path, ...]] = tuple
    ) -> None:
        """busy: the files being written when Enter is pressed (a recording's), never overwritten."""
        # a checkpoint is saved as a checkpoint folder (its tokenizer with it), any other model as a file
        what, again = ("a checkpoint folder", "FOLDER") if folder else ("a model file", "FILE")
        hint = f"Enter saves · Esc cancels · load it back with tinytui --model {again}"
        super().__init__(f"Save the edited model as {what}", suggestion, hint, "save-path", "save-message")
        self.confirmed: Path | None = None
        self.busy = busy

    def on_input_changed(self) -> None:
        self.confirmed = None

    def on_input_submitted(self, event: Input.Submitted) -> None:
        path, why = check_save_path(event.value, self.confirmed, self.busy())
        if path is None:
            # asking once is enough: a second Enter on the same name overwrites
            self.confirmed = existing_file(event.value)
            self.say(why)
            return
        self.dismiss(path)
