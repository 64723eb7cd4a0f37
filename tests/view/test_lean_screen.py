"""What a key costs Textual, counted: no layout while nothing changes, a step change that mounts and
restyles nothing once every step was seen, a footer that relabels its keys, a typed character that
draws only the table it is typed in (tinytui.tui.widgets.lean)."""

from contextlib import contextmanager

import pytest
import textual.css.stylesheet as stylesheet
import textual.screen as screen
import textual.widget as widget
from textual.widgets._footer import FooterKey

from tests.apps import make_app
from tests.tui.helpers import W_O, grid, panes, press
from tests.view.test_view_layer import random_app
from tinytui.tui.widgets import lean


@contextmanager
def counting(cls, method: str, counts: dict, key: str, per=lambda *a: 1):
    """Count the calls of cls.method (per: what each call adds) into counts[key] while inside."""
    original = getattr(cls, method)

    def counted(*args, **kwargs):
        counts[key] = counts.get(key, 0) + per(*args)
        return original(*args, **kwargs)

    setattr(cls, method, counted)
    try:
        yield counts
    finally:
        setattr(cls, method, original)


@contextmanager
def lines_drawn():
    """The lines Textual drew while inside, by the type of the widget drawn: {type name: lines}."""
    drawn: dict[str, int] = {}

    def lines(w, crop) -> int:
        drawn[type(w).__name__] = drawn.get(type(w).__name__, 0) + crop.height
        return 0

    with counting(widget.Widget, "render_lines", {}, "lines", per=lines):
        yield drawn


async def test_a_step_whose_heatmap_is_wider_than_its_room_is_not_laid_out_on_every_frame():
    # the chapter's attention at step 8 (four positions: it pans, it never turns into narrow blocks)
    # once asked for a layout after each layout: the screen was laid out at 60 frames a second, idle
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "8")
        await pilot.pause()
        counts: dict = {}
        with counting(screen.Screen, "_refresh_layout", counts, "layouts"):
            for _ in range(5):
                await pilot.pause()
        assert counts.get("layouts", 0) == 0


async def test_once_every_step_was_seen_a_step_change_mounts_and_restyles_nothing():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(15):  # every step once: the pool has every kind of table it will need
            await press(pilot, "n")
        await press(pilot, "g")
        counts: dict = {}
        with (
            counting(widget.Widget, "_on_mount", counts, "mounts"),
            counting(stylesheet.Stylesheet, "apply", counts, "restyled"),
            counting(lean, "_work_out", counts, "component passes"),
        ):
            for _ in range(15):
                await press(pilot, "n")
        assert counts.get("mounts", 0) == 0
        # a table is taken from the pool only in the role it already has, so none is restyled (a role
        # change restyled it from scratch, 16-27 nodes a step change once; 2 a step before this)
        assert counts.get("restyled", 0) == 0, counts
        assert counts.get("component passes", 0) == 0
        cursor = {str(g.get_component_rich_style("grid--cursor", partial=True)) for g in panes(app).grids()}
        assert cursor == {"bold reverse"}, cursor


async def test_entering_the_walk_relabels_the_footer_instead_of_mounting_new_keys():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9")
        before = {id(k) for k in app.screen.query(FooterKey)}
        words_before = [str(k.description) for k in app.screen.query(FooterKey)]
        await press(pilot, "b")
        keys = list(app.screen.query(FooterKey))
        assert {id(k) for k in keys} <= before, "every key is one already mounted"
        words = [str(k.description) for k in keys]
        assert "Forward" in words and "Backward" not in words and "Backward" in words_before, words
        palette = [k for k in keys if k.has_class("-command-palette")]
        assert [(k.key, k.description) for k in palette] == [(app.COMMAND_PALETTE_BINDING, "palette")]


async def typing_in_w_o(pilot, app, *keys: str):
    """W_O's table at step 9 with its editor open and keys typed in it."""
    await press(pilot, "9")
    g = grid(app, W_O)
    g.focus()
    await press(pilot, "enter", *keys)
    return g


async def test_a_typed_character_draws_only_the_table_it_is_typed_in():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        g = await typing_in_w_o(pilot, app, "0", ".")
        with lines_drawn() as drawn:
            await press(pilot, "5")
        assert g.buffer == "0.5"
        assert drawn.get("Grid", 0) >= 1, drawn
        for far in ("StepList", "StatusBar", "TinyFooter", "Inspector", "StepInfo"):
            assert far not in drawn, drawn  # nowhere near the cell: Textual drew them all


