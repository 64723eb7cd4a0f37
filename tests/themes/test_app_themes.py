"""The themes inside the running app: t cycles, the palette's Theme entry lists tinytui's themes,
changes are remembered."""

from __future__ import annotations

import pytest
from textual.widgets import Input, OptionList

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
    # palette's Theme entry (tested below) lists every tinytui theme.
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


async def _listed(pilot, until) -> list[str]:
    """The palette's entries as shown, once until(them) holds (the palette lists in batches)."""
    for _ in range(60):
        await pilot.pause(0.05)
        shown = [str(o.prompt) for o in pilot.app.screen.query_one(OptionList).options]
        if until(shown):
            return shown
    return shown


async def test_palette_theme_entry_lists_tinytuis_themes_and_remembers_the_one_chosen():
    app = make()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("ctrl+p")
        app.screen.query_one(Input).value = "theme"  # as typed, in one go (a key at a time is slower)
        found = await _listed(pilot, lambda shown: shown[:1] == ["Theme\nChange the current theme"])
        assert found[0] == "Theme\nChange the current theme"
        await pilot.press("enter")
        listed = await _listed(pilot, lambda shown: len(shown) == len(themes.THEMES))
        # the themes t goes through, in its order, the one in use marked; none of Textual's
        assert listed == [
            "tinytui-dark  (in use)", "tinytui-light", "tinytui-high-contrast", "tinytui-colour-blind",
            "tinytui-monochrome",
        ]  # fmt: skip
        app.screen.query_one(Input).value = "contrast"
        assert await _listed(pilot, lambda shown: len(shown) == 1) == ["tinytui-high-contrast"]
        await pilot.press("enter")
        await pilot.pause()
        assert app.theme == "tinytui-high-contrast"
        assert app.theme_variables["tt-positive"] == themes.HIGH_CONTRAST.variables["tt-positive"]
    assert load_settings()[0].theme == "tinytui-high-contrast"  # remembered, as t's choice is


async def test_notices_from_the_command_line_are_shown():
    app = make(notices=["Ignored the settings file /x/settings.json: not a JSON object."])
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert [n.message for n in app.toasts.notes()] == [
            "Ignored the settings file /x/settings.json: not a JSON object."
        ]
