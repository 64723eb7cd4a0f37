"""Quitting while recorded events are held only in memory (the recording's file could not be written)
asks where to save them first; Esc asks before losing them; a recording on disk quits at once."""

from tests.apps import make_app
from tests.tui.helpers import press, status
from tinytui.recording.replay import load_recording
from tinytui.tui.screens.confirm_screen import ConfirmScreen
from tinytui.tui.screens.path_screen import PathScreen


def in_memory_app(tmp_path):
    return make_app("--record", str(tmp_path / "no such folder" / "lesson.txt"))


async def until_closed(app, pilot, rounds: int = 100) -> None:
    for _ in range(rounds):
        if not app.is_running:
            return
        await pilot.pause()


async def test_q_asks_where_to_save_events_held_in_memory_and_saves_them_all(tmp_path):
    app = in_memory_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await press(pilot, "n", "n")
        assert "● REC 2 events · in memory only" in status(app)
        await press(pilot, "q")
        assert isinstance(app.screen, PathScreen) and app.is_running
        assert app.screen.title_text == "Save the 2 recorded events before quitting…"
        app.screen.query_one("#path-input").value = str(tmp_path / "kept.txt")
        await press(pilot, "enter")
        await until_closed(app, pilot)
        assert not app.is_running
    assert app.return_code == 0
    text = (tmp_path / "kept.txt").read_text(encoding="utf-8")
    assert "recording stopped after 2 events" in text
    assert [str(e.kind) for e in load_recording(tmp_path / "kept.txt").events] == ["step", "step"]


async def test_esc_asks_before_losing_them_and_no_stays(tmp_path):
    app = in_memory_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await press(pilot, "n", "q", "escape")
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.question == "Quit and lose the 1 recorded event held only in memory?"
        await press(pilot, "n")
        assert app.is_running and not isinstance(app.screen, (ConfirmScreen, PathScreen))
        await press(pilot, "q", "escape", "y")
        await until_closed(app, pilot)
        assert not app.is_running
    assert app.return_code == 0 and sorted(p.name for p in tmp_path.iterdir()) == []


async def test_a_path_that_cannot_be_used_keeps_the_app_open(tmp_path):
    (tmp_path / "taken.txt").write_text("kept\n", encoding="utf-8")
    app = in_memory_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await press(pilot, "n", "q")
        app.screen.query_one("#path-input").value = str(tmp_path / "taken.txt")
        await press(pilot, "enter")
        assert isinstance(app.screen, PathScreen)  # refused in the box: a recording replaces nothing
        assert "taken.txt exists" in str(app.screen.query_one("#path-message").render())
    assert (tmp_path / "taken.txt").read_text(encoding="utf-8") == "kept\n"


async def test_a_recording_on_disk_quits_at_once(tmp_path):
    app = make_app("--record", str(tmp_path / "lesson.txt"))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await press(pilot, "n", "q")
        await until_closed(app, pilot)
        assert not app.is_running
    assert "recording stopped after 1 event" in (tmp_path / "lesson.txt").read_text(encoding="utf-8")
