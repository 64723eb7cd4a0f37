"""Step 16 at 80×24, the smallest screen the README names: GPT-3's count is on screen before any scroll."""

from tests.apps import make_app
from tests.tui.helpers import view


def on_screen(step_view) -> str:
    """The view's lines as drawn now (its visible rows, scrolled as it is)."""
    rows = step_view.scrollable_content_region.height
    return "\n".join(step_view.render_line(y).text for y in range(rows))


async def test_gpt3s_total_is_on_screen_at_80x24():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("G")
        await pilot.pause()
        shown = on_screen(view(app))
        assert "172 parameters; by the same formula GPT-3 has 174,569,631,744" in shown
        assert view(app).scroll_offset.y == 0
