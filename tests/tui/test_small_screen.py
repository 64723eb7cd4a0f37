"""80×24, the smallest usual terminal: the status bar keeps its three rows after an edit (the edited cell
stays in view), and step 8 shows A for both heads without scrolling; and at any size the inspector
follows the cursor in the same frame (the view tells the app at once, not by a message a frame later)."""

from tests.apps import make_app
from tests.tui.helpers import W_O, grid, press, view
from tinytui.tui.widgets.status_bar import Inspector, StatusBar


def shown(app) -> str:
    """The step view's rows as the screen shows them."""
    v = view(app)
    return "\n".join(v.render_line(y).text for y in range(v.size.height))


def in_view(app) -> bool:
    """Whether the cursor's cell is on one of the step view's rows on screen."""
    v = view(app)
    cell = v.cell_region()
    return cell is not None and v.scroll_offset.y <= cell.y < v.scroll_offset.y + v.size.height


async def test_an_edit_keeps_the_status_bar_three_rows_and_the_cell_in_view():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "9", "tab", "tab", "tab", "down", "down")
        assert grid(app, W_O).here and in_view(app)
        bar = app.query_one(StatusBar)
        assert bar.region.height == 3
        await press(pilot, "enter")
        await pilot.press(*"0.5", "enter")
        await pilot.pause()
        assert app.session.can_undo, "the edit was taken"
        drawn = [bar.render_line(y).text for y in range(3)]
        assert bar.region.height == 3 and all(line.strip() for line in drawn), drawn
        assert "→" in drawn[1] and "edited weight" in bar.text  # old → new; the count, if there is room
        assert in_view(app), "the edited cell is still on screen"


async def test_step_8_shows_a_for_both_heads_at_80x24():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "8")
        rows = shown(app)
        assert "0.7588" in rows and "0.8618" in rows  # head 1 from 'woodchuck' to 'a', head 2 to itself
        assert view(app).scroll_offset.y == 0  # without scrolling
        await press(pilot, "tab")  # the cursor in A: the inspector takes its second row, A stays
        assert app.query_one(Inspector).region.height == 2
        rows = shown(app)
        assert "0.7588" in rows and "0.8618" in rows and view(app).scroll_offset.y == 0
        assert "Later positions get −∞ before the softmax" in view(app).info_text  # the words, after A


async def test_a_formula_longer_than_the_line_takes_one_row_on_a_short_screen():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "8", "m")  # the formula now says the mask is off: wider than the step view
        name, formula, facts = shown(app).split("\n")[:3]
        assert name.strip().startswith("Step 8 of 16 · Causal mask and softmax")
        assert formula.strip().startswith("A = softmax(S)") and formula.rstrip().endswith("…")
        assert facts.strip().startswith("• causal mask OFF") and view(app).blocks.headings[0].y == 3
        assert "(mask switched off: every position sees every other)" in view(app).info_text


async def test_the_inspector_is_drawn_with_the_cursor():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9", "tab", "tab", "tab")
        v, inspector = view(app), app.query_one(Inspector)
        assert grid(app, W_O).here and v.row == 0
        assert inspector.text.startswith("W_O[h1.k0, thing]")
        v.action_move(1, 0)  # as the down arrow does, and no message handled after it
        assert v.row == 1 and inspector.text.startswith("W_O[h1.k1, thing]"), inspector.text
        v.action_table(-1)  # Tab back: the table before, in the same call
        assert not grid(app, W_O).here and not inspector.text.startswith("W_O["), inspector.text
