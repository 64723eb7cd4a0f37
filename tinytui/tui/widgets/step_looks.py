"""The step view's looks: each part of its lines (a heading, the cursor, a changed cell, a table's border
and title by the table's role, the words' title and formula, ...) as a colour, a background and a text
style, the colours named by theme variables.

They are not Textual component classes (`StepView > .step-view--heading { ... }`) because Textual styles
each component class as a node of its own every time it styles the widget: as the view mounts, again
when the screen is first shown, and at every focus change, some 3 ms for thirty of them each time.
Here they are read once per theme (the step view's LineStyles), the way Textual reads a component
class's partial style: each colour without its alpha, one of alpha 0 none, the text style added over.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

from rich.style import Style
from textual.color import Color


class Look(NamedTuple):
    color: str = ""  # a theme variable's name ("primary"), or "" for none of its own
    background: str = ""
    text_style: str = ""  # as Rich parses it: "bold underline"


LOOKS: Mapping[str, Look] = MappingProxyType(
    {
        "heading": Look("foreground-muted", text_style="bold"),
        "header": Look("foreground-muted", text_style="bold"),
        "label": Look("foreground-muted"),
        "cursor": Look(text_style="reverse bold"),
        "changed-up": Look(background="tt-changed-up", text_style="bold underline"),
        "changed-down": Look(background="tt-changed-down", text_style="bold underline"),
        "changed": Look(text_style="bold underline"),
        "edited": Look(background="tt-edited", text_style="bold italic"),
        "masked": Look("tt-masked", text_style="dim"),
        "source": Look("foreground", "tt-current-step", "bold underline"),
        "focus": Look("accent"),
        "border-output": Look("primary"),
        "border-param": Look("secondary"),
        "border-input": Look("panel-lighten-2"),
        "border-info": Look("panel-lighten-2"),
        "title-output": Look("primary", text_style="bold"),
        "title-param": Look("secondary"),
        "title-input": Look("foreground-muted"),
        "title-info": Look("foreground-muted"),
        "title-focus": Look("accent", text_style="bold"),
        "bar": Look("primary"),
        "target": Look("tt-target", text_style="bold"),
        "predicted": Look("tt-predicted", text_style="bold"),
        "hint": Look("foreground-muted", text_style="italic"),
        "error": Look("error", text_style="bold"),
        "editing": Look("foreground", "panel-lighten-2", "bold"),
        "caret": Look(text_style="reverse"),
        "title": Look("primary", text_style="bold"),
        "formula": Look("accent", text_style="italic"),
        "fact": Look("foreground", text_style="bold"),
    }
)


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
