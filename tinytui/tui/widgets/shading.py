"""Colours for the step view: a shaded cell's background and the shading's key.

The same numbers as themes.scale (a mix in L*a*b*). Shades holds one theme's ends parsed and converted
once; it belongs to the painter of that theme (tinytui.tui.widgets.line_styles), so nothing is kept here.
"""

from __future__ import annotations

from rich.text import Text
from textual.color import Color, Lab, lab_to_rgb, rgb_to_lab

from tinytui.themes import legend

KEY_COLOURS = ("tt-heat-low", "tt-heat-high", "tt-zero", "tt-positive", "tt-negative")


class Shades:
    """A theme's shading: themes.scale.heat and .diverging at a level, with each end parsed and converted
    to L*a*b* once (the same numbers)."""

    def __init__(self, variables: dict[str, str]) -> None:
        self._variables = variables
        self._ends: dict[str, tuple[Color, Lab]] = {}  # at most the five KEY_COLOURS

    def _end(self, name: str) -> tuple[Color, Lab]:
        end = self._ends.get(name)
        if end is None:
            colour = Color.parse(self._variables[name])
            end = self._ends[name] = (colour, rgb_to_lab(colour))
        return end

    def at(self, kind: str, t: float) -> Color:
        """The background at a level (level): 0 … 1 for heat, −1 … 1 for diverging."""
        if kind == "heat":
            return self._mix("tt-heat-low", "tt-heat-high", t)
        return self._mix("tt-zero", "tt-positive" if t >= 0 else "tt-negative", abs(t))

    def _mix(self, a: str, b: str, t: float) -> Color:
        (ca, la), (cb, lb) = self._end(a), self._end(b)
        if t <= 0:
            return ca
        if t >= 1:
            return cb
        return lab_to_rgb(Lab(*(x + (y - x) * t for x, y in zip(la, lb)))).clamped


LEVELS = 1024  # steps of the shading from 0 to either end: finer than a terminal's 256 per channel


def level(kind: str, value: float, limit: float) -> float:
    """Where a value sits on its shading, in LEVELS steps: 0 … 1 for heat, −1 … 1 for diverging (its
    value over limit). Cells at the same level share one style, whatever their values or limit."""
    return levels(kind, (value,), limit)[0]  # type: ignore[return-value]


def levels(kind: str, values, limit: float) -> list[float | None]:
    """level of each of values (None for a cell without a value), a row of a table at a time."""
    if kind == "heat":
        return [None if v is None else round(min(1.0, max(0.0, float(v))) * LEVELS) / LEVELS for v in values]
    if limit <= 0:
        return [None if v is None else 0.0 for v in values]
    return [
        None if v is None else round(max(-1.0, min(1.0, float(v) / limit)) * LEVELS) / LEVELS for v in values
    ]


def shade_at(variables: dict[str, str], kind: str, t: float) -> Color:
    """The background at a level: themes.scale.heat or .diverging, computed the same way."""
    return Shades(variables).at(kind, t)


def shade(variables: dict[str, str], kind: str, value: float, limit: float) -> Color:
    """The background of a shaded cell (at its level)."""
    return shade_at(variables, kind, level(kind, value, limit))


def shading_key(variables: dict[str, str], shade: str, limit: float, room: int) -> Text | None:
    """The shading's key as wide as fits room (its narrowest form when none fits)."""
    key = None
    for cells in (10, 8, 6, 4, 2):
        key = legend(variables, shade, limit=limit, width=cells)
        if key.cell_len <= room:
            return key
    return key
