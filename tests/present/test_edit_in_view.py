"""At 80×24 the cell just edited stays on screen: the edit's words make the status bar taller and the view
shorter, and the view scrolls the cursor's cell back into sight."""

import pytest

from tests.apps import make_app
from tests.tui.helpers import W_O, type_into_cell, view


@pytest.mark.parametrize("row", [0, 3])
async def test_the_edited_cell_is_on_screen_after_enter_at_80x24(row):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("9")
        await pilot.pause()
        await type_into_cell(pilot, app, W_O, row, 0, "0.5")
        await pilot.pause()
        v = view(app)
        assert app.session.params["blocks.0.W_O"][row, 0] == 0.5
        assert v.cursor_box.item.key == W_O and (v.row, v.col) == (row, 0)
        cell = v.cell_region()
        top = v.scroll_offset.y
        assert top <= cell.y < top + v.scrollable_content_region.height, (cell, top, v.size)
        assert "0.5000" in v.render_line(cell.y - top).text
