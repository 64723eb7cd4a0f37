"""The five tinytui themes. Each sets every semantic variable (see themes.SEMANTIC).

Rules the tests hold them to: the heat scale runs from the cell background (tt-heat-low) to a colour far
from it in lightness (tt-heat-high); the diverging ends sit at about the same lightness, both away from
tt-zero, so neither sign looks stronger; "ink" colours read against the background; tt-current-step is
a band behind the current step's line, so the theme's own text must read on it.
"""

from __future__ import annotations

from textual.theme import Theme

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
        "tt-current-step": "#33608a",
        "tt-target": "#9ece6a",
        "tt-predicted": "#e0af68",
    },
)

# For projectors: white ground, dark saturated inks (pale tints wash out on a projected screen).
LIGHT = Theme(
    name="tinytui-light",
    primary="#0b5cad",
    secondary="#6a3fb5",
    accent="#a35200",
    foreground="#14171c",
    background="#f7f7f5",
    surface="#ffffff",
    panel="#e3e6ea",
    warning="#a35200",
    error="#b3202a",
    success="#1b7232",
    dark=False,
    variables={
        "tt-positive": "#1d62b3",
        "tt-negative": "#b8500f",
        "tt-zero": "#ffffff",
        "tt-heat-low": "#ffffff",
        "tt-heat-high": "#0d5868",
        "tt-changed-up": "#1b7232",
        "tt-changed-down": "#b3202a",
        "tt-edited": "#8a4b00",
        "tt-masked": "#8d939a",
        "tt-current-step": "#9cc2ec",
        "tt-target": "#1b7232",
        "tt-predicted": "#8a4b00",
        "footer-key-foreground": "#0b5cad",
    },
)

# Black ground, white text, every ink at 7:1 or better against the ground.
HIGH_CONTRAST = Theme(
    name="tinytui-high-contrast",
    primary="#00e5ff",
    secondary="#ffd700",
    accent="#ffd700",
    foreground="#ffffff",
    background="#000000",
    surface="#000000",
    panel="#1f1f1f",
    warning="#ffd700",
    error="#ff6b6b",
    success="#5cff5c",
    dark=True,
    luminosity_spread=0.25,
    text_alpha=1.0,
    variables={
        "tt-positive": "#47b0ff",
        "tt-negative": "#ff9933",
        "tt-zero": "#000000",
        "tt-heat-low": "#000000",
        "tt-heat-high": "#ffd700",
        "tt-changed-up": "#5cff5c",
        "tt-changed-down": "#ff6b6b",
        "tt-edited": "#ff66ff",
        "tt-masked": "#9a9a9a",
        "tt-current-step": "#0047b3",
        "tt-target": "#5cff5c",
        "tt-predicted": "#ffd700",
        "border": "#ffffff",
        "border-blurred": "#9a9a9a",
        "footer-key-foreground": "#ffd700",
    },
)

# Blue against orange, from the Okabe–Ito palette; no green anywhere, so no red/green pair can arise.
# Up/down changes reuse the signed pair: up is blue like positive, down is orange like negative.
COLOUR_BLIND = Theme(
    name="tinytui-colour-blind",
    primary="#56b4e9",
    secondary="#cc79a7",
    accent="#e69f00",
    foreground="#e6e6e6",
    background="#16181d",
    surface="#1e2128",
    panel="#2a2e37",
    warning="#f0e442",
    error="#e69f00",
    success="#56b4e9",
    dark=True,
    variables={
        "tt-positive": "#56b4e9",
        "tt-negative": "#e69f00",
        "tt-zero": "#1e2128",
        "tt-heat-low": "#1e2128",
        "tt-heat-high": "#f0e442",
        "tt-changed-up": "#56b4e9",
        "tt-changed-down": "#e69f00",
        "tt-edited": "#cc79a7",
        "tt-masked": "#5a5f6b",
        "tt-current-step": "#00649c",
        "tt-target": "#56b4e9",
        "tt-predicted": "#e69f00",
    },
)

# Greys only (what NO_COLOR selects). Shade carries magnitude; the minus sign carries sign, and the
# app's glyphs carry change, edit and mask, so positive/negative and up/down are the same grey here.
MONOCHROME = Theme(
    name="tinytui-monochrome",
    primary="#bdbdbd",
    secondary="#9e9e9e",
    accent="#ffffff",
    foreground="#e8e8e8",
    background="#121212",
    surface="#1c1c1c",
    panel="#2e2e2e",
    warning="#d6d6d6",
    error="#ffffff",
    success="#bdbdbd",
    dark=True,
    variables={
        "tt-positive": "#c8c8c8",
        "tt-negative": "#c8c8c8",
        "tt-zero": "#1c1c1c",
        "tt-heat-low": "#1c1c1c",
        "tt-heat-high": "#e0e0e0",
        "tt-changed-up": "#ffffff",
        "tt-changed-down": "#ffffff",
        "tt-edited": "#ffffff",
        "tt-masked": "#6a6a6a",
        "tt-current-step": "#606060",
        "tt-target": "#ffffff",
        "tt-predicted": "#b0b0b0",
        "footer-key-foreground": "#ffffff",
    },
)

ALL: tuple[Theme, ...] = (DARK, LIGHT, HIGH_CONTRAST, COLOUR_BLIND, MONOCHROME)
