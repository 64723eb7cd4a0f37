"""q followed at once by another key (a double tap) exits cleanly; q with edits not saved asks first."""

import pytest
from textual import events

from tests.apps import make_app
from tinytui.tui.screens.confirm_screen import ConfirmScreen
from tinytui.tui.screens.save_screen import SaveScreen

AT_ONCE = ["b", "W", "n", "d", "m", "v", "p", "question_mark", "z", "ctrl+p"]


async def keys_at_once(app, pilot, *keys: str, rounds: int = 200) -> None:
    """Post the keys to the app together, as a terminal sends a double tap, and let it run until it
    has exited (or the rounds run out)."""
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else None))
    for _ in range(rounds):
        if not app.is_running:
            return
        await pilot.pause()


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
@pytest.mark.parametrize("key", AT_ONCE)
async def test_q_then_another_key_at_once_exits_cleanly(key, size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await keys_at_once(app, pilot, "q", key)
        assert not app.is_running
    assert app.return_code == 0
    assert app.crash_report is None


async def test_q_with_edited_weights_asks_and_n_keeps_the_app():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("L")  # one learning step: every weight edited, nothing saved
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert "not saved" in app.screen.question and "weights" in app.screen.question
        await pilot.press("n")
        await pilot.pause()
        assert app.is_running and not isinstance(app.screen, ConfirmScreen)
        await pilot.press("q")
        await pilot.pause()
        await keys_at_once(app, pilot, "y", "b")  # yes, and a key typed at once after it
        assert not app.is_running
    assert app.return_code == 0 and app.crash_report is None


async def test_q_after_saving_leaves_without_asking(tmp_path):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("L")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, SaveScreen)
        await pilot.press("enter")  # the suggested name, in the test's folder (conftest)
        await pilot.pause()
        assert (tmp_path / "chapter17-edited.json").exists()
        await keys_at_once(app, pilot, "q")
        assert not app.is_running
    assert app.return_code == 0


async def test_an_edit_after_saving_asks_again():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("L", "ctrl+s")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("L", "q")  # a second learning step, not saved
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)


async def test_q_on_the_file_as_loaded_leaves_without_asking():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("m")  # a switch is not a weight: nothing to save
        await pilot.pause()
        await keys_at_once(app, pilot, "q")
        assert not app.is_running
    assert app.return_code == 0