async def test_a_step_change_draws_the_scrollbars_in_its_layout_not_a_frame_later():
    # Textual tells each scrollbar its new window after a layout, and each asked for a repaint of its
    # own: a second drawing of the screen, a frame after the layout, on most step changes
    from textual._compositor import Compositor

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        bars_alone: list[int] = []
        in_layout = [False]
        layout, update = screen.Screen._refresh_layout, Compositor.update_widgets

        def laid_out(self, *args, **kwargs):
            in_layout[0] = True
            try:
                return layout(self, *args, **kwargs)
            finally:
                in_layout[0] = False

        def updated(self, widgets):
            if widgets and not in_layout[0] and all(type(w).__name__ == "ScrollBar" for w in widgets):
                bars_alone.append(app.session.here.step)
            return update(self, widgets)

        screen.Screen._refresh_layout, Compositor.update_widgets = laid_out, updated
        try:
            for _ in range(15):
                await press(pilot, "n")
        finally:
            screen.Screen._refresh_layout, Compositor.update_widgets = layout, update
        assert bars_alone == []
        main = app.query_one("#main")
        assert main.show_vertical_scrollbar  # step 16's content is taller than the pane at 120×40
        # the bar drawn shows the step's own content height
        assert main.vertical_scrollbar.window_virtual_size == main.virtual_size.height


@pytest.mark.parametrize(
    ("app_of", "step"),
    [(make_app, "6"), (make_app, "9"), (lambda: random_app(16, d=64, heads=4, vocab=64), "6")],
    ids=["chapter", "chapter-step-9", "d64"],
)
async def test_entering_and_leaving_the_walk_lay_the_screen_out_once(app_of, step):
    # b's footer key changes width ("Backward" ↔ "Forward"): relabelled a message after the action and
    # recording its new size as a reactive, it asked for a second layout of the whole screen; so did
    # the body row and the scrollbars when the walk's longer status line took a row from them (d64);
    # and at step 9 the walk's tables pan sideways (a scrollbar comes) where the forward pass's do not
    app = app_of()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, step)
        await press(pilot, "b", "b")  # the walk's tables were made once
        counts: dict = {}
        with counting(screen.Screen, "_refresh_layout", counts, "layouts"):
            await press(pilot, "b")
            assert counts.get("layouts") == 1, counts
            await press(pilot, "b")
            assert counts.get("layouts") == 2, counts
        words = [str(k.description) for k in app.screen.query(FooterKey)]
        assert "Backward" in words, words


async def test_an_edits_enter_draws_the_screen_once():
    # Enter drew the editor's row again before the app had the edit: the screen drawn twice, the
    # second time (the edit's highlights) a frame or two later
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await typing_in_w_o(pilot, app, "0", ".", "5")
        counts: dict = {}
        with counting(screen.Screen, "_compositor_refresh", counts, "drawn"):
            await press(pilot, "enter")
        assert counts.get("drawn") == 1, counts
        assert not grid(app, W_O).editing
        assert app.session.state.params["blocks.0.W_O"][0, 0] == 0.5


async def test_footer_keys_the_walk_does_not_show_are_hidden_and_shown_again_not_remounted():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await typing_in_w_o(pilot, app, "0", ".", "5", "enter")
        await press(pilot, "d", "9")  # on the heads' output: f and F follow its operands (not in the walk)
        await press(pilot, "b", "b")
        counts: dict = {}
        with (
            counting(FooterKey, "_on_mount", counts, "mounted"),
            counting(FooterKey, "remove", counts, "removed"),
        ):
            await press(pilot, "b")
            shown_in_walk = [str(k.description) for k in app.screen.query(FooterKey) if k.display]
            await press(pilot, "b")
        assert counts == {}, counts
        shown = [str(k.description) for k in app.screen.query(FooterKey) if k.display]
        assert "Forward" in shown_in_walk and "Backward" in shown, (shown_in_walk, shown)
        assert len(shown) != len(shown_in_walk)  # the two footers differ in their keys, not only words


async def test_a_step_change_draws_the_two_lines_of_the_step_list_the_marker_left_and_reached():
    from tinytui.tui.widgets.step_list import StepList

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "n", "n")
        drawn: list[int] = []
        with counting(StepList, "render_line", {}, "lines", per=lambda _w, y: drawn.append(y) or 1):
            await press(pilot, "n")
        assert sorted(drawn) == [2, 3], drawn  # step 3's line and step 4's (0-based lines)
        assert app.query_one(StepList).text().splitlines()[3].startswith("▸ 4")
