"""Views at size: labels that stay while a table scrolls either way, heatmaps shaded without numbers
when their numbers do not fit, and the cursor on a label with the glossary's line in the inspector.

Everything is read off the step view's lines as it draws them for the screen (text and colours), and
compared with the run's own values."""

import numpy as np

from tests.apps import make_app, random_app
from tests.tui.helpers import W_O, grid, press, view
from tinytui.present.step_layout import FRAME
from tinytui.report.tables import fmt
from tinytui.tui.controllers.why_controller import GLOSSARY
from tinytui.tui.widgets.shading import shade
from tinytui.tui.widgets.status_bar import Inspector

ATTN = "output:blocks.0.attn.{h}"
MEANING = dict(GLOSSARY)


def plain(text: str) -> str:
    """Numbers as fmt writes them (the screen's minus sign is −)."""
    return text.replace("−", "-")


def inspector(app) -> str:
    return app.query_one(Inspector).text


def drawn(app) -> list:
    """The step view's lines as it hands them to the screen (its own scroll applied)."""
    v = view(app)
    return [v.render_line(y) for y in range(v.scrollable_content_region.height)]


def lines(app) -> list[str]:
    return [strip.text for strip in drawn(app)]


def background_at(app, x: int, y: int):
    at = 0
    for segment in drawn(app)[y]:
        if at <= x < at + segment.cell_length:
            return segment.style.bgcolor if segment.style else None
        at += segment.cell_length
    return None


def place(table, row: int, col: int | None = None) -> tuple[int, int]:
    """Where a cell (or, col None, its row's first column) is in the view's lines: (x, y)."""
    v, box, shape = table.view, table.box, table.box.shape
    x = box.x + FRAME + (shape.xs[col] if col is not None else 0) - round(v.scroll_x)
    return x, box.y + box.first_row + row - round(v.scroll_y)


async def settle(pilot, frames: int = 3) -> None:
    for _ in range(frames):
        await pilot.pause()


async def table_at(pilot, step: str, key: str, at: tuple[int, int] | None = None):
    """Go to a step, put the cursor in one of its tables at (row, col); the view scrolls there."""
    await press(pilot, step)
    g = grid(pilot.app, key)
    g.focus()
    await pilot.pause()
    if at is not None:
        g.move_to(*at)
        await settle(pilot)
    return g


# ---- labels that stay in place --------------------------------------------------------------------
async def test_row_labels_stay_when_a_table_scrolls_sideways_at_80x24():
    app = random_app(tokens=4, d=24, heads=2)
    async with app.run_test(size=(80, 24)) as pilot:
        w_o = await table_at(pilot, "9", W_O, (1, 23))  # the far right of a 24-column weight
        v = view(app)
        assert v.scroll_x > 0  # wider than the view: it scrolled sideways
        shown, shape, weights = lines(app), w_o.shape(), app.session.params["blocks.0.W_O"]
        right = v.scrollable_content_region.width
        counted = 0
        for r, label in enumerate(w_o.spec.rows):
            _, y = place(w_o, r)
            if not 0 <= y < len(shown):
                continue
            assert shown[y].startswith("┃ " + label.ljust(shape.label_w))  # pinned at the left edge
            first = None
            for c in range(24):  # every cell right of the labels is the weight's number, in its place
                x, _ = place(w_o, r, c)
                w = shape.widths[c]
                if x < FRAME + shape.label_w or x + w + 2 > right:
                    continue
                first = x if first is None else first
                assert plain(shown[y][x : x + w + 1].strip()) == fmt(float(weights[r, c]))
                counted += 1
            # the cell the labels' edge cuts is blank: no digit of it runs into the labels
            assert first is not None and not shown[y][FRAME + shape.label_w : first].strip()
        assert counted >= 8


async def test_the_column_header_stays_when_a_table_scrolls_down():
    app = random_app(tokens=64)
    async with app.run_test(size=(120, 40)) as pilot:
        attn = await table_at(pilot, "8", ATTN, (40, 3))  # 64 positions: head 1, a table of its own
        assert attn.spec.shape == (64, 64) and attn.spec.groups[0][0].startswith("head 1")
        v = view(app)
        assert v.scroll_y > attn.box.y  # the table's top is above the view
        shown = lines(app)
        assert "A = softmax" in shown[0]  # its title on the view's first line
        assert "head 1" in shown[1]  # the heads' titles under it
        assert shown[2][2:].split()[:4] == ["tokens", "0", "2", "4"]  # and the positions
        _, y = place(attn, 40)
        assert shown[y][2:].startswith(attn.spec.rows[40]) and y > 2  # the cursor's row, below them


