"""tinytui's colour themes, through Textual's theme API.

Widgets never name a colour: they ask for one of the SEMANTIC variables below (in TCSS as
`$tt-positive`, in code through `app.theme_variables["tt-positive"]`) and shade with themes.scale.
"""

from __future__ import annotations

from textual.color import Color, ColorParseError
from textual.theme import BUILTIN_THEMES, Theme

from tinytui.themes.legend import legend
from tinytui.themes.palettes import ALL, COLOUR_BLIND, DARK, HIGH_CONTRAST, LIGHT, MONOCHROME

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
    "tt-current-step",  # the band behind the current step in the step list (foreground text reads on it)
    "tt-target",  # the target token in the logit pane
    "tt-predicted",  # the predicted token
)

THEMES: dict[str, Theme] = {t.name: t for t in ALL}
DEFAULT = DARK.name
MONOCHROME_NAME = MONOCHROME.name
# Short names accepted on the command line: "light" for "tinytui-light", and the American spelling.
ALIASES: dict[str, str] = {
    **{name.removeprefix("tinytui-"): name for name in THEMES},
    "color-blind": COLOUR_BLIND.name,
    "mono": MONOCHROME.name,
}

__all__ = [
    "ALIASES",
    "COLOUR_BLIND",
    "DARK",
    "DEFAULT",
    "HIGH_CONTRAST",
    "LIGHT",
    "MONOCHROME",
    "MONOCHROME_NAME",
    "SEMANTIC",
    "THEMES",
    "choose",
    "legend",
    "next_theme",
    "register",
    "resolve",
    "variable_defaults",
]


def _surface(theme: Theme) -> Color | None:
    """The theme's cell background as an opaque colour, or None (ANSI themes leave it to the terminal)."""
    try:
        color = Color.parse(theme.to_color_system().generate()["surface"])
    except (ColorParseError, KeyError):
        return None
    return None if color.ansi is not None or color.a < 1 else color


def variable_defaults(theme: Theme | None = None) -> dict[str, str]:
    """Fallbacks for themes that are not tinytui's (a Textual built-in a settings file names).

    A light built-in borrows the light theme's inks, a dark one the dark theme's; zero and weight 0
    take the theme's own surface so empty cells blend into it. A tinytui theme sets every one itself.
    """
    if theme is not None and theme.name in THEMES:  # what Textual keeps anyway; no surface (~0.5 ms)
        return {name: theme.variables[name] for name in SEMANTIC}
    base = LIGHT if theme is not None and not theme.dark else DARK
    values = {name: base.variables[name] for name in SEMANTIC}
    surface = _surface(theme) if theme is not None else None
    if surface is not None:
        values["tt-zero"] = values["tt-heat-low"] = surface.hex6
    return values


def register(app) -> None:
    for theme in THEMES.values():
        app.register_theme(theme)


def names_line() -> str:
    return ", ".join(THEMES)


def resolve(name: str) -> str:
    """A theme name as typed (full, short or a Textual built-in) → its registered name.

    Raises ValueError with a one-line message listing tinytui's themes.
    """
    key = name.strip().lower()
    if key in THEMES or key in BUILTIN_THEMES:
        return key
    if key in ALIASES:
        return ALIASES[key]
    raise ValueError(
        f"{name!r} is not a theme; choose one of {names_line()} "
        "(the part after 'tinytui-' is enough), or a Textual built-in such as nord"
    )


def choose(requested: str | None, remembered: str | None, no_color: bool) -> tuple[str, str | None]:
    """The theme to start with and a notice for the user, if any.

    NO_COLOR wins over everything; then the command line; then the remembered choice; then the default.
    `requested` must already be resolved; a remembered name that no longer exists is skipped with a notice.
    """
    if no_color:
        return MONOCHROME.name, None
    if requested is not None:
        return requested, None
    if remembered is not None:
        try:
            return resolve(remembered), None
        except ValueError:
            return DEFAULT, f"The remembered theme {remembered!r} no longer exists; using {DEFAULT}."
    return DEFAULT, None


def next_theme(current: str) -> str:
    """The tinytui theme after `current`, wrapping; from a non-tinytui theme, the first one."""
    order = list(THEMES)
    if current not in THEMES:
        return order[0]
    return order[(order.index(current) + 1) % len(order)]
