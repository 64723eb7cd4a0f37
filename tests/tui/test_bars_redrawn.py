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


async def test_the_status_bar_says_what_each_view_says_when_views_repeat():
    """The bar keeps the words of views it showed (b and Esc go back and forth): each says its own."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9", "tab")
        bar = app.query_one(StatusBar)
        forward = bar.text
        await press(pilot, "b")
        assert "BACKWARD PASS" in bar.text and "BACKWARD PASS" not in forward
        await press(pilot, "b")
        assert bar.text == forward
        for _ in range(8):  # Tab to a weight, then edit it: the loss moves and undo has one change
            await press(pilot, "tab")
            if "to edit" in app.query_one(Inspector).text:
                break
        await press(pilot, "e", "0", ".", "5", "enter")
        edited = bar.text
        assert "undo 1 · redo 0" in edited and "→" in edited
        await press(pilot, "u")
        assert "undo 0 · redo 1" in bar.text and "→" in bar.text  # the loss back, old → new
        await press(pilot, "b")
        assert "BACKWARD PASS" in bar.text and "undo 0 · redo 1" in bar.text
        await press(pilot, "b", "ctrl+r")
        assert bar.text == edited  # redone: the same run as after the edit, said as it was then
