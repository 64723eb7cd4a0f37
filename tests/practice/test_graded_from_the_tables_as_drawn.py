"""A student reads the operands off the tables as the app draws them, not off the trace: for every question
practice asks at every step (both walks), each operand is drawn by some step's table, and the formula on
the numbers as drawn, written to the places asked, is graded right. The tables' texts are read from the
specs the panes draw (present/), so a table that wrote fewer places, or another cell, would fail here; on
a long vocabulary (the tiny Llama's 256 tokens) a probability, a softmax over every token's logit of
which the pane lists eleven, was asked though no screen shows the rest."""

from __future__ import annotations

import math

import pytest

from tinytui.lesson.practice.grading import accepted, grade
from tinytui.lesson.practice.questions import BACKWARD_STEPS, FORWARD_STEPS, step_questions
from tinytui.present.backward_tables import pane_sections
from tinytui.present.grid_spec import GridSpec, LogitsSpec
from tinytui.present.view import View
from tinytui.session.session import Session
from tinytui.tui.controllers.practice_controller import listed_tokens

WALKS = ((False, FORWARD_STEPS), (True, BACKWARD_STEPS))


def drawn(session: Session, walks=WALKS) -> dict:
    """Every run cell the tables of these steps draw, with its text as drawn (the first table's)."""
    out: dict = {}
    for backward, steps in walks:
        for number in steps:
            for block in range(session.trace.cfg.n_blocks):
                session.goto(number, backward, block)
                for section in pane_sections(View.of(session)):
                    for row in section.rows:
                        for item in row:
                            _read(item, out)
    return out


def _read(item, out: dict) -> None:
    if isinstance(item, GridSpec):
        for r, sources in enumerate(item.sources):
            texts = item.cells[r]
            for c, source in enumerate(sources):
                if source is not None:
                    out.setdefault((source[0], tuple(source[1])), texts[c].strip())
    elif isinstance(item, LogitsSpec):
        for line in item.rows:
            for source, text in ((line.logit_source, line.logit), (line.prob_source, line.prob)):
                if source is not None:
                    out.setdefault((source[0], tuple(source[1])), text.strip())


def as_read(text: str) -> float:
    return float(text.replace("−", "-"))


# the tiny Llama's steps about its 300-token vocabulary, and those that draw what they read
VOCABULARY_STEPS = ((False, (13, 14, 15)), (True, (15, 14)))


@pytest.mark.parametrize("model", ["chapter", "tiny-llama"])
def test_every_question_worked_from_the_drawn_numbers_is_right(chapter, model):
    if model == "chapter":
        session, per_step, walks = Session(chapter), None, WALKS
    else:
        from tests.llama.checkpoints import LLAMA
        from tinytui.model.io.checkpoint import load_model

        session, per_step, walks = Session(load_model(LLAMA)), 6, VOCABULARY_STEPS
    on_screen = drawn(session, walks)
    trace, params = session.trace, session.params
    asked = not_drawn = 0
    wrong = []
    for backward, steps in walks:
        for number in steps:
            for block in range(trace.cfg.n_blocks):
                grads = session.gradients if backward else None
                for q in step_questions(
                    trace, params, number, backward, block, per_step, number, grads, listed_tokens(trace)
                ):
                    asked += 1
                    keys = [(o.name, tuple(o.index)) for o in q.why.operands]
                    if any(k not in on_screen for k in keys):
                        not_drawn += 1
                        continue
                    try:
                        worked = q.why.evaluate([as_read(on_screen[k]) for k in keys])
                    except (ValueError, ZeroDivisionError):  # log 0.0000: the drawn numbers give none
                        continue
                    if math.isfinite(worked):
                        typed = f"{worked:.{q.why.places}f}".replace("-", "−")
                        if not grade(typed, accepted(q.why)).correct:
                            wrong.append((q.cell(trace.cfg.n_blocks), typed, q.why.result))
    assert asked > (900 if per_step is None else 20)
    assert not_drawn == 0 and wrong == []
