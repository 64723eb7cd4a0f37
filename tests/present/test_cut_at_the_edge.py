"""A table wider than the view shows that it goes on: the view's last column is a › on every line the
right edge cuts, and the column the edge cuts into is blank (no piece of a number read as a value)."""

import re

from tests.apps import make_app
from tests.tui.helpers import press, view


async def test_a_table_cut_at_the_right_edge_says_so_and_shows_no_piece_of_a_number():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "9", "n", "n")  # step 11: h_pre, eight units wide, is wider than the view
        v = view(app)
        lines = [v.render_line(y).text for y in range(v.size.height)]
        cut = [line for line in lines if "h_pre" in line or re.search(r"^│ \d:", line)]
        rows = [line for line in lines if line.endswith("›") and re.search(r"\d:\w", line)]
        assert any("h_pre" in line and line.endswith("›") for line in cut)
        assert len(rows) >= 2  # the rows of h_pre on screen, each marked
        for line in rows:
            # every number left whole: the last before the › is a full one (−0.1234 and its mark)
            last = line[:-1].rstrip().split()[-1]
            assert re.fullmatch(r"−?\d\.\d{4}[▲▼◆*]?", last), line


async def test_the_cursors_cell_is_never_the_cut_one():
    # moving right across h_pre, each cell the cursor reaches is drawn whole, its › in the column after it
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "9", "n", "n", "tab")
        v = view(app)
        h_pre = next(b for b in v.blocks.boxes if "h_pre" in b.item.title)
        await press(pilot, *["tab"] * h_pre.index)
        for col in range(1, len(h_pre.item.cols)):
            await press(pilot, "right")
            assert (v.cursor_box.index, v.col) == (h_pre.index, col)
            cell = v.cell_region()
            y = cell.y - v.scroll_offset.y
            line = v.render_line(y).text
            x = cell.x - v.scroll_offset.x
            shown = line[x : x + cell.width]  # the number and its mark's column, the cursor's cell whole
            assert shown.startswith(" " + h_pre.item.cells[v.row][col].strip().rjust(cell.width - 2)), line
            assert "›" not in shown and len(shown) == cell.width, line
