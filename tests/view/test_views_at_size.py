"""Views at size: labels that stay while a table scrolls either way, heatmaps shaded without numbers
when their numbers do not fit, and the cursor on a label with the glossary's line in the inspector.

Everything is read off the screen as the compositor draws it (text and colours), and compared with
the run's own values."""

import numpy as np
from rich.color import Color as RichColor

from tests.apps import make_app
from tests.tui.helpers import W_O, grid, panes, press
from tests.view.test_view_layer import random_app, screen_lines
from tinytui.report.tables import fmt
from tinytui.tui.controllers.why_controller import GLOSSARY
from tinytui.tui.widgets.grid.grid import Grid
from tinytui.tui.widgets.grid.style import shade
from tinytui.tui.widgets.status_bar import Inspector

ATTN = "output:blocks.0.attn.{h}"
MEANING = dict(GLOSSARY)


def main_view(app):
    """The region of the screen the tables scroll in."""
    return app.query_one("#main").scrollable_content_region


def inspector(app) -> str:
    return app.query_one(Inspector).text


def background_at(app, x: int, y: int) -> RichColor | None:
    """The background colour the compositor draws at screen cell (x, y)."""
    strip = app.screen._compositor.render_strips()[y]
    at = 0
    for segment in strip:
        if at <= x < at + segment.cell_length:
            return segment.style.bgcolor if segment.style else None
        at += segment.cell_length
    return None


async def settle(pilot, frames: int = 3) -> None:
    for _ in range(frames):  # the inspector's new lines re-lay the screen, then #main scrolls again
        await pilot.pause()


async def focus(pilot, g: Grid) -> None:
    g.focus()
    await pilot.pause()


async def table_at(pilot, step: str, key: str, at: tuple[int, int] | None = None) -> Grid:
    """Go to a step, focus one of its tables (key, or 'attn64': the 64-token attention table) and put
    the cursor at (row, col); the pane scrolls there."""
    await press(pilot, step)
    grids = panes(pilot.app).grids()
    g = next(g for g in grids if g.spec.shape == (64, 128)) if key == "attn64" else grid(pilot.app, key)
    await focus(pilot, g)
    if at is not None:
        g.move_to(*at)
        await settle(pilot)
    return g


