"""The themes inside the running app: t cycles, the palette's picker works, changes are remembered."""

from __future__ import annotations

import pytest
from textual.theme import BUILTIN_THEMES

from tests.apps import make_app
from tinytui import themes
from tinytui.settings import load_settings
from tinytui.tui.app import TinyTuiApp
from tinytui.tui.widgets.footer import TinyFooter


@pytest.fixture(autouse=True)
def config_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg"


def make(theme: str = themes.DEFAULT, notices=()) -> TinyTuiApp:
    return make_app(theme=theme, notices=notices)


async def test_opening_theme_is_applied_and_not_saved():
    app = make("tinytui-monochrome")  # e.g. forced by NO_COLOR
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.theme == "tinytui-monochrome"
        assert app.theme_variables["tt-heat-high"] == themes.MONOCHROME.variables["tt-heat-high"]
    assert load_settings()[0].theme is None


async def test_t_cycles_every_tinytui_theme_and_remembers_the_last():
    app = make()
    async with app.run_test(size=(120, 40)) as pilot:
        seen = [app.theme]
        for _ in range(len(themes.THEMES)):
            await pilot.press("t")
            await pilot.pause()
            seen.append(app.theme)
            assert load_settings()[0].theme == app.theme
            assert app.theme_variables["tt-positive"] == themes.THEMES[app.theme].variables["tt-positive"]
        assert seen == [*themes.THEMES, themes.DEFAULT]


async def test_the_key_is_in_help_not_the_crowded_footer():
    # The footer keeps to what fits 80 columns (? Help and q Quit must show); t lives in help, and the
    # palette's Theme picker (tested below) lists every theme.
    app = make()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        footer = {(k.key, k.description, k.action) for k in app.query_one(TinyFooter).shown()}
        assert ("t", "Theme", "do('cycle-theme')") not in footer
        assert ("question_mark", "Help", "do('help')") in footer
        await pilot.press("question_mark")
        await pilot.pause()
        keys = {what: k for _, k, what, _ in app.screen.rows}
        assert keys["Theme"] == "t"


async def test_palette_theme_picker_switches_to_a_builtin_and_remembers_it():
    app = make()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"theme")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await pilot.pause(0.5)
        await pilot.press(*"nord")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await pilot.pause(0.5)
        assert app.theme == "nord"
        # Our variables fall back to ones made for nord's surface, so every pane still shades.
        assert app.theme_variables["tt-zero"] == themes.variable_defaults(BUILTIN_THEMES["nord"])["tt-zero"]
    assert load_settings()[0].theme == "nord"


async def test_notices_from_the_command_line_are_shown():
    app = make(notices=["Ignored the settings file /x/settings.json: not a JSON object."])
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert [n.message for n in app.toasts.notes()] == [
            "Ignored the settings file /x/settings.json: not a JSON object."
        ]
