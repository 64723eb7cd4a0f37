"""Shading values with theme colours: sequential for weights in [0, 1], diverging around zero."""

from __future__ import annotations

from collections.abc import Mapping

from textual.color import Color


def _c(variables: Mapping[str, str], name: str) -> Color:
    return Color.parse(variables[name])


def heat(variables: Mapping[str, str], value: float) -> Color:
    """Sequential: 0 → tt-heat-low, 1 → tt-heat-high (clamped)."""
    v = min(1.0, max(0.0, float(value)))
    return _c(variables, "tt-heat-low").blend(_c(variables, "tt-heat-high"), v)


def diverging(variables: Mapping[str, str], value: float, limit: float) -> Color:
    """Diverging around zero: −limit → tt-negative, 0 → tt-zero, +limit → tt-positive."""
    if limit <= 0:
        return _c(variables, "tt-zero")
    v = max(-1.0, min(1.0, float(value) / limit))
    end = "tt-positive" if v >= 0 else "tt-negative"
    return _c(variables, "tt-zero").blend(_c(variables, end), abs(v))


def readable_on(background: Color) -> Color:
    """Black or white text, whichever reads better on the background."""
    return Color(0, 0, 0) if background.brightness > 0.55 else Color(255, 255, 255)
