"""Practice mode's state (no Textual): which cells each step asks, what the learner answered, how many
hints each question has had, and the scores.

The questions of a step are the cells it computes (lesson/practice/questions.py; of a long vocabulary
only the rows its logit pane lists, and no probability): every one, or a lesson's chosen cells, or
`tinytui practice --step N --count K`'s sample at step N. An answer is kept with the value it was graded
against, so a cell answered right shows ✓ only while the run still gives that value (an edit that
changes it asks it again). Shown is what the tables need to know, read by
tinytui/present/practice_cells.py: the cells drawn as "?" and those drawn with ✓.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

# The questions, their grading and their hints are imported by the functions that use them: a session
# holds a Practice from its start (off), and the debugger opens without practice.
if TYPE_CHECKING:
    from tinytui.lesson.practice.grading import Accepted, Grade
    from tinytui.model.backward.gradients import Gradients
    from tinytui.model.params import Params
    from tinytui.model.trace import Trace

Source = tuple[str, tuple[int, ...]]  # a cell of the run: canonical name, full index
StepKey = tuple[bool, int, int]  # (in the backward walk, stage number, block)
MAX_KEPT = 256  # the steps' questions kept (a step and its run's shape, and at step 14 its listed rows)


@dataclass(frozen=True)
class Answer:
    """One answer in practice mode: the text typed, the value it was graded against, and whether it was
    right."""

    text: str  # as typed
    expected: float  # the value it was graded against
    correct: bool


@dataclass(frozen=True)
class Sample:
    """`tinytui practice --step N --count K --seed S`: only that step asks, and only K of its cells."""

    number: int
    backward: bool = False
    block: int = 0
    count: int | None = None
    seed: int | None = None


@dataclass(frozen=True)
class Shown:
    """What the tables draw differently in practice: the step's cells still to answer ("?") and those
    answered right (✓)."""

    hidden: frozenset[Source]
    right: frozenset[Source]


class Practice:
    """One learner's practice: on or off, the answers and hints so far, and where the questions come from
    (a lesson's cells with their notes, a sample of one step, or else every cell of every step)."""

    def __init__(
        self, lesson: Sequence[tuple[str, tuple[int, ...], str]] | None = None, sample: Sample | None = None
    ):
        self.on = False
        self.lesson = None if lesson is None else tuple((n, tuple(ix)) for n, ix, _ in lesson)
        self.notes: dict[Source, str] = (
            {} if lesson is None else {(n, tuple(ix)): t for n, ix, t in lesson if t}
        )
        self.sample = sample
        self.answers: dict[Source, Answer] = {}
        self.rungs: dict[Source, int] = {}  # hints given so far, 0–3
        self.asked: dict[StepKey, tuple[Source, ...]] = {}  # each step's questions, once it was visited
        self._cells: dict[tuple, tuple[Source, ...]] = {}  # at most MAX_KEPT steps' questions
        self._names: dict[tuple, frozenset[str]] = {}  # the names each step computes, by run shape

    # ---- the questions ---------------------------------------------------------------------------
    def cells(
        self,
        trace: Trace,
        params: Params,
        grads: Gradients | None,
        number: int,
        backward: bool,
        block: int,
        tokens: Callable[[], tuple[int, ...]] | None = None,
    ) -> tuple[Source, ...]:
        """The cells this step asks in this run (remembered as asked, for the overall score). tokens: the
        vocabulary rows the screen lists now, asked for only at a step that computes a vector over the
        vocabulary (14 and 15, the walk's 15): of a long vocabulary those steps ask the listed rows only
        and no probability, the rest not being worked out from the screen (questions.step_cells)."""
        from tinytui.lesson.practice.questions import (
            BACKWARD_STEPS,
            BY_TOKEN,
            FORWARD_STEPS,
            step_names,
        )

        if number not in (BACKWARD_STEPS if backward else FORWARD_STEPS):
            return ()
        key: tuple = (backward, number, block, len(trace.prompt), trace.switches, trace.cfg)
        listed = None
        if tokens is not None and self.lesson is None:  # a teacher marked a lesson's cells on screen
            names = self._names.get(key)
            if names is None:
                names = self._names[key] = frozenset(step_names(trace, params, number, backward, block))
            if names & BY_TOKEN:
                listed = tuple(tokens())
                key += (listed,)  # which rows are listed moves with the probabilities
        cells = self._cells.get(key)
        if cells is None:
            if len(self._cells) >= MAX_KEPT:  # each edit at step 14 can list other rows
                self._cells.clear()
            cells = self._cells[key] = self._find(trace, params, grads, number, backward, block, listed)
        if cells:
            self.asked[(backward, number, block)] = cells
        return cells

    def _find(self, trace, params, grads, number, backward, block, listed) -> tuple[Source, ...]:
        from tinytui.lesson.practice.questions import step_cells, step_names

        if self.lesson is not None:
            made = set(step_names(trace, params, number, backward, block))
            return tuple(c for c in self.lesson if c[0] in made)
        s = self.sample
        if s is None:
            return step_cells(trace, params, number, backward, block, grads=grads, tokens=listed)
        if (s.number, s.backward, s.block) != (number, backward, block):
            return ()
        return step_cells(trace, params, number, backward, block, s.count, s.seed, grads, listed)

    # ---- answers and hints -----------------------------------------------------------------------
    def answer(self, source: Source, text: str, ok: Accepted, verdict: bool | None = None) -> Grade:
        """Grade a typed answer against the cell's accepted interval (or give it verdict: a replayed
        one, grading.grade) and keep it; a wrong number earns the next hint (text that is not a number
        costs none: it is refused, not graded)."""
        from tinytui.lesson.practice.grading import grade
        from tinytui.lesson.practice.hints import RUNGS

        g = grade(text, ok, verdict)
        if g.answer is None:  # refused: the answer given before (a right one, once the run is back) stays
            return g
        self.answers[source] = Answer(text.strip(), ok.value, g.correct)
        if not g.correct:
            self.rungs[source] = min(self.rungs.get(source, 0) + 1, RUNGS)
        return g

    def more_hint(self, source: Source) -> int:
        """One more hint for a question (up to the last rung): the rung now given."""
        from tinytui.lesson.practice.hints import RUNGS

        self.rungs[source] = min(self.rungs.get(source, 0) + 1, RUNGS)
        return self.rungs[source]

    def rung(self, source: Source) -> int:
        return self.rungs.get(source, 0)

    def is_right(self, source: Source, value: float) -> bool:
        """Answered right, against the value the run gives now."""
        a = self.answers.get(source)
        return a is not None and a.correct and a.expected == value

    # ---- what is shown ---------------------------------------------------------------------------
    def shown(self, cells: Sequence[Source], value_of: Callable[[Source], float]) -> Shown:
        right = frozenset(c for c in cells if c in self.answers and self.is_right(c, value_of(c)))
        return Shown(frozenset(cells) - right, right)

    def score(self, cells: Sequence[Source], value_of: Callable[[Source], float]) -> tuple[int, int]:
        """(answered right, asked) of these cells."""
        return sum(1 for c in cells if c in self.answers and self.is_right(c, value_of(c))), len(cells)

    def overall(self, value_of: Callable[[Source], float]) -> tuple[int, int]:
        """(answered right, asked) over every step visited (a lesson: over all its cells). value_of gives
        NaN for a cell the run no longer has (after a shorter prompt)."""
        cells = self.lesson if self.lesson is not None else [c for cs in self.asked.values() for c in cs]
        right = sum(1 for c in cells if c in self.answers and self.is_right(c, value_of(c)))
        return right, len(cells)


def hint_line(trace: Trace, params: Params, grads: Gradients, cell: Source, rung: int) -> str:
    """'hint 2 of 3: scores.1[0,0] = (q.1[0] · k.1[0]) / √2' for rung 1–3 of a cell's ladder."""
    from tinytui.lesson.practice.hints import RUNGS, hint
    from tinytui.lesson.practice.questions import Question
    from tinytui.lesson.why.explain import explain

    question = Question(explain(trace, params, cell[0], cell[1], grads))
    return f"hint {rung} of {RUNGS}: {hint(question, rung, trace.cfg.n_blocks)}"


def accepted_at(trace: Trace, params: Params, grads: Gradients | None, cell: Source) -> Accepted:
    """The answers counted right for a run cell (lesson/practice/grading.py)."""
    from tinytui.lesson.practice.grading import accepted
    from tinytui.lesson.why.explain import explain

    return accepted(explain(trace, params, cell[0], cell[1], grads))


def answer_line(trace: Trace, params: Params, grads: Gradients, cell: Source, g: Grade, rung: int) -> str:
    """What the learner is told: '✓ S_1[0,0] = −0.4714 (accepted −0.47146 to −0.47134)', or
    'not quite (right is within ±0.00010 of what its operands as shown give). hint 1 of 3: …', or for
    text that is not a number the reason alone (no hint is spent on it)."""
    from tinytui.lesson.practice.questions import cell_text
    from tinytui.lesson.why.why import num

    if g.correct:
        shown = f"✓ {cell_text(*cell, trace.cfg.n_blocks)} = {num(g.expected)}"
        return shown + (f" (accepted {g.accepted.text()})" if g.accepted is not None else "")
    if g.answer is None:
        return g.said
    rule = f" (right is {g.accepted.rule_text()})" if g.accepted is not None else ""
    return f"{g.said}{rule}. {hint_line(trace, params, grads, cell, rung)}"
