"""The sentence a step adds when the run's switches put a norm or positions in place of the model's own
(model/switches.py: norm_kind, positions), so the words never pass the switched run off as the model's."""

from __future__ import annotations

from tinytui.model.trace import Trace

NORMS = {"layer": "LayerNorm", "rms": "RMSNorm"}
POSITIONS = {
    "sinusoid": "sinusoids (added to x at step 4)",
    "rope": "RoPE (q and k turned at step 6)",
    "none": "no positions",
    "learned": "learned positions",
}
BARE = {"sinusoid": "sinusoids", "rope": "RoPE", "none": "no positions", "learned": "learned positions"}


def _own(trace: Trace, field: str) -> str | None:
    """The model's own norm or positions (its file's), None when the trace does not say."""
    return getattr(trace.params.cfg, field) if trace.params is not None else None


def norm_switched(trace: Trace) -> str:
    """'' unless the norm switch runs a norm other than the model's."""
    run, own = trace.switches.norm_kind, _own(trace, "norm")
    if run is None or own is None or run == own:
        return ""
    return (
        f"This run has the norm switched from the model's {NORMS[own]} to {NORMS[run]}: the weights are "
        "the same, only the formula differs, so this step and every one after it are recomputed."
    )


def positions_switched(trace: Trace) -> str:
    """'' unless the positions switch runs positions other than the model's."""
    run, own = trace.switches.positions, _own(trace, "positions")
    if run is None or own is None or run == own:
        return ""
    if not trace.switches.positional_encoding:  # neither kind is applied: say which, not what it does
        return (
            f"This run has the positions switched from the model's {BARE[own]} to {BARE[run]}, with the "
            "positional encoding off: no weight is added or removed, and neither is applied."
        )
    return (
        f"This run has the positions switched from the model's {POSITIONS[own]} to {POSITIONS[run]}: "
        "no weight is added or removed."
    )
