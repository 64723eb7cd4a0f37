"""A loss curve as one line of block characters, for the status line (plain text, so no colour needed)."""

from __future__ import annotations

from collections.abc import Sequence

BLOCKS = "▁▂▃▄▅▆▇█"


def sample(values: Sequence[float], width: int) -> list[float]:
    """At most width values, evenly spaced, always keeping the first and the last."""
    n = len(values)
    if n <= width or width < 2:
        return list(values[:width]) if width < 2 else list(values)
    return [values[round(i * (n - 1) / (width - 1))] for i in range(width)]


def sparkline(values: Sequence[float], width: int = 24) -> str:
    """Lowest value ▁, highest █, linear in between; a flat curve is a row of ▄."""
    shown = sample(values, width)
    if not shown:
        return ""
    lo, hi = min(shown), max(shown)
    if hi == lo:
        return BLOCKS[3] * len(shown)
    top = len(BLOCKS) - 1
    return "".join(BLOCKS[round((v - lo) / (hi - lo) * top)] for v in shown)
