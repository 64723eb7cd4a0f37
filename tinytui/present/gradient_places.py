"""Where the gradient overlay (d) put each weight's ∂L/∂w in a step as laid out: beside the weight's table
(on the same lines, when both fit the view's width) or below it. Read off the layout, so what the app says
about the overlay is what the screen shows.
"""

from __future__ import annotations

from dataclasses import dataclass

from tinytui.present.grid_spec import GridSpec
from tinytui.present.step_layout import Box, StepLayout

WEIGHT, GRADIENT = "param:", "grad:grad."


@dataclass(frozen=True)
class GradientPlace:
    """Where one weight's gradient table sits in a step's layout: beside the weight's table or under it."""

    weight: str  # the weight table's title, as the screen shows it: "W_Q"
    beside: bool  # True: on the weight's lines, to its right; False: under it


def gradient_places(layout: StepLayout) -> tuple[GradientPlace, ...]:
    """Each weight table of the layout that has its gradient's table, in order, and where that is."""
    weights: dict[str, Box] = {}
    for box in layout.boxes:
        item = box.item
        if isinstance(item, GridSpec) and item.key.startswith(WEIGHT):
            weights.setdefault(_base(item.key).removeprefix(WEIGHT), box)
    out, seen = [], set()
    for box in layout.boxes:
        item = box.item
        if not (isinstance(item, GridSpec) and item.key.startswith(GRADIENT)) or _base(item.key) in seen:
            continue
        seen.add(_base(item.key))
        weight = weights.get(_base(item.key).removeprefix(GRADIENT))
        if weight is not None:
            out.append(GradientPlace(weight.item.title, box.y == weight.y and box.x > weight.x))
    return tuple(out)


def _base(key: str) -> str:
    """A table's key without the part number a table too wide for the view is split into ('…#1')."""
    return key.partition("#")[0]


def where_said(places: tuple[GradientPlace, ...]) -> str:
    """'beside each weight table', 'below each weight table', or per table: 'beside W_Q and below W_O'."""
    if all(p.beside for p in places):
        return "beside each weight table"
    if not any(p.beside for p in places):
        return "below each weight table (no room beside it at this width)"
    beside = [p.weight for p in places if p.beside]
    below = [p.weight for p in places if not p.beside]
    return f"beside {_listed(beside)}, below {_listed(below)} (no room beside it)"


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
