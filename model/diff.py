"""Which cells of a trace changed between two runs, and by how much. The UI highlights from this."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from tinytui.model.trace import Tensor, Trace

TOLERANCE = 1e-9  # float noise below this is not a change a person could see at 4 decimals


@dataclass(frozen=True)
class TensorDiff:
    """How one tensor changed between two runs: which cells moved, by how much, and how many."""

    name: str
    changed: np.ndarray  # bool, the tensor's shape: True where the value moved
    # after − before (zeros where a cell has no counterpart before), or before − after when negated
    moved: np.ndarray
    # The shapes differ. When only the positions' axes grew or shrank (a token appended or taken
    # off), cells are compared at the same position and a new position is new, not changed; any other
    # change of shape (another model) marks every cell changed.
    reshaped: bool
    n_changed: int  # how many cells moved: counted once, read by every table of a step and the step list
    negated: bool = False  # moved is before − after (a diff turned round): delta negates it

    @cached_property  # an undo turns every tensor's diff round, and reads the deltas of the tables shown
    def delta(self) -> np.ndarray:
        """after − before (zeros where a cell did not move or has no counterpart before)."""
        return np.subtract(0.0, self.moved) if self.negated else self.moved

    @property
    def max_abs(self) -> float:
        return float(np.abs(self.moved).max()) if self.moved.size else 0.0


@dataclass(frozen=True)
class TraceDiff:
    """How a run's tensors changed from an earlier run's: one TensorDiff for each tensor, by its name."""

    tensors: dict[str, TensorDiff]

    def __getitem__(self, name: str) -> TensorDiff:
        return self.tensors[name]

    def get(self, name: str) -> TensorDiff | None:
        return self.tensors.get(name)

    @cached_property
    def empty(self) -> bool:
        return not any(d.n_changed for d in self.tensors.values())


class Unchanged(dict[tuple[str, tuple[int, ...]], TensorDiff]):
    """The diffs of tensors that did not move, by (name, shape): read-only views of one zero (one pair of
    views a shape), each made once and shared by every diff this is passed to. A session passes its own
    (GPT-2 small keeps hundreds of tensors an edit: made anew, they were 6.6 ms an edit at 12 blocks of 12
    heads, and as much again an undo); a diff without one makes one for itself. At most KEPT, emptied
    when full (a prompt of every length would otherwise keep each tensor once per length). A dict, so
    a diff already made is found as fast as a dict finds a key."""

    KEPT = 4096

    def __init__(self) -> None:
        super().__init__()
        self._zeros: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]] = {}

    def __missing__(self, key: tuple[str, tuple[int, ...]]) -> TensorDiff:
        name, shape = key
        if len(self) >= self.KEPT:
            self.clear()
            self._zeros.clear()
        zeros = self._zeros.get(shape)
        if zeros is None:
            zeros = self._zeros[shape] = (np.broadcast_to(False, shape), np.broadcast_to(0.0, shape))
        made = self[key] = TensorDiff(name, *zeros, False, 0)
        return made


def diff(
    before: Trace, after: Trace, tol: float = TOLERANCE, unchanged: Unchanged | None = None
) -> TraceDiff:
    """What changed from before to after; unchanged: the diffs of unmoved tensors to share (a session's)."""
    if unchanged is None:
        unchanged = Unchanged()
    out: dict[str, TensorDiff] = {}
    for name, t in after.tensors.items():
        new = t.values
        old = before.tensors[name].values if name in before.tensors else None
        if old is None or old.shape != new.shape:
            common = _common_positions(before.tensors[name], t) if old is not None else None
            if old is None or common is None:
                out[name] = TensorDiff(name, np.ones(new.shape, bool), np.zeros(new.shape), True, new.size)
                continue
            changed, delta = np.zeros(new.shape, bool), np.zeros(new.shape)
            moved = new[common] - old[common]
            changed[common] = np.abs(moved) > tol
            delta[common] = np.where(changed[common], moved, 0.0)
            out[name] = TensorDiff(name, changed, delta, True, int(np.count_nonzero(changed)))
            continue
        if old is new:  # kept by a run that reused before's tensors (trace.run's reuse): nothing moved
            out[name] = unchanged[name, new.shape]
            continue
        delta = new - old
        # Moved: |delta| > tol. A NaN delta (inf − inf: equal infinities; or a NaN on either side)
        # compares False, so it counts as unchanged, exactly as nan_to_num(nan=0) did, in one pass.
        changed = np.abs(delta) > tol
        n_changed = int(np.count_nonzero(changed))
        if n_changed == 0:  # run again to the same values: as if kept
            out[name] = unchanged[name, new.shape]
        elif n_changed == delta.size:  # every cell moved (so no delta is NaN or below tol): delta as it is
            out[name] = TensorDiff(name, changed, delta, False, n_changed)
        else:
            out[name] = TensorDiff(name, changed, np.where(changed, delta, 0.0), False, n_changed)
    return TraceDiff(out)


def turned(made: TraceDiff, before: Trace) -> TraceDiff | None:
    """diff(after, before), given made = diff(before, after) (an undo compares the traces its change
    compared, the other way round): the same cells changed, each delta negated when it is read (0 − d is
    exactly what the subtraction the other way gives, and keeps an unchanged cell's zero). None when the
    two traces do not line up tensor for tensor (a token appended): diff compares those."""
    if made.tensors.keys() != before.tensors.keys() or any(d.reshaped for d in made.tensors.values()):
        return None
    out = {}
    for name in before.tensors:
        d = made.tensors[name]
        # nothing moved: zeros either way round, the same diff again
        out[name] = (
            d if not d.n_changed else TensorDiff(name, d.changed, d.moved, False, d.n_changed, not d.negated)
        )
    return TraceDiff(out)


POSITION_AXES = frozenset({"tokens", "keys"})  # the axes that grow by one when a token is appended


def _common_positions(before: Tensor, after: Tensor) -> tuple[slice, ...] | None:
    """The cells both tensors have at the same positions: the prefix of every positions' axis and all of
    every other (None when another axis changed length: nothing lines up)."""
    if len(before.axes) != len(after.axes):
        return None
    common = []
    for a, b in zip(before.axes, after.axes, strict=True):
        if a.name != b.name or (len(a.labels) != len(b.labels) and a.name not in POSITION_AXES):
            return None
        common.append(slice(0, min(len(a.labels), len(b.labels))))
    return tuple(common)


def no_change(trace: Trace) -> TraceDiff:
    return diff(trace, trace)