# ---- labels that stay in place --------------------------------------------------------------------
async def test_row_labels_stay_when_a_table_scrolls_sideways_at_80x24():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        attn = await table_at(pilot, "8", ATTN, (1, 7))  # attn.2[1,3]: at the far right of the table
        main = app.query_one("#main")
        assert main.scroll_x > 0  # the table is wider than the pane: it scrolled sideways
        assert attn.window.ox > 0  # and the row labels are pinned at the pane's left edge
        lines, view, shape = screen_lines(app), main_view(app), attn.shape()
        region = attn.content_region
        heads = [app.session.trace[f"blocks.0.attn.{h}"] for h in (1, 2)]
        shown = 0
        for r, label in enumerate(attn.spec.rows):
            y = region.y + shape.top + r
            assert lines[y][view.x : view.right].startswith(label.ljust(shape.label_w) + " ")
            for c in range(8):  # every cell right of the labels is the run's number, in its place
                x, w = region.x + shape.xs[c], shape.widths[c]
                if x < view.x + shape.label_w or x + w + 2 > view.right:
                    assert lines[y][max(x, view.x + shape.label_w) : min(x + w + 2, view.right)].strip() == ""
                    continue  # under the labels or past the edge: blank, no number cut in two
                assert lines[y][x : x + w + 1].strip() == fmt(float(heads[c // 4][r, c % 4]))
                shown += 1
        assert shown >= 4 * 4  # all of head 2 at least
        corner = lines[region.y + shape.top - 1][view.x : view.right]
        assert corner.startswith("tokens")  # the corner too, over the column header


async def test_the_column_header_stays_when_a_table_scrolls_down():
    app = random_app(tokens=64)
    async with app.run_test(size=(120, 40)) as pilot:
        attn = await table_at(pilot, "8", "attn64", (40, 3))
        shape, view = attn.shape(), main_view(app)
        assert attn.content_region.y + shape.top - 1 < view.y  # the header's own line is above the pane
        assert attn.window.hy > 0
        lines, left = screen_lines(app), attn.content_region.x
        first = lines[view.y][left : view.right]
        assert "head 1" in first  # the heads' titles on the pane's first line
        ticks = lines[view.y + 1][left : view.right]
        assert ticks.split()[:4] == ["tokens", "0", "2", "4"]  # and the positions under them
        row = lines[attn.content_region.y + shape.top + 40][left : view.right]
        assert row.startswith(attn.spec.rows[40])  # the cursor's row is on screen, below the header
        assert view.y + 1 < attn.content_region.y + shape.top + 40


async def test_a_2000_row_table_draws_only_what_is_on_screen():
    app = random_app(tokens=4, vocab=2000)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "2")  # the embedding table: one row per vocabulary token
        table = grid(app, "param:E")
        assert table.spec.shape[0] == 2000
        await focus(pilot, table)
        table.lines_drawn = 0
        table.move_to(1990, 3)
        await settle(pilot)
        assert table.lines_drawn <= 40  # a screenful, not 2,000 lines
        shape, view, lines = table.shape(), main_view(app), screen_lines(app)
        y = table.content_region.y + shape.top + 1990
        assert view.y <= y < view.bottom
        number = fmt(float(app.session.params["E"][1990, 3]))
        assert lines[y][table.content_region.x :].startswith("t1990") and number in lines[y]
        assert lines[view.y][table.content_region.x :].split()[0] == "vocab"  # the header, pinned on top
        table.lines_drawn = 0
        table.move_to(1991, 3)  # one line down: the pane scrolls one line
        await settle(pilot)
        assert table.lines_drawn <= 2 * shape.top + 2  # the header's old and new lines, the two rows


async def test_scrolling_sideways_draws_only_the_columns_on_screen():
    app = random_app(tokens=64)
    async with app.run_test(size=(120, 40)) as pilot:
        attn = await table_at(pilot, "8", "attn64", (40, 100))
        view, shape = main_view(app), attn.shape()
        assert attn.window.x1 < shape.table_width  # the window stops at the pane's right edge
        y = shape.top + 40
        drawn = attn.render_line(y)
        blocks = [s for s in drawn if s.style and s.style.bgcolor]
        assert len(blocks) <= view.width // (shape.widths[0] + 2) + 1  # cells on screen, not 128


# ---- heatmaps shaded without numbers ----------------------------------------------------------------
async def test_a_16_token_heatmap_is_shaded_blocks_and_the_cursor_reads_the_value():
    app = random_app(tokens=16)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "8")
        attn = grid(app, ATTN)
        shape = attn.shape()
        assert shape.narrow and shape.natural > main_view(app).width  # numbers would not fit
        assert attn.natural_width() <= main_view(app).width  # blocks do: no sideways scroll
        assert app.query_one("#main").max_scroll_x == 0
        await focus(pilot, attn)
        attn.move_to(9, 18)  # head 2, row 9, key 2
        await settle(pilot)
        value = float(app.session.trace["blocks.0.attn.2"][9, 2])
        assert fmt(value) in inspector(app)  # the value is read under the cursor
        attn.move_to(10, 0)  # move off it, so the cell is drawn without the cursor
        await settle(pilot)
        lines, region = screen_lines(app), attn.content_region
        y = region.y + shape.top + 9
        assert "0." not in lines[y][region.x + shape.label_w : region.right]  # no numbers printed
        theme = app.theme_variables
        for c, (r, k, head) in ((18, (9, 2, 2)), (0, (9, 0, 1)), (5, (9, 5, 1))):
            x = region.x + shape.xs[c]
            assert lines[y][x : x + 2] == "  "  # a block: its lead and no glyph (not masked)
            v = float(app.session.trace[f"blocks.0.attn.{head}"][r, k])
            wanted = shade(theme, "heat", v, 1.0).rich_color
            assert background_at(app, x, y) == wanted
            assert background_at(app, x + 1, y) == wanted
        masked_x = region.x + shape.xs[12]  # key 12 > query 9: masked, drawn flat with its ×
        assert lines[y][masked_x : masked_x + 2] == " ×"


async def test_the_chapter_heatmap_keeps_its_numbers_and_a_wide_screen_shows_them_at_16_tokens():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "8")
        assert not grid(app, ATTN).shape().narrow  # four positions: the numbers pan instead
        assert fmt(float(app.session.trace["blocks.0.attn.2"][1, 1])) in grid(app, ATTN).text()
    app = random_app(tokens=16)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "8")
        assert grid(app, ATTN).shape().narrow
        await pilot.resize_terminal(340, 60)  # room for every number now
        await settle(pilot)
        attn = grid(app, ATTN)
        assert not attn.shape().narrow
        assert fmt(float(np.asarray(app.session.trace["blocks.0.attn.1"])[3, 1])) in attn.text()


