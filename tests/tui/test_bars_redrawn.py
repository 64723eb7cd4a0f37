"""The status bar and the inspector draw again only their lines that say something else, and keep lines
drawn before (status_bar.py): what they show after each key is what they show drawn whole."""

from __future__ import annotations

from textual.geometry import Region
from textual.widget import Widget

from tests.apps import make_app
from tests.tui.helpers import press
from tinytui.tui.widgets.status_bar import Inspector, StatusBar


def drawn(widget: Widget) -> list[str]:
    """The widget's lines as the screen has them (lines not refreshed come from Textual's cache)."""
    lines = widget.render_lines(Region(0, 0, widget.outer_size.width, widget.outer_size.height))
    return [line.text for line in lines]


async def same_as_drawn_whole(pilot, widget: Widget) -> list[str]:
    shown = drawn(widget)
    widget.refresh()
    await pilot.pause()
    assert drawn(widget) == shown
    return shown


async def test_the_bars_after_each_key_are_the_bars_drawn_whole():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9", "tab")
        seen: set[tuple[str, ...]] = set()
        # the cursor over one-line and three-line cells, into the walk and out, an edit, the next step
        for key in ("down", "right", "b", "b", "tab", "tab", "e", "0", ".", "5", "enter", "n", "b", "b", "p"):
            await press(pilot, key)
            for widget in (app.query_one(StatusBar), app.query_one(Inspector)):
                seen.add(tuple(await same_as_drawn_whole(pilot, widget)))
        assert len(seen) > 6  # the lines did change from key to key
