"""The view layer's economy: an edit redraws only the lines it changed, the cursor and the operand marks
only theirs, Tab moves between the step view's tables, and an unchanged table keeps its spec."""

import numpy as np

from tests.apps import make_app, random_app
from tests.tui.helpers import W_O, grid, panes, press, view
from tinytui.present.grid_spec import EDITED, GridSpec


async def test_an_edit_redraws_only_the_lines_it_changed():
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
        v = view(app)
        v.lines_drawn = 0
        typed = f"{spec.limit / 2:.2f}"
        await pilot.press(*typed)
        await pilot.pause()
        # typing draws the cell's own line again, once a key, and no other line
        assert v.lines_drawn == len(typed)
        assert g.buffer == typed
        before = {b.item.key: b.item for b in v.blocks.boxes}
        widths = {b.item.key: b.width for b in v.blocks.boxes}
        v.lines_drawn = 0
        await press(pilot, "enter")
        assert not g.editing and g.cell_classes(r, c) == {EDITED}
        # the lines drawn again are the rows whose cells changed (every line of a table whose shading
        # scale or width moved), the edited table's bottom border (the editor's keys left it) and the cursor's
        # row (the typing left it): not every line of the step
        changed = 0
        for b in v.blocks.boxes:
            old, new = before[b.item.key], b.item
            if old is new or not hasattr(new, "cells"):
                continue
            if old.limit != new.limit or widths[b.item.key] != b.width:  # (a column took a minus sign)
                changed += b.height
                continue
            changed += sum(
                old.cells[i] != new.cells[i] or old.marks[i] != new.marks[i] or old.values[i] != new.values[i]
                for i in range(len(new.rows))
            )
        assert 0 < v.lines_drawn <= changed + 2, (v.lines_drawn, changed)
        assert changed < sum(b.height for b in v.blocks.boxes) / 2


async def test_a_column_that_widens_redraws_its_table_and_leaves_no_line_stale():
    """An edit that gives a column its first minus sign widens it (and its table) without moving any
    table to other lines: the lines of that table are drawn again, and the screen is what drawing it
    all anew draws."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9")
        v = view(app)
        mha = next(b for b in v.blocks.boxes if b.item.key == "output:blocks.0.mha")
        assert all(mha.item.cells[r][1] == "0.0000" for r in range(4))  # "action": no minus sign
        g = grid(app, W_O)
        g.focus()
        g.move_to(0, 1)  # h1.k0 → action: the action column becomes head 1's first value column
        await pilot.pause()
        await press(pilot, "e", "1", "enter")
        wider = next(b for b in v.blocks.boxes if b.item.key == "output:blocks.0.mha")
        assert wider.width == mha.width + 1 and wider.y == mha.y
        assert "−1.7320" in "".join(v.box_text(wider))
        shown = app.export_screenshot()
        v.refresh()
        await pilot.pause()
        assert app.export_screenshot() == shown


async def test_a_switch_flipped_back_and_forth_finds_its_lines_drawn():
    """Lines are kept by what they show: the mask off a second time (the same numbers, the same marks
    against the mask on) is drawn from the cache, and reads as it did the first time."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "8")
        v = view(app)
        start = v.text()
        await press(pilot, "m")
        mask_off = v.text()
        assert mask_off != start and "▲" in mask_off
        await press(pilot, "m")
        assert v.text() != mask_off
        v.lines_drawn = 0
        await press(pilot, "m")
        assert v.text() == mask_off
        assert v.lines_drawn == 0


async def test_the_cursor_and_the_operand_marks_redraw_only_their_lines():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "7")  # the scores: the cursor on a computed cell lights its operands
        g = panes(app).grids()[0]
        g.focus()
        await pilot.pause()
        v = view(app)
        v.lines_drawn = 0
        await press(pilot, "down")
        marked = sum(len({r for r, _ in cells}) for cells in v.lit.values())
        # the row the cursor left and the one it took, then the rows whose ▸ marks came or went
        assert 0 < v.lines_drawn <= 2 + 2 * marked, (v.lines_drawn, marked)
        v.lines_drawn = 0
        await press(pilot, "up", "down")  # lines seen before: drawn from the cache
        assert v.lines_drawn == 0


