"""A step of another length moves the step view's scrollbar thumb: the bar drawn after it is the bar drawn
whole at that length (widgets/virtual_size.py draws again only the cells that change)."""

from __future__ import annotations

from textual.geometry import Region

from tests.apps import make_app
from tests.tui.helpers import press, view


def bar_cells(app) -> list[tuple[str, object]]:
    bar = view(app).vertical_scrollbar
    strips = bar.render_lines(Region(0, 0, bar.size.width, bar.size.height))
    return [(seg.text, seg.style) for strip in strips for seg in strip]


def thumb_rows(cells: list[tuple[str, object]]) -> int:
    return sum(1 for _, style in cells if style is not None and style.reverse)


async def test_the_thumb_after_the_walk_and_back_is_the_whole_bar_drawn_anew():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9", "tab")
        forward = bar_cells(app)
        for key in ("b", "b", "b"):  # step 9's walk is longer than its forward tables: a shorter thumb
            await press(pilot, key)
            drawn = bar_cells(app)
            view(app).vertical_scrollbar.refresh()
            await pilot.pause()
            assert drawn == bar_cells(app)
        walking = bar_cells(app)
        assert thumb_rows(walking) < thumb_rows(forward)
        await press(pilot, "b")
        assert bar_cells(app) == forward
