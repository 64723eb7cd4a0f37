"""The widgets' looks (tinytui.tui.widgets.looks: the step view's, the step list's, the status bar's)
are read as Textual reads the same declarations written as component classes: in tinytui's themes,
Textual's own two (alpha colours: "#E0E0E099") and the ANSI themes ("ansi_default 50%", "transparent").
Every theme the palette offers: TINYTUI_ALL_THEMES=1."""

from __future__ import annotations

import os
from typing import ClassVar

from textual.app import App, ComposeResult
from textual.widget import Widget

from tinytui import themes
from tinytui.tui.widgets.looks import Look, look_style
from tinytui.tui.widgets.status_bar import StatusBar
from tinytui.tui.widgets.step_list import StepList
from tinytui.tui.widgets.step_looks import LOOKS as STEP_VIEW_LOOKS

LOOKS = {
    **{f"view-{name}": look for name, look in STEP_VIEW_LOOKS.items()},
    **{f"list-{name}": look for name, look in StepList.LOOKS.items()},
    **{f"bar-{name}": look for name, look in StatusBar.LOOKS.items()},
}


def declarations(look: Look) -> str:
    parts = [
        f"color: ${look.color};" if look.color else "",
        f"background: ${look.background};" if look.background else "",
    ]
    parts.append(f"text-style: {look.text_style};" if look.text_style else "")
    return " ".join(part for part in parts if part)


class Probe(Widget):
    COMPONENT_CLASSES: ClassVar[set[str]] = {f"probe--{name}" for name in LOOKS}
    DEFAULT_CSS = "\n".join(
        f"Probe > .probe--{name} {{ {declarations(look)} }}" for name, look in LOOKS.items()
    )


class ProbeApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        themes.register(self)

    def get_theme_variable_defaults(self) -> dict[str, str]:  # as TinyTuiApp's: tt-… for every theme
        return themes.variable_defaults(self.current_theme)

    def compose(self) -> ComposeResult:
        yield Probe()


async def test_every_look_is_the_style_its_css_would_give_in_every_theme():
    app = ProbeApp()
    async with app.run_test(size=(40, 4)) as pilot:
        probe = app.query_one(Probe)
        names = sorted(app.available_themes)
        if not os.environ.get("TINYTUI_ALL_THEMES"):  # each theme restyles the app: a few, kept fast
            names = [*themes.THEMES, "textual-dark", "textual-light", "ansi-dark", "ansi-light"]
        assert len(set(names) & set(app.available_themes)) == len(names) > 8
        for theme in names:
            app.theme = theme
            await pilot.pause()  # the app restyled in the theme
            for name, look in LOOKS.items():
                css = probe.get_component_rich_style(f"probe--{name}", partial=True)
                assert look_style(look, app.theme_variables) == css, (theme, name)
