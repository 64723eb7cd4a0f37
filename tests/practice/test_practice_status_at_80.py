"""The practice score fits the status bar of an 80 × 24 terminal: it used to be longer than the room
left beside the switches, so the bar left it out and kept the ▲▼ legend instead."""

from __future__ import annotations

import pytest

from tests.apps import make_app
from tinytui.tui.widgets.status_bar import StatusBar


@pytest.mark.asyncio
async def test_the_score_is_on_the_status_bar_at_80_columns():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        for key in ("7", "k"):
            await pilot.press(key)
            await pilot.pause()
        bar = app.query_one(StatusBar).text
        assert "practice: 0/32" in bar.split("\n")[2], bar
        for key in ("8",):
            await pilot.press(key)
            await pilot.pause()
        assert "practice: 0/48 · in all 0/80" in app.query_one(StatusBar).text
