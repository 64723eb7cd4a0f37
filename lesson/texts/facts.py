"""Short sentences of numbers that each stage is about, read off a trace (e.g. '24 of 32 … are zero').

Each Stage carries its own facts function (lesson/texts/stage_facts.py); this is the one way callers ask.
Computed in the model, not in the UI, so the app, the printer and the recorder all say the same thing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tinytui.model.trace import Trace

if TYPE_CHECKING:
    from tinytui.lesson.stages import Stage


def stage_facts(trace: Trace, stage: Stage) -> list[str]:
    return list(stage.facts(trace))