async def test_tab_goes_from_table_to_table_inside_the_view_then_on():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9", "tab")  # from the step list into the view: its first table
        v = view(app)
        assert app.focused is v and v.table == 0
        keys = [b.item.key for b in v.blocks.boxes]
        for i in range(1, len(keys)):
            await press(pilot, "tab")
            assert app.focused is v and v.table == i and (v.row, v.col) == (0, 0)
        await press(pilot, "shift+tab")
        assert v.table == len(keys) - 2
        await press(pilot, "tab", "tab")
        assert app.focused is not v  # past the last table: on to the next widget


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


async def test_a_cell_is_typed_into_in_its_own_place():
    """The editor is the cell itself: its value selected at first (a key replaces it), the caret moved
    by the arrows, Home/End and ctrl+a/e, ctrl+u and ctrl+k as in a shell; q and n type, they do not act;
    Esc leaves the weight as it was."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9")
        g = grid(app, W_O)
        g.focus()
        g.move_to(0, 0)
        await press(pilot, "enter")
        assert g.editing and g.buffer == "1.0000"
        line = next(line for line in g.view.box_text(g.box) if line.lstrip("│┃ ").startswith("h1.k0"))
        assert "1.0000" in line  # drawn where the number was
        await pilot.press("2", "left", "left", "q", "n", "home", "-", "end", "5")
        await pilot.pause()
        assert g.buffer == "-qn25" and app.session.step == 9  # q and n were text
        await pilot.press("left", "ctrl+k", "ctrl+a", "right", "ctrl+u", "0", ".", "5")
        await pilot.pause()
        assert g.buffer == "0.5qn2"
        await pilot.press("escape")
        await pilot.pause()
        assert not g.editing and app.session.params == app.session.model.params
        await press(pilot, "e")
        await pilot.press("backspace", "-", "2", "enter")
        await pilot.pause()
        assert not g.editing and float(app.session.params["blocks.0.W_O"][0, 0]) == -2.0


def test_a_weight_patched_after_an_edit_is_the_weight_made_anew():
    # an edit or an undo writes only the cells that moved into the weight's last grids: every field of
    # them, the inspector's lines and the shading's scale too, must be what making them anew gives
    from tinytui.present.grid_spec import KeptSpecs
    from tinytui.present.param_grids import _param_grids, param_grids
    from tinytui.present.view import View

    session, kept = random_app(16, d=64, heads=4, vocab=64).session, KeptSpecs()  # as the app keeps them
    session.goto(9)
    w_o = session.params["blocks.0.W_O"]
    largest = tuple(int(i) for i in np.unravel_index(np.argmax(np.abs(w_o)), w_o.shape))

    def same_as_made_anew() -> GridSpec:
        view = View.of(session, kept=kept)
        (patched,) = param_grids(view, "blocks.0.W_O")
        (fresh,) = _param_grids(view, "blocks.0.W_O", None)
        for field in ("cells", "marks", "values", "limit", "refs", "sources", "rows", "cols", "title"):
            assert getattr(patched, field) == getattr(fresh, field), field
        assert tuple(patched.details) == tuple(fresh.details)
        return patched

    first = same_as_made_anew()
    session.edit("blocks.0.W_O", (3, 5), -0.25)  # one cell, below the scale's end
    after = same_as_made_anew()
    assert after.cells[3][5] == "−0.2500" and EDITED in after.marks[3][5]
    assert after.limit == first.limit and after.refs is first.refs
    assert "(model file" in after.details[3][5] and "−0.2500" in after.details[3][5]
    session.edit("blocks.0.W_O", largest, 0.0)  # the largest goes: the scale's end comes down
    assert same_as_made_anew().limit < first.limit
    session.edit("blocks.0.W_O", (0, 1), 9.0)  # past the end: the scale follows
    assert same_as_made_anew().limit == 9.0
    session.undo()
    session.undo()
    session.undo()  # back to the model file's numbers: no cell marked edited
    back = same_as_made_anew()
    assert back.cells == first.cells and not any(EDITED in m for row in back.marks for m in row)
