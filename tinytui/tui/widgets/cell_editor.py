"""The weight typed into in its own cell of the step view: the text, the caret, the keys that edit it, and
how the cell shows it.

The step view opens a CellEdit over the cell under the cursor with the cell's value selected (the first
key typed replaces it), hands it the keys while it is open (take), and draws what shown() gives in the
cell's place (typed_pieces). Enter and Esc are the view's: they commit or cancel.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType

from rich.style import Style

# what the cell shows, the caret's column in it (None: all selected), whether all is selected
Shown = tuple[str, int | None, bool]


def _backspace(text: str, caret: int) -> tuple[str, int]:
    return (text[: caret - 1] + text[caret:], caret - 1) if caret else (text, caret)


def _delete(text: str, caret: int) -> tuple[str, int]:
    return text[:caret] + text[caret + 1 :], caret


def _cut_before(text: str, caret: int) -> tuple[str, int]:
    return text[caret:], 0  # as a shell's line: ctrl+u takes what is before the caret


def _cut_after(text: str, caret: int) -> tuple[str, int]:
    return text[:caret], caret  # and ctrl+k what is after it


# keys that change the text: the new (text, caret) from the old, when the text is not all selected
_EDITS: MappingProxyType[str, Callable[[str, int], tuple[str, int]]] = MappingProxyType(
    {"backspace": _backspace, "delete": _delete, "ctrl+u": _cut_before, "ctrl+k": _cut_after}
)
_MOVES = MappingProxyType({"left": -1, "right": 1, "home": "start", "end": "end"})
_SAME_AS = MappingProxyType({"ctrl+a": "home", "ctrl+e": "end"})


@dataclass
class CellEdit:
    """What is typed into the cell under the cursor: the text, where the caret is, and whether the whole
    text is still selected (as it is when the editor opens: the first key typed replaces it)."""

    text: str
    caret: int
    selected: bool = True

    def take(self, key: str, character: str | None) -> bool:
        """A key while the cell is typed into: whether it changed the text or moved the caret (Tab, the
        up and down arrows or a function key do nothing)."""
        if self.key(key):
            return True
        if character is not None and character.isprintable():
            self.typed(character)
            return True
        return False

    def typed(self, chars: str) -> None:
        if self.selected:
            self.text, self.caret, self.selected = "", 0, False
        self.text = self.text[: self.caret] + chars + self.text[self.caret :]
        self.caret += len(chars)

    def key(self, key: str) -> bool:
        """A key that moves the caret or deletes: whether it was one."""
        key = _SAME_AS.get(key, key)
        edit = _EDITS.get(key)
        if edit is not None:
            self.text, self.caret = ("", 0) if self.selected else edit(self.text, self.caret)
        elif key in _MOVES:
            self.caret = self._moved(_MOVES[key])
        else:
            return False
        self.selected = False
        return True

    def _moved(self, move: int | str) -> int:
        """Where the caret goes: a selected text gives way at its start (left, home) or its end."""
        if move == "start" or (self.selected and move == -1):
            return 0
        if move == "end" or self.selected:
            return len(self.text)
        return min(max(self.caret + int(move), 0), len(self.text))

    def shown(self, width: int) -> Shown:
        """(what the cell shows, width columns: the end of a long text; the caret's column in it, or
        None when all is selected; whether all is selected)."""
        text = self.text + " "  # room for the caret after the last character
        start = max(0, min(self.caret, len(text) - width)) if len(text) > width else 0
        if self.caret - start >= width:
            start = self.caret - width + 1
        part = text[start : start + width].ljust(width)
        return part, None if self.selected else self.caret - start, self.selected


def typed_pieces(shown: Shown, ground: Style, editing: Style, caret_on: Style) -> list[tuple[str, Style]]:
    """The cell being typed into as (text, style) pieces: its lead, then the text with the caret (or all
    of it selected)."""
    text, caret, selected = shown
    if selected:
        value = text.rstrip()
        return [(" ", ground), (value, editing + caret_on), (text[len(value) :], editing)]
    assert caret is not None
    return [
        (" ", ground),  # the lead stays plain: the row's label never runs into what is typed
        (text[:caret], editing),
        (text[caret], editing + caret_on),
        (text[caret + 1 :], editing),
    ]


def editor_note(error: str, label: str) -> tuple[str, str]:
    """What the editor says in its table's bottom border (text, the style's name): a refusal's reason,
    or its keys."""
    if error:
        return f"✗ {error}", "error"
    return f"{label}: Enter commits · Esc cancels", "hint"


def editor_detail(label: str) -> str:
    """What the inspector says while a weight is typed into: how to finish."""
    return f"{label} ← a number (0.5, −1, 1e-3 or 1/2) · Enter commits · Esc cancels"
