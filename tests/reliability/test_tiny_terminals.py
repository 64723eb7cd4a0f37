"""Below 60×16 a notice covers every screen: the main one, each dialog and the command palette. No key
acts on what cannot be seen, no dialog opens, and nothing is laid out in a few columns (which crashed
Textual's option list at 20×6)."""

import pytest
from textual.command import CommandPalette

from tests.apps import make_app
from tinytui.tui.screens.pick_screen import PickScreen
from tinytui.tui.screens.too_small_screen import TooSmallScreen
from tinytui.tui.widgets.step_list import StepList

SMALL = [(20, 6), (40, 12), (59, 40), (120, 15)]


async def keys(pilot, *names: str) -> None:
    for name in names:
        await pilot.press(name)
        await pilot.pause()


def notice(app) -> str:
    return str(app.screen.query_one("#too-small").render())


@pytest.mark.parametrize("size", SMALL)
async def test_the_crashing_sequence_is_refused_and_says_why(size, tmp_path):
    # ctrl+t Enter y ctrl+p Enter crashed inside Textual's option list at 20×6
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await keys(pilot, "ctrl+t", "enter", "y", "ctrl+p", "enter")
        assert isinstance(app.screen, TooSmallScreen)
        assert len(app.screen_stack) == 2  # the main screen and the notice: no dialog opened
        assert f"at least 60×16 characters; this one is {size[0]}×{size[1]}" in notice(app)
        assert app.session.state.target == "wood" and not list(tmp_path.glob("*.txt"))
        await keys(pilot, "q")
    assert app.return_code == 0


@pytest.mark.parametrize("size", [(20, 6), (40, 12)])
async def test_no_key_acts_unseen(size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await keys(pilot, "n", "n", "m", "L", "R", "u", "ctrl+s", "question_mark", "T", "enter", "tab")
        assert app.session.step == 1 and not app.session.can_undo
        assert isinstance(app.screen, TooSmallScreen)


@pytest.mark.parametrize("size", [(20, 6), (40, 12)])
async def test_a_dialog_open_when_the_window_shrinks_is_covered_then_back(size):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await keys(pilot, "y")
        assert isinstance(app.screen, PickScreen)
        await pilot.resize_terminal(*size)
        await pilot.pause()
        assert isinstance(app.screen, TooSmallScreen)
        assert "at least 60×16" in notice(app)
        await keys(pilot, "down", "enter", "escape")  # nothing picks, nothing closes unseen
        assert app.session.state.target == "wood"
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        assert isinstance(app.screen, PickScreen)
        assert app.screen.query_one("OptionList").display
        await keys(pilot, "down", "enter")
        assert app.session.state.target == "woodchuck"
        assert app.query_one(StepList).display and not app.has_class("-too-small")


@pytest.mark.parametrize("size", [(20, 6), (40, 12)])
async def test_the_palette_open_when_the_window_shrinks(size):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await keys(pilot, "ctrl+p")
        await pilot.resize_terminal(*size)
        await pilot.pause()
        await pilot.press(*"step 9")
        await keys(pilot, "enter")
        assert app.session.step == 1
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await keys(pilot, "escape")
        assert len(app.screen_stack) == 1


async def test_every_dialog_at_40x12_and_20x6_then_large_again():
    # open each dialog large, shrink to each small size and back: every one is covered and comes back
    openers = ["y", "ctrl+t", "ctrl+s", "T", "R", "question_mark", "ctrl+p", "i"]
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await keys(pilot, "m")  # something to reset, so R asks
        for key in openers:
            await keys(pilot, key)
            opened = type(app.screen)
            assert len(app.screen_stack) == 2, key
            for size in [(40, 12), (20, 6)]:
                await pilot.resize_terminal(*size)
                await pilot.pause()
                assert isinstance(app.screen, TooSmallScreen), key
            await pilot.resize_terminal(120, 40)
            await pilot.pause()
            assert type(app.screen) is opened, key
            await keys(pilot, "escape")
            assert len(app.screen_stack) == 1, key
