"""What the gallery's pages compare: this run and the one the marks compare with, and the marks between them.

No Textual here. A value's mark is UP, DOWN or CHANGED (the two runs' shapes differ), as in the grids.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tinytui.model.diff import TOLERANCE
from tinytui.model.gallery import Gallery, day
from tinytui.model.params import Params
from tinytui.model.trace import Trace
from tinytui.widgets.cells import CHANGED, DOWN, UP
from tinytui.widgets.view import View


@dataclass(frozen=True)
class Runs:
    """This run and the one the marks compare with, each with its weights and its gallery."""

    trace: Trace
    params: Params
    gallery: Gallery
    base: Trace
    base_params: Params
    base_gallery: Gallery

    @classmethod
    def of(cls, view: View, base_params: Params | None) -> Runs:
        params = view.session.params
        bp = params if base_params is None else base_params
        return cls(view.trace, params, day(params, view.trace), view.base, bp, day(bp, view.base))

    @property
    def same_shape(self) -> bool:
        return len(self.base.prompt) == len(self.trace.prompt)


def marks_of(new: np.ndarray, old: np.ndarray | None) -> np.ndarray:
    """Per value: UP, DOWN, CHANGED (the shapes differ) or "" (unchanged)."""
    new = np.asarray(new, dtype=np.float64)
    out = np.full(new.shape, "", dtype=object)
    if old is None or np.shape(old) != new.shape:
        out[...] = CHANGED
        return out
    delta = new - np.asarray(old, dtype=np.float64)
    out[delta > TOLERANCE] = UP
    out[delta < -TOLERANCE] = DOWN
    return out


def n_marked(marks: np.ndarray) -> int:
    return int(np.count_nonzero(marks != ""))
