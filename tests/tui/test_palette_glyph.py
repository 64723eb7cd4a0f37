"""The command palette's search icon is a glyph every font has (Textual's is an emoji, a missing-glyph
box in a browser font without emoji, as tinytui serve's page has), and the palette still finds commands."""

from textual.command import SearchIcon

from tests.apps import make_app
from tests.tui.helpers import press
from tinytui.tui.palette import SEARCH_GLYPH, Palette


def _icon(app) -> str:
    return str(app.screen.query_one(SearchIcon).render())


async def test_the_palettes_search_icon_is_plain_text():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "ctrl+p")
        assert isinstance(app.screen, Palette) and _icon(app) == SEARCH_GLYPH == ">"
        assert "🔎" not in app.export_screenshot() and all(ord(c) < 0x10000 for c in SEARCH_GLYPH)
        await pilot.press(*"step 13")
        await pilot.pause(0.5)
        await press(pilot, "enter")
        assert app.session.step == 13
        app.search_themes()  # the palette's Theme command opens the themes in the same palette
        await pilot.pause()
        assert isinstance(app.screen, Palette) and _icon(app) == ">"
        assert "🔎" not in app.export_screenshot()
