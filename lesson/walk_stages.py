"""The table of the backward walk (steps 15 → 2), read off the stage table: each forward Stage that the
walk reverses declares its way back beside it (lesson/stages.py, `backward=`, with the rules in
lesson/walk_steps.py), and the walk is those stages from the last to the first, numbered as
the forward pass numbers them. model/backward/gradients.py computes the numbers; this says what they are.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

from tinytui.lesson.stages import STAGES
from tinytui.lesson.walk_steps import Walk, WalkStep
from tinytui.model.switches import Switches

if TYPE_CHECKING:
    from tinytui.model.config import ModelConfig


@dataclass(frozen=True, kw_only=True)
class BackwardStage(WalkStep):
    """One step of the backward walk (see WalkStep), under the number of the forward step it reverses
    (15 … 2), as the user sees it."""

    number: int


def backward_stages(sw: Switches | None = None, cfg: ModelConfig | None = None) -> tuple[BackwardStage, ...]:
    """The walk from step 15 back to step 2, its rules spelled for the given switches and for the
    model's architecture (cfg; None: the chapter's): GPT-2's gains, biases and position table get
    their gradients at the steps that read them.

    Names are block 0's (as stages.py names them) with "{h}" for one per head (stages.expand_names).
    With more than one block, step 13's outgoing gradient lands on the last block's y and the walk
    shows block 0; the later blocks' gradients are in Gradients under "grad.blocks.<b>.…".
    """
    walk = Walk(sw or Switches(), cfg, {s.id: s.number for s in STAGES})
    out = []
    for stage in reversed(STAGES):
        if stage.backward is not None:
            step = stage.backward(walk)
            out.append(
                BackwardStage(number=stage.number, **{f.name: getattr(step, f.name) for f in fields(step)})
            )
    return tuple(out)


def backward_stage_for(
    number: int, sw: Switches | None = None, cfg: ModelConfig | None = None
) -> BackwardStage:
    """The walk's stage that reverses forward step number (2–15), its rules spelled for sw and cfg."""
    return next(s for s in backward_stages(sw, cfg) if s.number == number)


BACKWARD_STAGES = backward_stages()
BACKWARD_BY_NUMBER = {s.number: s for s in BACKWARD_STAGES}
