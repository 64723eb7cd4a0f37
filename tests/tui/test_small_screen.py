"""80×24, the smallest usual terminal: step 8 shows A for both heads without scrolling."""

from tests.apps import make_app
from tests.tui.helpers import press, view
from tinytui.tui.widgets.status_bar import Inspector


def shown(app) -> str:
    """The step view's rows as the screen shows them."""
    v = view(app)
    return "\n".join(v.render_line(y).text for y in range(v.size.height))


def in_view(app) -> bool:
    """Whether the cursor's cell is on one of the step view's rows on screen."""
    v = view(app)
    cell = v.cell_region()
    return cell is not None and v.scroll_offset.y <= cell.y < v.scroll_offset.y + v.size.height


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
