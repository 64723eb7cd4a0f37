"""Activation patching: which part of the clean run carries what makes the model prefer one token.

Two prompts of the same length: the clean one and a corrupted one. The metric is logit(target) −
logit(foil) at the last position. One at a time, a piece of the clean run is written into a run of the
corrupted prompt, and the metric read again:
- resid_pre[b][p]: block b's input (the residual stream) at position p;
- heads[b][h]: head h's output A·V of block b (before W_O), at every position.
A piece that brings the metric back to the clean value carries the difference. Patching the whole of a
block's input restores the clean run from there on, so the clean metric; patching the clean run into
itself changes nothing.

Each patched run reuses the corrupted run's tensors up to the patch (run(..., reuse=...)): only what
the patch reaches is computed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tinytui.model.config import ModelConfig
from tinytui.model.names import prefix
from tinytui.model.params import Params
from tinytui.model.switches import Switches
from tinytui.model.trace import Trace, run

SAME = 1e-9  # two metrics this close, relative to their size, are the same number but for rounding


@dataclass(frozen=True)
class Patching:
    """What activation patching found for one target and foil: the metric, logit(target) − logit(foil),
    on the clean and the corrupted prompt, and after each patched run."""

    target: str
    foil: str
    clean: float  # the metric on the clean prompt
    corrupt: float  # on the corrupted prompt
    resid_pre: np.ndarray  # (blocks, positions): the metric with the clean block input patched at p
    heads: np.ndarray  # (blocks, heads): the metric with the clean head output patched

    def restored(self, value: float) -> float:
        """How much of the clean − corrupt difference a patched metric brings back (1 = all, 0 = none);
        NaN when there is no difference to bring back. Two prompts the model reads alike (a swap of two
        tokens with the mask and positions off) differ by rounding alone, some 1e-16, and a share of that
        would be noise blown up to any size: such a gap counts as none."""
        gap = self.clean - self.corrupt
        if abs(gap) <= SAME * max(1.0, abs(self.clean), abs(self.corrupt)):
            return float("nan")
        return float((value - self.corrupt) / gap)


class Stopped(Exception):
    """patch() was told to stop before its last run (its result would no longer be shown)."""


def runs_of(cfg: ModelConfig, positions: int) -> int:
    """How many patched runs patch() makes: one per block input and position, one per head of every
    block (besides the two prompts' own runs)."""
    return cfg.n_blocks * (positions + cfg.n_heads)


def cost(params: Params, positions: int) -> int:
    """About how many multiply-adds patch() costs: each run reads every weight once per position (a
    patched run reuses what comes before its patch, so this is an upper bound)."""
    weights = sum(int(params[name].size) for name in params)
    return (2 + runs_of(params.cfg, positions)) * positions * weights


def metric(trace: Trace, target: str, foil: str) -> float:
    """logit(target) − logit(foil) at the last position."""
    cfg = trace.cfg
    logits = trace["logits"]
    return float(logits[cfg.token_id(target)] - logits[cfg.token_id(foil)])


def block_input(b: int) -> str:
    """The canonical name of block b's input (0-based b): the embedding's sum, or the block before's y."""
    return "x" if b == 0 else prefix(b - 1) + "y"


def _rows(clean: np.ndarray, position: int):
    def put(values: np.ndarray) -> np.ndarray:
        patched = values.copy()
        patched[position] = clean[position]
        return patched

    return put


def _whole(clean: np.ndarray):
    return lambda values: clean


def patch(
    params: Params,
    clean_prompt: tuple[str, ...],
    corrupt_prompt: tuple[str, ...],
    target: str,
    foil: str,
    switches: Switches | None = None,
    stop: Callable[[], bool] | None = None,
) -> Patching:
    """Every single patch of the clean run into the corrupted one (see the module's docstring). Raises
    ValueError for prompts of different lengths, or a target or foil outside the vocabulary; Stopped
    when stop() says so before one of the runs (a caller whose result is no longer wanted)."""
    clean_prompt, corrupt_prompt = tuple(clean_prompt), tuple(corrupt_prompt)
    if len(clean_prompt) != len(corrupt_prompt):
        raise ValueError(
            f"the corrupted prompt has {len(corrupt_prompt)} tokens and the clean one {len(clean_prompt)}: "
            "patching compares positions, so they must be the same length"
        )
    cfg = params.cfg
    for what, tok in (("target", target), ("foil", foil)):
        if not cfg.has_token(tok):
            raise ValueError(f"the {what} {tok!r} is not in the vocabulary")
    clean = run(params, clean_prompt, target, switches)
    corrupt = run(params, corrupt_prompt, target, switches)

    def patched(name: str, replace) -> float:
        if stop is not None and stop():
            raise Stopped
        return metric(
            run(params, corrupt_prompt, target, switches, reuse=corrupt, patch={name: replace}), target, foil
        )

    T = len(clean_prompt)
    resid = np.array(
        [
            [patched(block_input(b), _rows(clean[block_input(b)], p)) for p in range(T)]
            for b in range(cfg.n_blocks)
        ]
    )
    heads = np.array(
        [
            [
                patched(f"{prefix(b)}head.{h}", _whole(clean[f"{prefix(b)}head.{h}"]))
                for h in range(1, cfg.n_heads + 1)
            ]
            for b in range(cfg.n_blocks)
        ]
    )
    return Patching(target, foil, metric(clean, target, foil), metric(corrupt, target, foil), resid, heads)
