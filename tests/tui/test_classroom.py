"""Classroom issue: one refusal notice at a time, theme switches repaint everything, "Edit" only on
editable cells, and the step's first table on screen at 80×24 on every step."""

from tests.apps import make_app
from tests.tui.helpers import W_O, grid, info, open_editor, press, view, words
from tinytui.lesson.stages import LAST
from tinytui.tui.widgets.footer import TinyFooter


def errors(app) -> list[str]:
    return [n.message for n in app.toasts.notes() if n.severity == "error"]


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
        said = [n.message for n in app.toasts.notes() if "computed from the weights" in n.message]
        assert len(said) == 1


def styled_lines(app) -> str:
    """The whole screen, every character with its colours, as Textual exports it (an SVG)."""
    return app.export_screenshot()


def info_styles(app) -> list[tuple[str, object]]:
    """The step's words above its tables, as the step view draws them."""
    widget = view(app)
    return [(s.text, s.style) for y in range(len(words(app)[0])) for s in widget.render_line(y)]


async def test_theme_switch_at_step_8_repaints_the_step_text():
    switched = make_app()
    async with switched.run_test(size=(120, 40)) as pilot:
        await press(pilot, "8", "t")
        switched.clear_notifications()  # t's notice, which the fresh app has not (test_toasts draws it)
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


def first_made_table(app) -> int:
    """Where the first table (or the bars) under the "Step N makes" heading is on screen (its top)."""
    widget = view(app)
    made = next(i for i, h in enumerate(widget.blocks.headings) if h.text.endswith(" makes"))
    box = next(b for b in widget.blocks.boxes if b.section == made)
    return widget.region.y + box.y - round(widget.scroll_y)


async def test_every_step_shows_its_first_table_at_80x24(app):
    async with app.run_test(size=(80, 24)) as pilot:
        main = app.query_one("#main")
        for step in range(1, LAST + 1):
            app.steps.goto(step)
            await pilot.pause()
            await pilot.pause()
            assert app.session.step == step and main.scroll_y == 0
            top = first_made_table(app)
            # its border, its header line and at least its first row are inside the visible area
            assert main.region.y <= top and top + 3 <= main.region.bottom, (step, top, main.region)


async def test_short_terminal_keeps_the_whole_text_after_the_tables(app):
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "8")
        shown, after = (" ".join(lines) for lines in words(app))
        assert "more after the tables" in shown and "A = softmax(S + M)" in shown  # the name, the formula
        assert "In the last row every head" not in shown and "In the last row every head" in after
        assert "causal mask ON" in after
        assert "last row every head" in info(app), "the step's words are still the whole explanation"


async def test_tall_terminal_shows_the_whole_text_on_top(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "8")
        shown, after = (" ".join(lines) for lines in words(app))
        assert not after.strip()
        assert "In the last row every head" in shown
        # growing or shrinking across the line lays the text out again
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        await pilot.pause()
        assert "In the last row every head" in " ".join(words(app)[1])
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        await pilot.pause()
        assert not " ".join(words(app)[1]).strip()
