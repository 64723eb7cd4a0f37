"""One line after a toggle or an edit: what changed, and why the prediction did or did not move.

change_note(before, after, what) reads only the two traces (through diff.py): which steps' values
changed, whether the last position's row changed (the only row the prediction reads), and whether the
prediction and the loss moved, by how much. A reason is given only when the traces show it, e.g. the mask
toggled in a one-block model leaves the last row alone, or an edit stopped at units ReLU holds at zero.
"""

from __future__ import annotations

import re

import numpy as np

from tinytui.lesson.arch_names import Arch
from tinytui.lesson.step_path import changed_per_step
from tinytui.lesson.texts.wording import quoted
from tinytui.model.diff import TraceDiff, diff
from tinytui.model.names import prefix, split
from tinytui.model.trace import Trace


def _f(x: float) -> str:
    s = f"{x:.4f}"
    return "0.0000" if s == "-0.0000" else s


def _signed(x: float) -> str:
    s = _f(x)
    return s if s.startswith("-") or s == "0.0000" else "+" + s


def _loss_change(before: float, after: float) -> str:
    """The loss's change, signed; where the two losses as shown subtract to another 4th decimal (1.1690 →
    1.0665 is −0.1025 to a reader, −0.1024 unrounded), it says the figure comes from before rounding."""
    change = _signed(after - before)
    shown = _signed(float(_f(after)) - float(_f(before)))
    return change if change == shown else f"{change} before rounding"


def changed_steps(d: TraceDiff, before: Trace, after: Trace, written: dict | None = None) -> list[int]:
    """The stage numbers any of whose tensors changed, in any block (written: changed_per_step's)."""
    cfg = after.cfg
    counts = changed_per_step(d, cfg.n_heads, cfg.n_blocks, Arch.of(cfg), written)
    return sorted({step.number for step, n in counts.items() if n})


