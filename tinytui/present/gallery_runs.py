"""What the gallery's pages compare: this run and the one the marks compare with, and the marks between them.

No Textual here. A value's mark is UP, DOWN or CHANGED (the two runs' shapes differ), as in the grids.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from tinytui.lesson.gallery_reading import (
    ArtistRules,
    Caption,
    Gallery,
    ScaleRow,
    artist_rules,
    captions,
    day,
    day_captions,
    scale_card,
    shade,
)
from tinytui.model.analysis.attribution import Attribution, attribution
from tinytui.model.analysis.circuits import HeadCircuits, head_circuits
from tinytui.model.diff import TOLERANCE
from tinytui.model.params import Params
from tinytui.model.trace import Trace
from tinytui.present.grid_spec import CHANGED, DOWN, UP
from tinytui.present.view import View

# The weights that made a view's comparison trace (the app's to know); None: the marks of the weights' own
# products (a head's strokes, the circuits) compare with today's weights.
ComparedWeights = Callable[[View], Params | None]


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
        params = view.params
        bp = params if base_params is None else base_params
        return cls(view.trace, params, day(params, view.trace), view.base, bp, day(bp, view.base))

    @property
    def same_shape(self) -> bool:
        return len(self.base.prompt) == len(self.trace.prompt)

    def artist_rules(self, block: int, head: int) -> tuple[ArtistRules, ArtistRules | None]:
        """Head `head` of `block`'s rules in this run, and in the compared run when the prompts match."""
        now = artist_rules(self.params, self.trace, block, head)
        was = artist_rules(self.base_params, self.base, block, head) if self.same_shape else None
        return now, was

    def circuits(
        self, block: int, head: int, ids: tuple[int, ...] | None = None
    ) -> tuple[HeadCircuits, HeadCircuits]:
        """Head `head` of `block`'s QK and OV circuits, now and in the compared run's weights (given ids,
        over those tokens only)."""
        return head_circuits(self.params, block, head, ids), head_circuits(self.base_params, block, head, ids)

    def attribution(self) -> tuple[Attribution, Attribution | None]:
        """The last position's logits split into parts, now and (same prompt, same tokens) before."""
        now = attribution(self.params, self.trace)
        if not now.exact or not self.same_shape:
            return now, None
        try:
            return now, attribution(self.base_params, self.base, list(now.tokens))
        except ValueError:
            return now, None

    def captions(self) -> list[Caption]:
        return captions(self.gallery)

    def day_captions(self, block: int) -> list[Caption]:
        return day_captions(self.gallery, block)

    def scale_card(self) -> list[ScaleRow]:
        return scale_card(self.params.cfg)

    def picture(self, vector: np.ndarray, limit: float) -> np.ndarray | None:
        """A vector as a small RGB picture shaded on ±limit; None when d_model has no picture shape."""
        shape = self.gallery.picture_shape
        return None if shape is None else shade(vector, limit, shape)


def kind_limits(strips: Iterable[tuple[str, np.ndarray]]) -> dict[str, float]:
    """Each kind of strip's shading scale, in the order the kinds come: the largest |value| any painting's
    strip of that kind has (1 when they are all 0). One scale over the whole run left the small vectors
    (the stock images, the position marks, an artist's strokes) all but blank beside the grown paintings;
    a scale per kind shows each one's shades, and the paintings of one kind stay comparable."""
    limits: dict[str, float] = {}
    for kind, vector in strips:
        m = float(np.max(np.abs(np.asarray(vector, dtype=np.float64)), initial=0.0))
        limits[kind] = max(limits.get(kind, 0.0), m if np.isfinite(m) else 0.0)
    return {kind: m if m > 0 else 1.0 for kind, m in limits.items()}


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
