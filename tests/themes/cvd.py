"""Colour-vision-deficiency simulation, for checking that a theme's pairs stay apart.

Machado, Oliveira and Fernandes (2009), severity 1.0 matrices, applied in linear RGB. Distances are
CIE76 ΔE in L*a*b*: about 2 is just noticeable, 20+ is plainly a different colour.
"""

from __future__ import annotations

from textual.color import Color, rgb_to_lab

MATRICES = {
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "tritanopia": (
        (1.255528, -0.076749, -0.178779),
        (-0.078411, 0.930809, 0.147602),
        (0.004733, 0.691367, 0.303900),
    ),
}


def _linear(channel: int) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _encode(x: float) -> int:
    x = min(1.0, max(0.0, x))
    return round(255 * (12.92 * x if x <= 0.0031308 else 1.055 * x ** (1 / 2.4) - 0.055))


def simulate(color: Color, kind: str) -> Color:
    rgb = (_linear(color.r), _linear(color.g), _linear(color.b))
    return Color(*(_encode(sum(m * v for m, v in zip(row, rgb))) for row in MATRICES[kind]))


def delta_e(a: Color, b: Color) -> float:
    la, lb = rgb_to_lab(a), rgb_to_lab(b)
    return sum((x - y) ** 2 for x, y in zip(la, lb)) ** 0.5
