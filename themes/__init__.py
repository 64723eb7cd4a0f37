"""tinytui's colour themes, through Textual's theme API.

Widgets never name a colour: they ask for one of the SEMANTIC variables below (in TCSS as
`$tt-positive`, in code through `app.theme_variables["tt-positive"]`) and shade with themes.scale.
"""

from __future__ import annotations

from textual.theme import Theme

# The semantic variables every tinytui theme defines.
SEMANTIC: tuple[str, ...] = (
    "tt-positive",  # signed values above zero (diverging scale, one end)
    "tt-negative",  # signed values below zero (the other end)
    "tt-zero",  # the middle of the diverging scale, and exact zeros
    "tt-heat-low",  # attention weight 0 (sequential scale start)
    "tt-heat-high",  # attention weight 1 (sequential scale end)
    "tt-changed-up",  # a value that went up since the comparison trace
    "tt-changed-down",  # a value that went down
    "tt-edited",  # a parameter cell that differs from the model file
    "tt-masked",  # a causally masked attention cell
    "tt-current-step",  # the current step in the step list
    "tt-target",  # the target token in the logit pane
    "tt-predicted",  # the predicted token
)

DARK = Theme(
    name="tinytui-dark",
    primary="#5fa8d3",
    secondary="#9d7cd8",
    accent="#e0af68",
    foreground="#d8dee9",
    background="#15171c",
    surface="#1d2027",
    panel="#262a33",
    warning="#e0af68",
    error="#f7768e",
    success="#9ece6a",
    dark=True,
    variables={
        "tt-positive": "#4f9dde",
        "tt-negative": "#e07b39",
        "tt-zero": "#1d2027",
        "tt-heat-low": "#1d2027",
        "tt-heat-high": "#2f8f9d",
        "tt-changed-up": "#9ece6a",
        "tt-changed-down": "#f7768e",
        "tt-edited": "#e0af68",
        "tt-masked": "#4a4f5c",
        "tt-current-step": "#5fa8d3",
        "tt-target": "#9ece6a",
        "tt-predicted": "#e0af68",
    },
)

THEMES: dict[str, Theme] = {t.name: t for t in (DARK,)}
DEFAULT = DARK.name


def variable_defaults() -> dict[str, str]:
    """Fallbacks for Textual's built-in themes, so every theme in the picker still renders."""
    return dict(DARK.variables)


def register(app) -> None:
    for theme in THEMES.values():
        app.register_theme(theme)
