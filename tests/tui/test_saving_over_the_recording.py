"""Nothing the app saves may go over the recording being written (its transcript or .jsonl): the model,
a screenshot, a lesson. Asking twice does not help; the recording goes on and replays whole."""

import os
from pathlib import Path

from tests.apps import make_app
from tests.tui.helpers import press, status
from tinytui.recording.replay import load_recording
from tinytui.tui.controllers.practice_controller import check_lesson_path
from tinytui.tui.output_paths import check_save_path, check_screenshot_path
from tinytui.tui.screens.save_screen import SaveScreen

REFUSED = "is the recording being written; choose another name"


async def test_saving_the_model_or_a_screenshot_over_the_recording_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = make_app("--record", str(tmp_path / "lesson.txt"))  # an absolute path: typed as ./ below
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "n")
        for typed in ("./lesson.jsonl", str(tmp_path / "lesson.txt")):
            await press(pilot, "ctrl+s")
            assert isinstance(app.screen, SaveScreen)
            app.screen.query_one("#save-path").value = typed
            await press(pilot, "enter", "enter")  # a second Enter overwrote it before
            assert isinstance(app.screen, SaveScreen)
            said = str(app.screen.query_one("#save-message").render())
            assert REFUSED in said and "\n" not in said
            await press(pilot, "escape")
        app.recording.screenshot_as()  # the palette's "Save a screenshot to…"
        await pilot.pause()
        app.screen.query_one("#path-input").value = "lesson.jsonl"
        await press(pilot, "enter", "enter")
        assert REFUSED in str(app.screen.query_one("#path-message").render())
        await press(pilot, "escape", "n")
        assert "● REC 2 events · lesson.txt" in status(app)
    assert [e.kind for e in load_recording(tmp_path / "lesson.txt").events] == ["step", "step"]
    assert (tmp_path / "lesson.jsonl").read_text().startswith('{"format"')


def test_every_output_is_refused_at_the_recording_by_identity(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lesson.txt").write_text("transcript")
    (tmp_path / "lesson.jsonl").write_text("{}")
    os.link(tmp_path / "lesson.jsonl", tmp_path / "same.svg")  # another name, the same file
    busy = (tmp_path / "lesson.txt", tmp_path / "lesson.jsonl")
    assert REFUSED in check_save_path("lesson.txt", (tmp_path / "lesson.txt").resolve(), busy)[1]
    assert REFUSED in check_screenshot_path("same.svg", busy)[1]
    assert REFUSED in check_lesson_path(str(tmp_path / "lesson.jsonl"), busy)[1]
    # another file, or the recording's once it stopped, is asked about as before
    assert check_screenshot_path("other.svg", busy) == (Path("other.svg"), "")
    assert "exists. Press Enter again" in check_screenshot_path("same.svg")[1]
