"""Shading values with theme colours: sequential for weights in [0, 1], diverging around zero.

Also the colour arithmetic the themes are checked with: CIE lightness and WCAG contrast.
"""

from __future__ import annotations

from collections.abc import Mapping

from textual.color import Color, Lab, lab_to_rgb, rgb_to_lab

BLACK = Color(0, 0, 0)
WHITE = Color(255, 255, 255)


def _c(variables: Mapping[str, str], name: str) -> Color:
    return Color.parse(variables[name])


def mix(a: Color, b: Color, t: float) -> Color:
    """The colour a fraction t of the way from a to b, in CIE L*a*b*.

    Mixing in L*a*b* rather than RGB makes lightness change evenly and in one direction, whatever
    the two ends are, so a heatmap's order reads the same to every eye.
    """
    if t <= 0:
        return a
    if t >= 1:
        return b
    la, lb = rgb_to_lab(a), rgb_to_lab(b)
    return lab_to_rgb(Lab(*(x + (y - x) * t for x, y in zip(la, lb)))).clamped


def heat(variables: Mapping[str, str], value: float) -> Color:
    """Sequential: 0 → tt-heat-low, 1 → tt-heat-high (clamped)."""
    v = min(1.0, max(0.0, float(value)))
    return mix(_c(variables, "tt-heat-low"), _c(variables, "tt-heat-high"), v)


def diverging(variables: Mapping[str, str], value: float, limit: float) -> Color:
    """Diverging around zero: −limit → tt-negative, 0 → tt-zero, +limit → tt-positive."""
    if limit <= 0:
        return _c(variables, "tt-zero")
    v = max(-1.0, min(1.0, float(value) / limit))
    end = "tt-positive" if v >= 0 else "tt-negative"
    return mix(_c(variables, "tt-zero"), _c(variables, end), abs(v))


def lightness(color: Color) -> float:
    """CIE L*: 0 for black, 100 for white; equal steps look equally far apart."""
    return rgb_to_lab(color).L


def luminance(color: Color) -> float:
    """WCAG relative luminance (linear light), 0 for black and 1 for white."""

    def lin(channel: int) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * lin(color.r) + 0.7152 * lin(color.g) + 0.0722 * lin(color.b)


def contrast(a: Color, b: Color) -> float:
    """WCAG contrast ratio, 1 (none) to 21 (black on white)."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def readable_on(background: Color) -> Color:
    """Black or white text, whichever contrasts more with the background (never below 4.5:1)."""
    return BLACK if contrast(BLACK, background) >= contrast(WHITE, background) else WHITE
