"""Nothing typed with a control character reaches a file name, a notice, the transcript or the terminal:
a path with ESC, BEL, a tab or a right-to-left override is refused in the box (numbers and tokens already
are: a number is echoed as its repr, a token must be in the vocabulary)."""

import pytest
from textual import events

from tests.apps import make_app
from tinytui.tui.output_paths import check_record_path, check_save_path, check_screenshot_path

NAMES = ["x\x1b[31mred", "bell\x07", "tab\there", "\u202etxt.exe", "cr\rlf", "del\x7f"]


@pytest.mark.parametrize("name", NAMES)
def test_typed_paths_with_control_characters_are_refused(name):
    for check in (check_record_path, check_screenshot_path, lambda t: check_save_path(t, None)):
        path, why = check(name)
        assert path is None and "control or invisible character" in why
        assert why.isprintable()


def test_printable_names_from_other_scripts_are_fine():
    assert check_record_path("½ ١٢ lesson")[0] is not None


@pytest.mark.parametrize("key", ["ctrl+t", "ctrl+s"])
async def test_a_pasted_escape_sequence_writes_nothing(key, tmp_path):
    app = make_app("--record", "lesson.txt")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("ctrl+t")  # stop the recording, so ctrl+t asks for a new one
        await pilot.press(key)
        app.focused.post_message(events.Paste("\x1b[2Jname\x07"))
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert "control or invisible character" in app.screen.message
        await pilot.press("escape", "n", "m")
    assert {p.name for p in tmp_path.iterdir()} <= {"lesson.txt", "lesson.jsonl", "config"}
    for name in ("lesson.txt", "lesson.jsonl"):
        text = (tmp_path / name).read_text()
        assert all(c.isprintable() or c == "\n" for c in text), name
