"""Classroom issue: one refusal notice at a time, theme switches repaint everything, "Edit" only on
editable cells, and the step's first table on screen at 80×24 on every step."""

from textual.widget import Widget
from textual.widgets import Static

from tests.apps import make_app
from tests.tui.helpers import W_O, grid, info, open_editor, panes, press
from tinytui.model.stages import LAST
from tinytui.tui.widgets.footer import TinyFooter
from tinytui.tui.widgets.grid.grid import Grid
from tinytui.tui.widgets.logits_pane import LogitBars
from tinytui.tui.widgets.step_info import StepInfo, StepMore
from tinytui.tui.widgets.step_panes import Heading


def errors(app) -> list[str]:
    return [n.message for n in app._notifications if n.severity == "error"]


async def test_three_bad_values_leave_one_notice_naming_the_last(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9")
        g = await open_editor(pilot, app, W_O, 3, 3)
        for bad in ("abc", "nan", "1e999"):
            await press(pilot, "ctrl+u", *bad, "enter")
            assert g.editing, "a refused value leaves the editor open"
        await pilot.pause()
        shown = errors(app)
        assert len(shown) == 1, shown
        assert "1e999" in shown[0], shown
        assert "1e999" in g.error, "the cell's own message names the last value too"


async def test_not_editable_notices_do_not_pile_up(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9")
        g = grid(app, "output:blocks.0.mha")
        g.focus()
        await press(pilot, "enter", "enter", "enter")
        assert not g.editing
        said = [n.message for n in app._notifications if "computed from the weights" in n.message]
        assert len(said) == 1


def styled_lines(app) -> list[list[tuple[str, object]]]:
    """Every line on screen as (text, style) pieces, from the compositor (what the terminal gets)."""
    return [[(s.text, s.style) for s in strip] for strip in app.screen._compositor.render_strips()]


def info_styles(app) -> list[tuple[str, object]]:
    widget = app.query_one(StepInfo)
    return [(s.text, s.style) for y in range(widget.size.height) for s in widget.render_line(y)]


async def test_theme_switch_at_step_8_repaints_the_step_text():
    switched = make_app()
    async with switched.run_test(size=(120, 40)) as pilot:
        await press(pilot, "8", "t")
        await pilot.pause()
        assert switched.theme == "tinytui-light"
        after_t, screen_after_t = info_styles(switched), styled_lines(switched)
    fresh = make_app(theme="tinytui-light")
    async with fresh.run_test(size=(120, 40)) as pilot:
        await press(pilot, "8")
        await pilot.pause()
        opened_light, screen_opened_light = info_styles(fresh), styled_lines(fresh)
    assert after_t == opened_light, "the title, formula and facts use the light theme's colours"
    assert screen_after_t == screen_opened_light, "every widget on screen is drawn in the new theme"


async def test_every_theme_in_turn_matches_a_fresh_app():
    cycled = make_app()
    seen: dict[str, list] = {}
    async with cycled.run_test(size=(120, 40)) as pilot:
        await press(pilot, "8")
        for _ in range(4):
            await press(pilot, "t")
            await pilot.pause()
            seen[cycled.theme] = info_styles(cycled)
    for theme, styles in seen.items():
        fresh = make_app(theme=theme)
        async with fresh.run_test(size=(120, 40)) as pilot:
            await press(pilot, "8")
            assert info_styles(fresh) == styles, theme


def footer_shows_edit(app) -> bool:
    return any(b.binding.id == "edit-cell" and b.binding.show for b in app.active_bindings.values())


def footer_keys(app) -> list[str]:
    return app.query_one(TinyFooter).labels()


async def test_edit_in_the_footer_only_on_editable_cells(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9")
        computed = grid(app, "output:blocks.0.mha")
        computed.focus()
        await pilot.pause()
        assert "Edit" not in footer_keys(app), "a computed cell offers no Edit"
        weights = grid(app, W_O)
        weights.focus()
        await pilot.pause()
        assert "Edit" in footer_keys(app), "a weight offers Edit"
        await press(pilot, "1")
        tokens = grid(app, "tokens")
        tokens.focus()
        await pilot.pause()
        assert "Edit" in footer_keys(app), "a prompt token can be changed"


async def test_edit_comes_and_goes_as_the_cursor_moves(app):
    # the token table (step 1) has editable tokens in column 0 and computed ids beside them
    async with app.run_test(size=(120, 40)) as pilot:
        tokens = grid(app, "tokens")
        editable = [c for c in range(len(tokens.spec.cols)) if tokens.spec.refs[0][c] is not None]
        computed = [c for c in range(len(tokens.spec.cols)) if tokens.spec.refs[0][c] is None]
        assert editable and computed
        tokens.focus()
        await pilot.pause()
        tokens.move_to(0, computed[0])
        await pilot.pause()
        assert "Edit" not in footer_keys(app)
        tokens.move_to(0, editable[0])
        await pilot.pause()
        assert "Edit" in footer_keys(app)


def first_made_table(app) -> Widget:
    """The first table (or the bars) under the "Step N makes" heading."""
    found = False
    for widget in panes(app).walk_children():
        if isinstance(widget, Heading) and widget.title_text.endswith(" makes"):
            found = True
        elif found and isinstance(widget, Grid | LogitBars) and widget.display:  # not one kept hidden
            return widget
    raise AssertionError("no table under “Step N makes”")


async def test_every_step_shows_its_first_table_at_80x24(app):
    async with app.run_test(size=(80, 24)) as pilot:
        main = app.query_one("#main")
        for step in range(1, LAST + 1):
            app.steps.goto(step)
            await pilot.pause()
            await pilot.pause()
            assert app.session.step == step and main.scroll_y == 0
            top = first_made_table(app).region.y
            # its border, its header line and at least its first row are inside the visible area
            assert main.region.y <= top and top + 3 <= main.region.bottom, (step, top, main.region)


async def test_short_terminal_keeps_the_whole_text_after_the_tables(app):
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "8")
        more = app.query_one(StepMore)
        assert more.has_class("-shown")
        shown = str(app.query_one(StepInfo).render())
        whole = str(more.render())
        assert "all of it after the tables" in shown
        assert "In the last row every head" not in shown and "In the last row every head" in whole
        assert "causal mask ON" in whole
        assert "last row every head" in info(app), "StepInfo.text is still the whole explanation"
        children = list(app.query_one("#main").children)
        assert children.index(more) > children.index(panes(app))


async def test_tall_terminal_shows_the_whole_text_on_top(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "8")
        assert not app.query_one(StepMore).has_class("-shown")
        assert "In the last row every head" in str(app.query_one(StepInfo).render())
        # growing or shrinking across the line lays the text out again
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        await pilot.pause()
        assert app.query_one(StepMore).has_class("-shown")
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        await pilot.pause()
        assert not app.query_one(StepMore).has_class("-shown")
        assert isinstance(app.query_one(StepMore), Static)
