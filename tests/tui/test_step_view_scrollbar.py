"""The step view's horizontal scrollbar is there for a step wider than the view, and goes when a step
that fits is shown: its row is the step's again."""

from __future__ import annotations

from tests.apps import make_app
from tests.tui.helpers import press, view


def screen_lines(app) -> list[str]:
    v = view(app)
    return [v.render_line(y).text for y in range(v.scrollable_content_region.height)]


async def test_a_step_that_fits_after_a_wide_one_has_its_last_row_back():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "9", "n", "n")  # step 11: its widened tables do not fit 80 columns
        assert "Step 11 of 16" in view(app).info_text
        assert view(app).show_horizontal_scrollbar
        await press(pilot, "8", "tab", "down")  # step 8's tables fit; the cursor on head 1's second row
        assert not view(app).show_horizontal_scrollbar
        # head 2's second row, under head 1's table, is on the view's last row (the bar's row before)
        assert "1:woodchuck 0.1382     0.8618" in screen_lines(app)[-1]
