"""A widget's looks: each part it draws (a heading, the cursor, a count) as a colour, a background and a
text style, the colours named by theme variables, read once per theme.

In place of Textual component classes (`StepView > .step-view--heading { ... }`): Textual styles each
component class as a node of its own every time it styles the widget (as it mounts, again when the
screen is first shown, at every focus change it gains or loses), a few tenths of a millisecond each. A
look gives what Textual gives for a component class's partial style: each colour without its alpha,
one of alpha 0 none, the text style added over.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from rich.style import Style
from textual.color import Color


class Look(NamedTuple):
    color: str = ""  # a theme variable's name ("primary"), or "" for none of its own
    background: str = ""
    text_style: str = ""  # as Rich parses it: "bold underline"


class ThemeStyles:
    """A widget's looks as Rich styles, each made when first asked and kept until the theme changes."""

    def __init__(self, looks: Mapping[str, Look]) -> None:
        self.looks = looks
        self.theme = ""  # the theme the styles were made in
        self.styles: dict[str, Style] = {}

    def style(self, name: str, theme: str, variables: Mapping[str, str]) -> Style:
        """The look of this name in the theme of this name and variables (App.theme, App.theme_variables)."""
        if theme != self.theme:
            self.theme, self.styles = theme, {}
        style = self.styles.get(name)
        if style is None:
            style = self.styles[name] = look_style(self.looks[name], variables)
        return style


def look_style(look: Look, variables: Mapping[str, str]) -> Style:
    """A look as a Rich style in the theme of these variables (App.theme_variables)."""
    style = Style(color=_color(look.color, variables), bgcolor=_color(look.background, variables))
    return style + Style.parse(look.text_style) if look.text_style else style


def _color(name: str, variables: Mapping[str, str]):  # -> rich.color.Color | None
    """A theme variable's colour: "#1F1F1F99", "ansi_green", "transparent", or a colour and an alpha
    ("ansi_default 50%", as the CSS reads it: the alpha multiplied, an ANSI colour's left alone)."""
    if not name:
        return None
    text, _, alpha = variables[name].partition(" ")
    color = Color.parse(text)
    if alpha.endswith("%"):
        color = color.multiply_alpha(float(alpha[:-1]) / 100)
    return color.rich_color if color.a > 0 else None
