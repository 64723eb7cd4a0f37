"""The cursor's table is found again whenever a step's tables change: never an index into the tables of
the step shown before (the walk back reaches a step with no table at all: PE has no parameters)."""

import pytest

from tests.apps import make_app
from tests.tui.helpers import W_O, press, view


@pytest.mark.parametrize(
    "keys",
    [
        ("b", *["n"] * 11, "tab", "n"),  # the walk's step 4, into its tables, on to step 3 (none)
        ("9", "tab", "tab", "tab", "b", *["n"] * 6),  # on W_O, then the walk down to step 3
    ],
    ids=["walk-tab-next", "w_o-then-walk"],
)
async def test_a_step_without_tables_after_the_cursor_was_in_one(keys):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, *keys)
        v = view(app)
        assert app.return_code is None  # still running: no crash screen
        assert "Positional encoding" in v.info_text and v.blocks.boxes == ()
        assert v.cursor_box is None and v.cell_region() is None and v.spec is None
        await press(pilot, "down", "right", "enter", "tab", "shift+tab", "p")  # every cursor key, then back
        assert app.return_code is None
        assert v.cursor_box is not None and v.cursor_box.item.key == "grad:grad.x"


async def test_a_resize_keeps_the_cursor_in_its_table_by_name():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9", "tab", "tab", "tab", "down")
        v = view(app)
        assert v.cursor_box.item.key == W_O and v.row == 1
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert v.cursor_box.item.key == W_O and v.row == 1