# ---- the cursor on a label ----------------------------------------------------------------------------
async def test_the_cursor_goes_onto_the_labels_and_the_inspector_explains_them():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        w_o = await table_at(pilot, "9", W_O)
        before = app.session.params["blocks.0.W_O"].copy()
        await press(pilot, "left")  # left of column 0: the row label h1.k0
        assert (w_o.row, w_o.col) == (0, -1)
        assert w_o.label is not None and w_o.label.text == "h1.k0"
        assert MEANING["h1.k0"] in inspector(app) and "h1.k0 · row 0 of W_O" in inspector(app)
        await press(pilot, "left")  # it stays on the label
        assert w_o.col == -1
        await press(pilot, "up")  # above it: the corner, what the rows are
        assert w_o.label.text == "heads"
        await press(pilot, "right")  # the column label 'thing'
        assert (w_o.row, w_o.col) == (-1, 0) and w_o.label.text == "thing"
        dims = next(v for k, v in GLOSSARY if "thing" in k.split())
        assert dims in inspector(app)
        await press(pilot, "enter")  # a label has nothing to edit: one line says so, nothing changes
        assert not w_o.editing
        assert "A label has nothing to edit" in [n.message for n in app._notifications][-1]
        assert np.array_equal(app.session.params["blocks.0.W_O"], before)
        await press(pilot, "down")  # back on a number: its own line again
        assert w_o.label is None and (w_o.row, w_o.col) == (0, 0)
        assert "W_O[h1.k0, thing]" in inspector(app)


async def test_a_label_under_the_cursor_is_drawn_reversed_and_a_click_puts_it_there():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        w_o = await table_at(pilot, "9", W_O)
        await press(pilot, "left", "down")  # the row label h1.k1
        shape = w_o.shape()
        runs = w_o._runs(shape.top + 1)
        assert runs[0][0].strip() == "h1.k1" and runs[0][1].reverse  # the cursor's reverse style
        # a click on the column header's 'wood' puts the cursor on that label
        x = shape.xs[3] + 1
        await pilot.click(w_o, offset=(w_o.styles.gutter.left + x, w_o.styles.gutter.top + shape.top - 1))
        await pilot.pause()
        assert (w_o.row, w_o.col) == (-1, 3) and w_o.label.text == "wood"


async def test_delete_on_the_token_tables_header_removes_the_last_position():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        tokens = await table_at(pilot, "1", "tokens")
        prompt = app.session.state.prompt
        await press(pilot, "up")  # above row 0: the column header, not a position
        assert tokens.row == -1 and tokens.label is not None
        await press(pilot, "delete")
        assert app.session.state.prompt == prompt[:-1]  # the last one, as with no row under the cursor
