"""Grading is fair to a careful student: an answer worked out from the operands as the screen shows them
(4 decimals) is right on every question of the chapter's steps 5–15, forward and backward, while an
answer 0.003 off the true value is wrong on every one. The accepted interval is worked out per question
from its formula, and the margin kept (grading.MARGIN) never lets it reach 0.003."""

from __future__ import annotations

import math

import pytest

from tinytui.lesson.practice.grading import MARGIN, accepted, grade
from tinytui.lesson.practice.questions import step_questions
from tinytui.model.backward.gradients import Gradients

STEPS = range(5, 16)
OFF = 3e-3  # an answer this far from the true value is a wrong computation, never rounding


@pytest.fixture(scope="module")
def questions(chapter, trace):
    grads = Gradients(chapter.params, trace)
    return [
        q
        for b in (False, True)
        for n in STEPS
        for q in step_questions(trace, chapter.params, n, b, grads=grads)
    ]


def as_shown(name: str, value: float) -> float:
    """An operand as a student reads it off the screen: 4 decimals (a token id and the mask are whole)."""
    return value if name in ("ids", "mask") else round(value, 4)


def students_answer(q) -> str:
    """The formula worked out exactly on the operands as shown, written to the 4 decimals asked for."""
    worked = q.why.evaluate([as_shown(o.name, o.value) for o in q.why.operands])
    return f"{worked:.4f}"


def test_a_student_working_from_the_shown_operands_is_right_on_every_question(questions):
    assert len(questions) > 800  # steps 5–15 both ways on the chapter model
    wrong = [
        (q.cell(), students_answer(q), q.value)
        for q in questions
        if not grade(students_answer(q), accepted(q.why)).correct
    ]
    assert wrong == []
    # the old rule (5e-5 of the true value) failed such a student on dozens of these
    assert sum(abs(float(students_answer(q)) - q.value) > 5e-5 + 1e-12 for q in questions) > 20


@pytest.mark.parametrize("sign", [1, -1], ids=["above", "below"])
def test_an_answer_3e_3_off_the_true_value_is_wrong_on_every_question(questions, sign):
    for q in questions:
        g = grade(f"{q.value + sign * OFF:.6f}", accepted(q.why))
        assert not g.correct and g.said == "not quite", (q.cell(), q.value)


def test_the_interval_is_worked_out_per_question_and_keeps_its_margin(questions):
    intervals = [accepted(q.why) for q in questions]
    reach = [max(a.high - a.value, a.value - a.low) for a in intervals]
    assert max(reach) < MARGIN < OFF  # the margin never cuts a chapter question short
    assert max(reach) > 5e-4  # a layer norm's shown mean and variance carry more than half a unit
    assert len({round(a.width, 6) for a in intervals}) > 50  # not one constant
    for q, a in zip(questions, intervals):
        assert a.low <= q.value <= a.high and a.low <= a.from_shown <= a.high
        assert a.low < q.value - 4.9e-5 and a.high > q.value + 4.9e-5  # the exact value to 4 places


def test_one_layer_norm_entry_worked_by_hand(chapter, trace):
    """x_n[2,3] from the shown μ, σ² and x: what the student gets is 0.0002 from the true value, and the
    operands' rounding can move it 0.0004 more; both lie inside the accepted interval."""
    (q,) = [
        q
        for q in step_questions(trace, chapter.params, 5)
        if q.name == "blocks.0.x_norm" and q.index == (2, 3)
    ]
    ok = accepted(q.why)
    ops = {o.name.rsplit(".", 1)[-1]: as_shown(o.name, o.value) for o in q.why.operands[:2]}
    x = as_shown("x", q.why.operands[2 + 3].value)
    by_hand = (x - ops["mean"]) / math.sqrt(ops["var"] + chapter.params.cfg.eps)
    assert by_hand == pytest.approx(ok.from_shown, abs=1e-12)
    assert abs(by_hand - q.value) > 2e-4  # more than the old rule's 5e-5
    assert 3e-4 < ok.carried < 6e-4
    assert grade(f"{by_hand:.4f}", ok).correct and grade(f"{q.value:.4f}", ok).correct
    assert not grade(f"{q.value + 1e-3:.4f}", ok).correct
    assert ok.text().count(" to ") == 1 and "±" in ok.rule_text()


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("inf", "'inf' is not a number (try 0.5"),
        ("nan", "'nan' is not a number (try 0.5"),
        ("1e999", "'1e999' is too large to be a finite number (try 0.5"),
        ("1_000", "'1_000' is not a number (try 0.5"),
        ("\u0661\u0662", "is not a number (try 0.5"),  # Arabic-Indic digits
        ("0,4714", "'0,4714' is not a number: write a decimal point, 0.4714"),
        ("seven", "'seven' is not a number (try 0.5"),
    ],
)
def test_text_that_is_not_a_number_is_refused_in_one_line(questions, text, says):
    g = grade(text, accepted(questions[0].why))
    assert g.answer is None and not g.correct
    assert says in g.said and "\n" not in g.said and "1/2" in g.said


def test_fractions_and_the_unicode_minus_are_numbers(questions):
    q = next(q for q in questions if q.value < -0.1)
    ok = accepted(q.why)
    assert grade(f"{q.value:.4f}".replace("-", "\u2212"), ok).correct
    assert grade("1/2", ok).answer == 0.5


@pytest.mark.parametrize("typed", ["0,4714", "1e999", "inf", "1_000", "\u0661\u0662"])
def test_the_cell_editor_and_practice_read_numbers_by_one_rule(chapter, questions, typed):
    """A weight typed into a cell and an answer typed in practice or quiz are read by the same function
    (model.checks.number): refused alike, with the same line."""
    from tinytui.session.session import Session
    from tinytui.session.state import Refused

    session = Session(chapter)
    with pytest.raises(Refused) as refused:
        session.edit("W_O", (0, 0), typed)
    assert str(refused.value) == grade(typed, accepted(questions[0].why)).said
    assert session.edited_cells() == {}  # and nothing changed
