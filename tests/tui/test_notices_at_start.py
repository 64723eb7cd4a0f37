"""A notice raised as the app opens (a settings file ignored, a replay's warning) is on the screen from
its first frame, at the terminal's size, not only in the notice log."""

from __future__ import annotations

import html

import pytest

from tests.apps import make_app

WARNING = "Ignored the settings file /x/settings.json: not a JSON object."


def on_screen(app) -> str:
    """The text of the screen as it is drawn (the screenshot's, its spaces made plain)."""
    return html.unescape(app.export_screenshot()).replace("\xa0", " ")


@pytest.mark.parametrize("start, size", [((120, 40), (120, 40)), ((80, 24), (120, 40))])
async def test_a_notice_from_the_command_line_is_drawn_at_once(start, size):
    app = make_app(notices=[WARNING])
    async with app.run_test(size=start) as pilot:
        if size != start:  # a terminal tells its size after the app has started
            await pilot.resize_terminal(*size)
        await pilot.pause()
        assert "not a JSON object." in on_screen(app)
