"""The debugger opened in the theme Textual itself starts in is styled in it: setting that theme changes
nothing Textual watches, so the app reads its variables itself (TinyTuiApp.get_css_variables skips the
ones Textual's own __init__ asks for)."""

from __future__ import annotations

from textual.color import Color
from textual.theme import BUILTIN_THEMES

from tests.apps import make_app
from tinytui.tui.widgets.status_bar import StatusBar


async def test_textual_s_own_starting_theme_styles_the_app():
    app = make_app(theme="textual-dark")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        expected = BUILTIN_THEMES["textual-dark"].to_color_system().generate()
        assert app.theme == "textual-dark"
        assert app.theme_variables["primary"] == expected["primary"]
        assert app.query_one(StatusBar).styles.background == Color.parse(expected["panel"])
