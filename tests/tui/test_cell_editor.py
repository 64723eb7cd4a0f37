"""The cell editor's keys, as a shell's line edits: the text and the caret each key leaves."""

from __future__ import annotations

import pytest

from tinytui.tui.widgets.cell_editor import CellEdit


def edit(keys: list[str], text: str = "0.5000") -> tuple[str, int, bool]:
    editor = CellEdit(text, len(text))
    for key in keys:
        if not editor.key(key):
            editor.typed(key)
    return editor.text, editor.caret, editor.selected


@pytest.mark.parametrize(
    ("keys", "after"),
    [
        (["1"], ("1", 1, False)),  # the first key typed replaces the selected value
        (["backspace"], ("", 0, False)),
        (["delete"], ("", 0, False)),
        (["ctrl+u"], ("", 0, False)),
        (["ctrl+k"], ("", 0, False)),
        (["left", "9"], ("90.5000", 1, False)),  # left on a selection: the caret at its start
        (["home", "9"], ("90.5000", 1, False)),
        (["right", "9"], ("0.50009", 7, False)),  # right on a selection: at its end
        (["ctrl+e", "left", "left", "backspace"], ("0.500", 3, False)),
        (["end", "left", "left", "delete"], ("0.500", 4, False)),
        (["ctrl+a", "right", "right", "ctrl+u"], ("5000", 0, False)),
        (["ctrl+a", "right", "right", "ctrl+k"], ("0.", 2, False)),
        (["home", "backspace", "left"], ("0.5000", 0, False)),  # nothing before the caret: nothing goes
        (["end", "delete", "right"], ("0.5000", 6, False)),  # nothing after it
        (["home", "end", "home"], ("0.5000", 0, False)),
    ],
)
def test_each_key_leaves_the_text_and_caret_a_shell_line_would(keys, after):
    assert edit(keys) == after


def test_a_key_that_does_not_edit_is_left_to_the_view():
    editor = CellEdit("0.5", 3)
    assert not editor.take("tab", None)
    assert not editor.take("up", None)
    assert (editor.text, editor.caret, editor.selected) == ("0.5", 3, True)
    assert editor.take("minus", "-") and editor.text == "-"


def test_a_long_text_shows_its_end_and_the_caret_stays_in_the_cell():
    editor = CellEdit("", 0)
    editor.typed("0.123456789")
    assert editor.shown(6) == ("56789 ", 5, False)  # the caret after the last character
    for _ in range(9):
        editor.key("left")
    assert editor.shown(6) == ("123456", 0, False)
