"""Ask where to save the edited model. Refuses the built-in preset; asks again before overwriting a file."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from model.files import default_model_path


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


class SaveScreen(ModalScreen[Path | None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss(None)", "Cancel", id="save-cancel")]
    DEFAULT_CSS = """
    SaveScreen { align: center middle; }
    SaveScreen > Vertical {
        width: 72; max-width: 95%; height: auto; border: round $accent; background: $surface; padding: 0 1;
    }
    SaveScreen #save-message { color: $warning; height: auto; }
    SaveScreen .hint { color: $foreground-muted; }
    """

    def __init__(self, suggestion: str) -> None:
        super().__init__()
        self.suggestion = suggestion
        self.confirmed: Path | None = None

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Save the edited model as a model file"
            yield Input(self.suggestion, id="save-path")
            yield Static("", id="save-message")
            yield Static("Enter saves · Esc cancels · load it back with tinytui --model FILE", classes="hint")

    def on_input_changed(self) -> None:
        self.confirmed = None

    def on_input_submitted(self, event: Input.Submitted) -> None:
        path, why = check_save_path(event.value, self.confirmed)
        if path is None:
            existing = target_path(event.value).resolve() if event.value.strip() else None
            # asking once is enough: a second Enter on the same name overwrites
            self.confirmed = existing if existing is not None and existing.is_file() else None
            self.query_one("#save-message", Static).update(why)
            return
        self.dismiss(path)