def _ranges(steps: list[int]) -> str:
    """[8, 9, 10, 12] -> 'steps 8–10 and 12'."""
    runs: list[list[int]] = []
    for n in steps:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    parts = [f"{r[0]}–{r[-1]}" if len(r) > 2 else " and ".join(map(str, r)) for r in runs]
    word = "step" if len(steps) == 1 else "steps"
    return f"{word} " + (", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0])


def _outcome(before: Trace, after: Trace) -> str:
    """What happened to the prediction and the loss, with the numbers."""
    p0, p1 = float(before["probs"].max()), float(after["probs"].max())
    if np.array_equal(before["logits"], after["logits"]):
        still = f"({quoted(after.prediction)}, p {_f(p1)})"
        return f"the prediction {still} and the loss ({_f(after.loss)}) did not move"
    loss = f"loss {_f(before.loss)} → {_f(after.loss)} ({_loss_change(before.loss, after.loss)})"
    if before.prediction == after.prediction:
        return f"the prediction stays {quoted(after.prediction)} (p {_f(p0)} → {_f(p1)}); {loss}"
    moved = f"{quoted(before.prediction)} (p {_f(p0)}) to {quoted(after.prediction)} (p {_f(p1)})"
    return f"the prediction moves from {moved}; {loss}"


Edited = tuple[str, tuple[int, ...]]  # a weight's canonical name and the index of the cell edited
UNIT_AXIS = {"W_1": 1, "b_1": 0, "W_2": 0}  # which axis of each feed-forward weight counts its units


def _dead_units(trace: Trace, block: int) -> set[int]:
    if trace.switches.activation != "relu" or trace.cfg.gated:
        return set()
    h = trace[prefix(block) + "hidden"]
    return {int(u) for u in np.flatnonzero((h == 0).all(axis=0))}


def _why_nothing(before: Trace, after: Trace, what: str, edited: Edited | None) -> str:
    """Why an edit changed no value of the run, when the traces show it."""
    if edited is not None:
        block, local = split(edited[0])
        axis = UNIT_AXIS.get(local)
        if block is not None and axis is not None and len(edited[1]) > axis:
            unit = edited[1][axis]
            if unit in _dead_units(before, block) & _dead_units(after, block):
                return (
                    f": unit {unit} is zero at every position (ReLU cuts it), so the weight is multiplied "
                    "by zero"
                )
    if (after.switches.ablated_heads or after.switches.ablated) and re.search(r"\bW_(V|O|Q|K)\b", what):
        return ": the weight belongs to an ablated head, whose output is replaced by zeros"
    return ": the value did not change, or nothing this run computes depends on it"


def _length_change(d: TraceDiff, before: Trace, after: Trace) -> str:
    """The prompt grew or shrank: the rows it added or dropped, and which steps changed at the positions
    both runs have (diff compares those; a new row is new, not changed)."""
    n0, n1 = len(before.prompt), len(after.prompt)
    if before.cfg != after.cfg or n0 == n1:
        return "the shapes changed, so every value counts as changed"
    rows = f"position {min(n0, n1)}" if abs(n1 - n0) == 1 else f"positions {min(n0, n1)}–{max(n0, n1) - 1}"
    if n1 > n0:
        how = f"the prompt grew from {n0} to {n1} tokens: every per-position table has a new row for {rows}"
    else:
        how = f"the prompt shrank from {n0} to {n1} tokens: every per-position table lost its row for {rows}"
    steps = changed_steps(d, before, after)
    return f"{how}; besides, {_ranges(steps)} changed" if steps else f"{how}; nothing else changed"


_NORM_WORDS = {
    "rms": "each row is divided by its root mean square, with no mean taken away",
    "layer": "LayerNorm{again}: each row's mean is taken away before it is divided by its spread",
}
_POSITION_WORDS = {
    "rope": "nothing is added to x at step 4 now; step 6 turns q and k by position",
    "sinusoid": "step 4 adds the sinusoids to x{again}; q and k are no longer turned",
    "none": "no position is added or turned",
    "learned": "step 4 adds the learned rows of P",
}


def _again(after: Trace, switch: str) -> str:
    """' again' when the switch went back to the model's own norm or positions; '' when it put in one the
    model never had (a rotary model's sinusoids are new to it)."""
    return " again" if getattr(after.switches, switch) is None else ""


def _kind_change(d: TraceDiff, before: Trace, after: Trace) -> str:
    """The norm or the positions switched: what the new one does, and the steps whose values changed
    (a tensor only one of the runs has, q_pre or ln1.mean_sq, counts as changed)."""
    said = []
    if before.cfg.norm != after.cfg.norm:
        words = _NORM_WORDS[after.cfg.norm].format(again=_again(after, "norm_kind"))
        said.append(f"{words} (steps 5, 11 and 13)")
    if before.cfg.positions != after.cfg.positions:
        if after.switches.positional_encoding:
            said.append(_POSITION_WORDS[after.cfg.positions].format(again=_again(after, "positions")))
        else:
            kind = {"rope": "RoPE", "sinusoid": "sinusoids"}.get(after.cfg.positions, after.cfg.positions)
            said.append(
                f"the positions are {kind} now, but with the positional encoding off none is added or turned"
            )
    steps = changed_steps(d, before, after)
    return "; ".join(said) + (f"; {_ranges(steps)} changed" if steps else "")


def change_note(
    before: Trace,
    after: Trace,
    what: str,
    d: TraceDiff | None = None,
    edited: Edited | None = None,
    written: dict | None = None,
) -> str:
    """One line, e.g. 'mask off: steps 8–12 changed, but only in the rows before the last; …'.
    d: diff(before, after) when the caller has it already; edited: the weight and cell an edit changed;
    written: the caller's store of the names each step writes (one who notes every change keeps one)."""
    d = diff(before, after) if d is None else d
    if before.cfg.norm != after.cfg.norm or before.cfg.positions != after.cfg.positions:
        return f"{what}: {_kind_change(d, before, after)}; {_outcome(before, after)}."
    if any(t.reshaped for t in d.tensors.values()):
        return f"{what}: {_length_change(d, before, after)}; {_outcome(before, after)}."
    if d.empty:
        why = _why_nothing(before, after, what, edited)
        return f"{what}: nothing in the run changed{why}; {_outcome(before, after)}."
    cfg = after.cfg
    steps = changed_steps(d, before, after, written)
    last = prefix(cfg.n_blocks - 1) + "y"
    last_row_same = not d[last].changed[-1].any()
    sw0, sw1 = before.switches, after.switches
    out = f"{what}: {_ranges(steps)} changed"

    # where the change stopped, when it stopped before the prediction
    relu = sw0.activation == sw1.activation == "relu" and not cfg.gated  # a gated model has no hidden_pre
    pre_b, hid_b = prefix(0) + "hidden_pre", prefix(0) + "hidden"
    if relu and cfg.n_blocks == 1 and d[pre_b].n_changed and not d[hid_b].n_changed and not d["x"].n_changed:
        out += ", but only in pre-activations that stay at or below zero, so ReLU outputs 0 either way"
    elif not d[last].n_changed and not d["z"].n_changed:
        if d["logits"].n_changed and not cfg.tied:
            out += ": z is the same, so the change enters through W_U, which only step 14 reads"
        elif d["logits"].n_changed and not d["emb"].n_changed:
            out += (
                ": z is the same, so the change enters through E read again at step 14 (no prompt token uses "
            )
            out += "the edited row)"
    elif last_row_same and len(after.prompt) > 1:
        out += ", but only in the rows before the last"
        if sw0.causal_mask != sw1.causal_mask and cfg.n_blocks == 1:
            out += (
                ": the last position already saw every token with the mask on, so its row (the only "
                "one the prediction reads) is the same"
            )
        else:
            out += ", and the prediction reads only the last row"
    out += f"; {_outcome(before, after)}"
    if not (sw1.causal_mask or sw1.positional_encoding) and (sw0.causal_mask or sw0.positional_encoding):
        out += (
            ". With PE and the mask both off nothing marks word order: reordering the earlier tokens "
            "would give the same prediction"
        )
    return out + "."