async def test_a_head_too_wide_for_the_view_has_its_name_on_screen_at_80x24():
    app = random_app(tokens=16, d=64, heads=4, vocab=64)
    async with app.run_test(size=(80, 24)) as pilot:
        head = await table_at(pilot, "9", "output:blocks.0.head.{h}")
        assert head.spec.groups[0][0] == "head 1: A V" and head.box.width > 80  # a table of its own
        shown = lines(app)
        _, y = place(head, 0)
        group_line = shown[y - 2]  # above the column header and the first row
        assert group_line[2:].split()[:3] == ["head", "1:", "A"]  # where its columns begin


async def test_a_2000_row_table_draws_only_what_is_on_screen():
    app = random_app(tokens=4, vocab=2000)
    async with app.run_test(size=(120, 40)) as pilot:
        table = await table_at(pilot, "2", "param:E")
        assert table.spec.shape[0] == 2000
        v = view(app)
        v.lines_drawn = 0
        table.move_to(1990, 3)
        await settle(pilot)
        assert v.lines_drawn <= 45  # a screenful, not 2,000 lines
        shown = lines(app)
        _, y = place(table, 1990)
        number = fmt(float(app.session.params["E"][1990, 3]))
        assert shown[y][2:].startswith("t1990") and number in plain(shown[y])
        assert shown[table.box.first_row - 1][2:].split()[0] == "vocab"  # the header, pinned on top
        v.lines_drawn = 0
        table.move_to(1991, 3)  # one line down: the view scrolls one line
        await settle(pilot)
        assert v.lines_drawn <= 4  # the two rows the cursor left and took, and the line scrolled in


# ---- heatmaps shaded without numbers ----------------------------------------------------------------
async def test_a_16_token_heatmap_is_shaded_blocks_and_the_cursor_reads_the_value():
    app = random_app(tokens=16)
    async with app.run_test(size=(120, 40)) as pilot:
        attn = await table_at(pilot, "8", ATTN)
        v = view(app)
        shape = attn.shape()
        assert shape.narrow and shape.natural > v.scrollable_content_region.width  # numbers would not fit
        assert attn.box.width <= v.scrollable_content_region.width  # blocks do: no sideways scroll
        attn.move_to(9, 18)  # head 2, row 9, key 2
        await settle(pilot)
        value = float(app.session.trace["blocks.0.attn.2"][9, 2])
        assert fmt(value) in plain(inspector(app))  # the value is read under the cursor
        attn.move_to(10, 0)  # move off it, so the cell is drawn without the cursor
        await settle(pilot)
        shown = lines(app)
        x0, y = place(attn, 9, 0)
        assert "0." not in shown[y][x0:]  # no numbers printed
        theme = app.theme_variables
        for c, (r, k, head) in ((18, (9, 2, 2)), (0, (9, 0, 1)), (5, (9, 5, 1))):
            x, _ = place(attn, 9, c)
            assert shown[y][x : x + 2] == "  "  # a block: its lead and no glyph (not masked)
            v_ = float(app.session.trace[f"blocks.0.attn.{head}"][r, k])
            wanted = shade(theme, "heat", v_, 1.0).rich_color
            assert background_at(app, x, y) == wanted
            assert background_at(app, x + 1, y) == wanted
        masked_x, _ = place(attn, 9, 12)  # key 12 > query 9: masked, drawn flat with its ×
        assert shown[y][masked_x : masked_x + 2] == " ×"


async def test_the_chapter_heatmap_keeps_its_numbers_and_a_wide_screen_shows_them_at_16_tokens():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "8")
        head = grid(app, ATTN + "#1")  # four positions: the numbers stay, each head a table of its own
        assert not head.shape().narrow
        assert fmt(float(app.session.trace["blocks.0.attn.2"][1, 1])) in plain(head.text())
    app = random_app(tokens=16)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "8")
        assert grid(app, ATTN).shape().narrow
        await pilot.resize_terminal(340, 60)  # room for every number now
        await settle(pilot)
        attn = grid(app, ATTN)
        assert not attn.shape().narrow
        assert fmt(float(np.asarray(app.session.trace["blocks.0.attn.1"])[3, 1])) in plain(attn.text())


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
        assert "A label has nothing to edit" in [n.message for n in app.toasts.notes()][-1]
        assert np.array_equal(app.session.params["blocks.0.W_O"], before)
        await press(pilot, "down")  # back on a number: its own line again
        assert w_o.label is None and (w_o.row, w_o.col) == (0, 0)
        assert "W_O[h1.k0, thing]" in inspector(app)


async def test_a_label_under_the_cursor_is_drawn_reversed_and_a_click_puts_it_there():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        w_o = await table_at(pilot, "9", W_O)
        await press(pilot, "left", "down")  # the row label h1.k1
        await pilot.pause()
        x, y = place(w_o, 1)
        label = next(s for s in drawn(app)[y] if s.text.strip() == "h1.k1")
        assert label.style.reverse  # the cursor's reverse style
        # a click on the column header's 'wood' puts the cursor on that label
        x, y = place(w_o, -1, 3)
        await pilot.click(view(app), offset=(x + 2, y))
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
