"""The questions of one step: every cell the step computes, in the order its tables show them.

    qs = step_questions(trace, params, 7)                    # step 7 forward: scores.1, scores.2
    qs = step_questions(trace, params, 9, backward=True)     # the walk's step 9: grad.head.{h}, grad.W_O, …
    qs = step_questions(trace, params, 11, count=5, seed=3)  # a seeded sample of 5, still in order

A forward step asks what its stage writes (lesson/stages.py); a step of the backward walk asks the
gradients it computes on the way, the weights' gradients it produces and the gradients it passes back
(lesson/walk_stages.py), never the ones that arrive. Each Question carries the cell's Why
(lesson/why/explain.py): its value, formula and operands, from which grading and hints are made.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tinytui.lesson import step_path
from tinytui.lesson.stages import STAGE_BY_NUMBER
from tinytui.lesson.texts.display_names import display
from tinytui.lesson.walk_stages import backward_stage_for
from tinytui.lesson.why.explain import explain
from tinytui.lesson.why.why import Why
from tinytui.model.backward.gradients import Gradients
from tinytui.model.params import Params
from tinytui.model.trace import Trace

FORWARD_STEPS = tuple(sorted(STAGE_BY_NUMBER))  # 1–16
BACKWARD_STEPS = tuple(range(15, 1, -1))  # the walk: 15 … 2
# the vectors over the vocabulary, one value per token. The screen lists a long vocabulary's most likely
# tokens and the target only (tinytui/present/top_tokens.py), so of these only those rows can be worked
# out from it: ℓ and ∂L/∂ℓ = p − onehot read the listed rows' numbers, ℓ′ = ℓ − lr·∂L/∂ℓ too
BY_TOKEN = frozenset({"logits", "probs", "grad.logits", "grad_logits", "logits_stepped", "probs_stepped"})
# and a probability is a softmax over every token's logit, most of which a long vocabulary does not list
OVER_EVERY_TOKEN = frozenset({"probs", "probs_stepped"})


class QuestionError(ValueError):
    """A step, block or count that asks nothing sensible; the message says what would, .option which it
    was ("step", "block", "count")."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(message)
        self.option = option


@dataclass(frozen=True)
class Question:
    """One cell to compute by hand: its canonical name and full index, and why it has its value."""

    why: Why

    @property
    def name(self) -> str:
        return self.why.name

    @property
    def index(self) -> tuple[int, ...]:
        return self.why.index

    @property
    def value(self) -> float:
        return self.why.value

    def cell(self, n_blocks: int = 1) -> str:
        """The cell as the screen names it: 'S_2[1,0]', 'L', 'A_1[2,0] (block 2)'."""
        return cell_text(self.name, self.index, n_blocks)

    def to_json(self, n_blocks: int = 1) -> dict:
        """What a question says without its answer: name, index, formula and the operands' cells (each
        with "shown", the name the screen gives it)."""
        return {
            "name": self.name,
            "index": list(self.index),
            "shown": self.cell(n_blocks),
            "formula": self.why.formula,
            "operands": [
                {"name": o.name, "index": list(o.index), "shown": cell_text(o.name, o.index, n_blocks)}
                for o in self.why.operands
            ],
        }


def cell_text(name: str, index: Sequence[int], n_blocks: int = 1) -> str:
    """A cell as the screen names it, 'S_2[1,0]', '∂L/∂W_O[2,1]'; with several blocks the block after the
    index: 'S_2[1,0] (block 2)'. why reads it back."""
    base, sep, block = display(name, n_blocks).partition(" (")
    at = f"[{','.join(str(int(i)) for i in index)}]" if len(index) else ""
    return base + at + (f" ({block}" if sep else "")


def step_names(
    trace: Trace, params: Params, number: int, backward: bool = False, block: int = 0
) -> tuple[str, ...]:
    """The canonical names of the tensors step `number` computes (forward, or in the backward walk), for
    block (0-based) when it is one of the block's steps."""
    cfg = trace.cfg
    steps = BACKWARD_STEPS if backward else FORWARD_STEPS
    if number not in steps:
        first, last = min(steps), max(steps)
        walk = "the backward walk's steps are" if backward else "the steps are"
        raise QuestionError("step", f"there is no step {number}: {walk} {first}–{last}")
    if not 0 <= block < cfg.n_blocks:
        raise QuestionError("block", f"the model has no block {block + 1}: it has {cfg.n_blocks}")
    step = step_path.at(number, block, cfg.n_blocks)
    if backward:
        stage = backward_stage_for(number, trace.switches, cfg)
        templates = stage.within + stage.params + stage.outgoing
    else:
        templates = step.stage.writes
    return step_path.resolve_for(templates, cfg, step)


def step_cells(
    trace: Trace,
    params: Params,
    number: int,
    backward: bool = False,
    block: int = 0,
    count: int | None = None,
    seed: int | None = None,
    grads: Gradients | None = None,
    tokens: Sequence[int] | None = None,
) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """The cells step `number` computes, (canonical name, full index) in the order of its tensors and
    their cells; with tokens (the vocabulary rows the screen lists) fewer than the vocabulary, a vector of
    BY_TOKEN only those rows, and no probability (OVER_EVERY_TOKEN); with count, a sample of that many
    chosen by seed (the same seed, the same sample), kept in that order. Nothing is explained: this is
    cheap at any size."""
    names = step_names(trace, params, number, backward, block)
    if grads is None and backward:
        grads = Gradients(params, trace)  # lazy: only the shapes are read
    listed = None if tokens is None else sorted({int(i) for i in tokens})
    if listed is not None and len(listed) >= len(trace.cfg.vocab):
        listed = None  # a short vocabulary: every row is listed
    cells = [
        (n, tuple(int(i) for i in ix))
        for n in names
        if listed is None or n not in OVER_EVERY_TOKEN
        for ix in (
            np.ndindex(_shape(trace, grads, n))
            if listed is None or n not in BY_TOKEN
            else ((i,) for i in listed)
        )
    ]
    if count is not None:
        if count < 1:
            raise QuestionError("count", f"{count} asks nothing: ask at least one cell")
        if count < len(cells):
            rng = np.random.default_rng(seed)
            cells = [cells[i] for i in sorted(rng.choice(len(cells), size=count, replace=False))]
    return tuple(cells)


def step_questions(
    trace: Trace,
    params: Params,
    number: int,
    backward: bool = False,
    block: int = 0,
    count: int | None = None,
    seed: int | None = None,
    grads: Gradients | None = None,
    tokens: Sequence[int] | None = None,
) -> tuple[Question, ...]:
    """Every cell step `number` computes as a Question (or a sample, or the listed tokens' rows only:
    see step_cells), in that order."""
    if grads is None and backward:
        grads = Gradients(params, trace)  # computed as far as the step's cells need
    cells = step_cells(trace, params, number, backward, block, count, seed, grads, tokens)
    return questions_at(trace, params, cells, grads)


def questions_at(
    trace: Trace, params: Params, cells: Sequence[tuple[str, Sequence[int]]], grads: Gradients | None = None
) -> tuple[Question, ...]:
    """The questions of chosen cells (a lesson's), each a canonical name and full index, in that order."""
    return tuple(Question(explain(trace, params, n, tuple(int(i) for i in ix), grads)) for n, ix in cells)


def _shape(trace: Trace, grads: Gradients | None, name: str) -> tuple[int, ...]:
    if name in trace:
        return trace[name].shape
    if grads is None:  # step_cells makes the gradients for a backward step, the only one naming them
        raise ValueError(f"{name} is a gradient: its shape needs the run's gradients")
    return grads[name].shape
