"""Ask where to save the edited model. Refuses the built-in preset; asks again before overwriting a file."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import Input

from tinytui.model.files import default_model_path
from tinytui.screens.dialog import InputDialog


def target_path(text: str) -> Path:
    path = Path(text.strip()).expanduser()
    return path if path.suffix else path.with_suffix(".json")


def check_save_path(text: str, confirmed: Path | None) -> tuple[Path | None, str]:
    """(path, "") when the file may be written now, else (None, the reason or the question to confirm).

    confirmed is an existing file the user already agreed to overwrite (by pressing Enter twice).
    """
    if not text.strip():
        return None, "Type a file name, e.g. edited.json"
    path = target_path(text)
    resolved = path.resolve()
    preset = default_model_path().resolve()
    if resolved == preset or resolved.parent == preset.parent:
        return (
            None,
            "That is the built-in preset's folder: the preset is never overwritten. Choose another path.",
        )
    if resolved.is_dir():
        return None, f"{path} is a folder; add a file name"
    if not resolved.parent.is_dir():
        return None, f"There is no folder {resolved.parent}"
    if resolved.exists() and resolved != confirmed:
        return None, f"{path} exists. Press Enter again to overwrite it, or change the name."
    return path, ""


class SaveScreen(InputDialog[Path | None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss(None)", "Cancel", id="save-cancel")]

    def __init__(self, suggestion: str) -> None:
        hint = "Enter saves · Esc cancels · load it back with tinytui --model FILE"
        super().__init__(
            "Save the edited model as a model file", suggestion, hint, "save-path", "save-message"
        )
        self.confirmed: Path | None = None

    def on_input_changed(self) -> None:
        self.confirmed = None

    def on_input_submitted(self, event: Input.Submitted) -> None:
        path, why = check_save_path(event.value, self.confirmed)
        if path is None:
            existing = target_path(event.value).resolve() if event.value.strip() else None
            # asking once is enough: a second Enter on the same name overwrites
            self.confirmed = existing if existing is not None and existing.is_file() else None
            self.say(why)
            return
        self.dismiss(path)
