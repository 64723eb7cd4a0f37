"""Colours for the step view: a shaded cell's background and the shading's key, worked out once per input.

The same numbers as themes.scale (a mix in L*a*b*), with each end parsed and converted once.
"""

from __future__ import annotations

from functools import lru_cache

from rich.text import Text
from textual.color import Color, Lab, lab_to_rgb, rgb_to_lab

from tinytui.themes import legend

KEY_COLOURS = ("tt-heat-low", "tt-heat-high", "tt-zero", "tt-positive", "tt-negative")


@lru_cache(maxsize=64)
def _lab(value: str) -> tuple[Color, Lab]:
    colour = Color.parse(value)
    return colour, rgb_to_lab(colour)


def _mix(a: str, b: str, t: float) -> Color:
    """themes.scale.mix with each end parsed and converted to L*a*b* once (the same numbers)."""
    (ca, la), (cb, lb) = _lab(a), _lab(b)
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
    if kind == "heat":
        return _mix(variables["tt-heat-low"], variables["tt-heat-high"], t)
    return _mix(variables["tt-zero"], variables["tt-positive" if t >= 0 else "tt-negative"], abs(t))


def shade(variables: dict[str, str], kind: str, value: float, limit: float) -> Color:
    """The background of a shaded cell (at its level)."""
    return shade_at(variables, kind, level(kind, value, limit))


@lru_cache(maxsize=256)
def _legend_cached(theme: str, shade: str, limit: float, room: int, variables: tuple) -> Text | None:
    values = dict(variables)
    key = None
    for cells in (10, 8, 6, 4, 2):
        key = legend(values, shade, limit=limit, width=cells)
        if key.cell_len <= room:
            return key
    return key


def shading_key(theme: str, variables: dict[str, str], shade: str, limit: float, room: int) -> Text | None:
    """The shading's key as wide as fits room (a copy: the caller may style it)."""
    key = _legend_cached(theme, shade, limit, room, tuple((k, variables[k]) for k in KEY_COLOURS))
    return key.copy() if key is not None else None
