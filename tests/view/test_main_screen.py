"""The main screen draws a key as soon as it has taken it in (main_screen.MainScreen), and a
settled widget's first size asks for a layout of its own (lean.SettledSize)."""

import asyncio
from typing import ClassVar

from rich.cells import cell_len
from textual.app import App
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Static
from textual.widgets._footer import FooterKey

from tests.apps import make_app
from tests.tui.helpers import press
from tests.view.test_lean_screen import counting, lines_drawn, typing_in_w_o
from tinytui.tui.screens import main_screen
from tinytui.tui.screens.main_screen import MainScreen
from tinytui.tui.widgets.footer import TinyFooter
from tinytui.tui.widgets.grid.grid import Grid
from tinytui.tui.widgets.step_list import StepList


class Counter(App[None]):
    """One line that a key changes, on a MainScreen whose timer never ticks in a test's time."""

    BINDINGS: ClassVar = [("x", "bump")]

    def get_default_screen(self):
        return MainScreen(id="_default")

    def compose(self):
        yield Static("0", id="count")

    def action_bump(self) -> None:
        line = self.query_one("#count", Static)
        line.update(str(int(str(line.content)) + 1))

    def frames_only_when_idle(self) -> list[float]:
        """Replace the screen's update timer by one that never fires here; record each frame written."""
        screen = self.screen
        screen._Screen__update_timer = Timer(screen, 60.0, callback=screen._on_timer_update, pause=True)
        written: list[float] = []
        display = self._display

        def recorded(s, renderable) -> None:
            display(s, renderable)
            if renderable is not None:
                written.append(asyncio.get_running_loop().time())

        self._display = recorded  # type: ignore[method-assign]
        return written


async def settle(pilot) -> None:
    """Every message handled, without the Pilot's own drawing of the screen at the end of a pause."""
    await pilot._wait_for_screen()
    await asyncio.sleep(0.05)
    await pilot._wait_for_screen()


async def test_a_key_after_a_quiet_moment_is_drawn_without_waiting_for_the_timer():
    app = Counter()
    async with app.run_test(size=(40, 5)) as pilot:
        await pilot.pause()
        written = app.frames_only_when_idle()
        await pilot.press("x")
        await settle(pilot)
        assert len(written) == 1
        assert str(app.query_one("#count", Static).render()) == "1"
        lines = [strip.text for strip in app.screen._compositor.render_strips()]
        assert lines[0].startswith("1"), lines[0]


async def test_a_change_within_a_frame_of_the_last_waits_for_the_timer():
    app = Counter()
    async with app.run_test(size=(40, 5)) as pilot:
        await pilot.pause()
        written = app.frames_only_when_idle()
        app.screen._last_frame = 100.0  # a frame drawn just now: the clock has not moved since
        clock, main_screen.monotonic = main_screen.monotonic, lambda: 100.0
        try:
            await pilot.press("x")
            await settle(pilot)
        finally:
            main_screen.monotonic = clock
        assert written == []  # left to the timer (this one never ticks)
        assert app.screen._dirty_widgets


async def test_a_footer_key_shown_for_the_first_time_is_measured_in_the_footers_style():
    # A key the footer mounts is measured compact (no padding) until its binding to the footer's
    # style comes in. When a frame was drawn in between, its settled size was never measured again:
    # "q Qui" at the end of the footer, after an edit and n.
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        footer = app.query_one(TinyFooter)
        with footer._context():  # as the footer makes a key it shows anew (TinyFooter._relabel)
            keys = [w for w in footer.compose() if isinstance(w, FooterKey)]  # all: compose runs to its end
        key = keys[0]
        footer.mount(key, before=0)
        assert key.compact  # a new key starts compact, until its binding to the footer's style is in
        app.screen._refresh_layout()  # a frame drawn before the key took the footer's style
        await pilot.pause()
        await pilot.pause()  # a key drawn at a width not its own has the footer laid out in a frame
        assert not key.compact
        assert key.region.width == cell_len(f" {key.key_display} {key.description} ")


async def test_the_app_draws_on_its_prompt_screen():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)


async def test_b_after_edits_lays_the_screen_out_and_draws_it_once_each_way():
    # the walk's work ran past a tick of the screen's timer, which drew what had come in by then and
    # the inspector's new line a frame later; and the focus moving into the walk repainted all of it
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        for value in ("0.15", "0.25"):
            await typing_in_w_o(pilot, app, *value)
            await press(pilot, "enter")
        await press(pilot, "d", "9", "b", "b")  # the walk's tables were made once
        for _ in range(2):
            counts: dict = {}
            with (
                counting(Screen, "_refresh_layout", counts, "layouts"),
                counting(Screen, "_compositor_refresh", counts, "drawn"),
            ):
                await press(pilot, "b")
            assert counts == {"layouts": 1, "drawn": 1}, counts


async def test_moving_the_focus_draws_what_it_left_and_reached_not_the_whole_screen():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9")
        before = app.focused
        with lines_drawn() as drawn:
            await press(pilot, "tab")
        assert isinstance(before, StepList) and isinstance(app.focused, Grid)
        assert drawn.get("StepList", 0) >= 1 and drawn.get("Grid", 0) >= 1, drawn
        assert "StatusBar" not in drawn, drawn  # a screen repainted whole drew it too
