"""The view layer's economy: an edit repaints only the cells it changed, a step change keeps the
widgets it can, and a big scrolled heatmap still shows the right numbers in the right places."""

import io

import numpy as np
from rich.console import Console

from tests.apps import make_app
from tests.random_models import config, weights
from tests.tui.helpers import W_O, grid, panes, press
from tinytui.model.io.document import ModelFile
from tinytui.model.switches import Switches
from tinytui.model.trace import DEFAULT_LR
from tinytui.present.grid_spec import EDITED, glyph
from tinytui.session.session import Session
from tinytui.session.state import State
from tinytui.tui.app import TinyTuiApp


def random_app(tokens: int, d: int = 8, heads: int = 2, vocab: int = 16) -> TinyTuiApp:
    cfg = config(d, heads, d // heads, 2 * d, vocab, n_ctx=tokens)
    params = weights(np.random.default_rng(3), cfg, 1 / np.sqrt(d))
    prompt = tuple(cfg.vocab[(7 * i) % vocab] for i in range(tokens))
    model = ModelFile("random", "", params, prompt, cfg.vocab[1])
    return TinyTuiApp(Session(model, State(model.params, prompt, model.target, Switches(), DEFAULT_LR)))


def view_top(app) -> int:
    return app.query_one("#main").scrollable_content_region.y


def screen_lines(app) -> list[str]:
    """The screen as plain text, one string per line, as the compositor draws it."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), record=True, legacy_windows=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text().split("\n")


async def test_an_edit_restyles_only_the_cells_it_changed():
    from tinytui.tui.widgets.grid.drawing_lines import STYLE_CACHE

    STYLE_CACHE.clear()  # shared by every grid of the process: what earlier tests styled
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9")
        g = grid(app, W_O)
        g.focus()
        await pilot.pause()
        spec = g.spec
        # a cell that is not the table's largest, so the shading's scale stays where it is
        r, c = next(
            (r, c)
            for r in range(len(spec.rows))
            for c in range(len(spec.cols))
            if abs(spec.values[r][c]) < spec.limit / 2
        )
        g.move_to(r, c)
        await press(pilot, "enter")
        g.restyled = 0
        typed = f"{spec.limit / 2:.2f}"
        await press(pilot, typed[0])  # the old value goes: the column may narrow, so every line moves
        await pilot.pause()
        g.lines_drawn = 0
        await pilot.press(*typed[1:])
        await pilot.pause()
        assert g.restyled == 0  # typing restyles nothing
        assert g.lines_drawn <= len(typed) - 1  # and draws only the editor's row again, once a key
        g.lines_drawn = 0
        await press(pilot, "enter")
        assert not g.editing
        assert grid(app, W_O) is g
        assert g.cell_classes(r, c) == {EDITED}
        assert g.restyled == 1  # the edited cell, and no other
        assert g.lines_drawn <= 2  # its row: with the new value, then without the editor


async def test_a_step_change_reuses_the_tables():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "8")
        before = list(panes(app).children)
        grids_before = panes(app).grids()
        await press(pilot, "n")
        after = list(panes(app).children)
        grids_after = panes(app).grids()
        kept = [w for w in after if any(w is b for b in before)]
        assert len(kept) >= min(len(before), len(after)) - 1
        assert grids_after[0] is grids_before[0]
        assert panes(app).reused >= 3
        assert grid(app, W_O).spec.key == W_O
        # and back: the same widgets again, the cursor at the top left
        await press(pilot, "p")
        assert panes(app).grids()[0] is grids_before[0]
        assert (panes(app).grids()[0].row, panes(app).grids()[0].col) == (0, 0)


async def test_a_scrolled_64_token_heatmap_shows_the_right_cells():
    app = random_app(tokens=64)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "8")  # the attention weights: one 64 × 64 table per head
        attn = next(g for g in panes(app).grids() if g.spec.shape == (64, 128))
        attn.focus()
        await pilot.pause()
        for row, col in ((50, 60), (63, 127), (20, 5)):
            checked = 0
            attn.move_to(row, col)  # scrolls #main down and across to the cell
            for _ in range(3):  # the inspector's new lines re-lay the screen, then #main scrolls again
                await pilot.pause()
            lines = screen_lines(app)
            region, shape = attn.content_region, attn.shape()
            y = region.y + shape.top + row
            assert view_top(app) <= y < len(lines)
            view = app.query_one("#main").scrollable_content_region  # what of the tables is on screen
            left = view.x + (shape.label_w if attn.window.ox else 0)  # right of the pinned row labels
            for c in (col - 1, col):  # the cell, and its neighbour on the left where that is on screen
                x = region.x + shape.xs[c]
                if c < 0 or x < left or x + shape.widths[c] + 2 > view.right:
                    continue
                w, text, marks = shape.widths[c], attn.spec.cells[row][c], attn.cell_classes(row, c)
                text = "" if shape.narrow else text  # 64 positions: shaded blocks (test_views_at_size)
                assert lines[y][x : x + w + 2] == " " + text.rjust(w) + glyph(marks)
                checked += 1
            assert checked, f"cell {row}, {col} is not on the screen"


async def test_an_edit_keeps_the_weights_cell_names_and_changes_only_its_number():
    # a cell's ref names the cell (the inspector's label, the index), never its value: after an edit of
    # one number of a 64 × 64 weight the refs are the same objects, and only the edited cell reads anew
    app = random_app(16, d=64, heads=4, vocab=64)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9")
        g = grid(app, W_O)
        before = g.spec
        g.focus()
        g.move_to(0, 0)
        await press(pilot, "enter", "0", ".", "5", "enter")
        after = grid(app, W_O).spec
        assert after is not before
        assert after.refs is before.refs and after.sources is before.sources
        assert after.refs[0][0].label.startswith("W_O[") and after.refs[0][0].index == (0, 0)
        assert after.cells[0][0] == "0.5000" and before.cells[0][0] != "0.5000"
        changed = [
            (r, c)
            for r in range(len(after.rows))
            for c in range(len(after.cols))
            if after.cells[r][c] != before.cells[r][c]
        ]
        assert changed == [(0, 0)]


async def test_the_walk_keeps_its_gradient_tables_while_the_gradients_are_the_same():
    # entering and leaving the walk (and d) made every gradient's table again each time; the trace's
    # gradients did not change, so none of their tables is made again
    import tinytui.present.gradient_grids as gradient_grids

    app = random_app(16, d=64, heads=4, vocab=64)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9", "d", "b", "b")
        made: list[str] = []
        original = gradient_grids._made_matrix_spec
        gradient_grids._made_matrix_spec = lambda *args: made.append(args[1]) or original(*args)
        try:
            await press(pilot, "b")
            in_walk = {g.spec.key: g.spec for g in panes(app).grids()}
            await press(pilot, "b", "b")
            assert made == []
            again = {g.spec.key: g.spec for g in panes(app).grids()}
            grads = [k for k in in_walk if k.startswith("grad:") and k in again]
            assert grads and all(again[k].cells == in_walk[k].cells for k in grads)
            # an edit changes the gradients: their tables are made again, with the new numbers
            app.apply(lambda s: s.edit("blocks.0.W_O", (0, 0), "0.5"), "edit W_O")
            await pilot.pause()
            assert made, "the edit's new gradients made new tables"
        finally:
            gradient_grids._made_matrix_spec = original
        assert any(key.startswith("grad:") for key in in_walk)
        edited = {g.spec.key: g.spec for g in panes(app).grids()}
        assert any(edited[k].cells != in_walk[k].cells for k in grads if k in edited)
