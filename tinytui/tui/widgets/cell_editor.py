"""The weight typed into in its own cell of the step view: the text, the caret, the keys that edit it,
how the cell shows it, and the view's side of it.

CellEditing (mixed into StepView) opens a CellEdit over the cell under the cursor with the cell's value
selected (the first key typed replaces it), hands it the keys while it is open (take), commits on Enter
(the app tries the text on the session and may refuse it: the reason goes in the table's bottom border)
and cancels on Esc. The painter draws what shown() gives in the cell's place (typed_pieces).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType

from rich.style import Style
from textual import events

from tinytui.present.step_layout import Box

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


@dataclass(eq=False)
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


class CellEditing:
    """The step view's cell editor: e or Enter on a weight types into its cell; on a token, asks for a
    pick."""

    editor: CellEdit | None
    error: str
    _opened_with: str

    def action_not_editable(self) -> None:
        if self.label is not None:
            message = "A label has nothing to edit: the arrows go back to the numbers."
        else:
            message = (
                "This value is computed from the weights. Edit a weight instead: the tables under "
                "“Weights it uses”, or ctrl+p → Edit parameter…"
            )
        refuse = getattr(self.app, "refuse", None)
        if refuse is not None:
            refuse(message, title="Not editable", severity="warning")
        else:
            self.app.notify(message, title="Not editable", severity="warning")

    @property
    def editing(self) -> bool:
        return self.editor is not None

    def check_consume_key(self, key: str, character: str | None) -> bool:
        """While a cell is typed into, a printable key is text (q, n or m type, they do not act)."""
        return self.editor is not None and character is not None and character.isprintable()

    def action_edit(self) -> None:
        ref = self.ref
        if ref is None:
            self.action_not_editable()
            return
        if ref.kind != "param":
            self.post_message(self.PickRequested(self, ref))
            return
        self.open_editor(self.spec.cells[self.row][self.col].strip())  # type: ignore[union-attr]

    def open_editor(self, value: str) -> None:
        """Type into the cell under the cursor, in its own place: its value is selected (the first key
        typed replaces it); Enter commits, Esc cancels."""
        self.error = ""
        self.editor = CellEdit(value, len(value))
        self._opened_with = value
        self._refresh_cursor_line()
        self._refresh_bottom()
        self.refresh_bindings()
        self._cursor_moved()  # the inspector says how to finish

    def close_editor(self, refocus: bool = True, tell: bool = True) -> None:
        """tell=False: the app is not told the cursor's cell changed (a commit: the app redraws and
        inspects everything once the session has the value)."""
        editor, self.editor = self.editor, None
        self.error = ""
        if editor is not None:
            self._refresh_cursor_line()
            self._refresh_bottom()
            self.refresh_bindings()
            if tell:
                self._cursor_moved()
        if refocus and not self.has_focus:
            self.focus()

    def _refresh_cursor_line(self) -> None:
        box = self.cursor_box
        if box is not None:
            self._refresh_box_line(box, box.first_row + self.row)

    def _refresh_bottom(self) -> None:
        box = self.cursor_box
        if box is not None:
            self._refresh_box_line(box, box.height - 1)

    def cancel_edit(self) -> None:
        self.close_editor()

    def action_cancel_edit(self) -> None:
        self.close_editor()

    def action_commit(self) -> None:
        if self.editor is not None:
            self.submit(self.editor.text)

    def edit_refused(self, message: str) -> None:
        """The session said no: the editor stays open, the reason in its table's bottom border."""
        self.error = message
        self._refresh_bottom()

    def submit(self, text: str) -> None:
        """The editor's Enter: the app tries the text on the session (edit_refused says no). The text as
        the editor opened with it changes nothing: the cell shows its value to four places, and Enter on
        it must not round the weight (nor make an entry to undo)."""
        if text == self._opened_with:
            self.close_editor()
            return
        ref = self.ref
        if ref is not None:
            self.post_message(self.EditSubmitted(self, ref, text))

    def on_key(self, event: events.Key) -> None:
        """While a cell is typed into, the keys edit it: characters, Backspace, Delete, the arrows along
        the text, Home and End (ctrl+a, ctrl+e), ctrl+u and ctrl+k; Enter commits and Esc cancels.
        Other keys do nothing meanwhile."""
        editor = self.editor
        if editor is None:
            return
        event.stop()
        event.prevent_default()
        if event.key == "enter":
            self.submit(editor.text)
        elif event.key == "escape":
            self.close_editor()
        elif editor.take(event.key, event.character):
            self._typed_into()

    def _typed_into(self) -> None:
        """The editor's text or caret changed: its line is drawn again (and a refusal's reason goes:
        what was refused is being corrected)."""
        if self.error:
            self.error = ""
            self._refresh_bottom()
        self._refresh_cursor_line()

    def on_paste(self, event: events.Paste) -> None:
        if self.editor is not None:
            event.stop()
            self.editor.typed(" ".join(event.text.split()))  # one line: a pasted newline is a space
            self._refresh_cursor_line()

    def _note(self) -> tuple[str, str] | None:
        """What the editor says in its table's bottom border, while a cell is typed into."""
        if self.editor is None:
            return None
        ref = self.ref
        return editor_note(self.error, ref.label if ref else "")

    def _typed_on(self, box: Box, cursor: tuple[int, int] | None) -> Shown | None:
        """What the editor shows in the cursor's cell, on the cursor's line while a weight is typed."""
        if cursor is None or self.editor is None or box.shape is None or self.col < 0:
            return None
        return self.editor.shown(box.shape.widths[self.col] + 1)  # the number's place and its mark's
