"""What a verdict says of the answers counted right is true of the grading: each end of "accepted a to b"
typed as written is graded right, and so is what the numbers on screen give moved by the "±w" of "right is
within ±w of what the numbers on screen give". Both were rounded to the nearest place, so half of the
chapter's ranges printed an end just outside (S_2[1,0]: 'accepted −0.24319 to −0.24266', and −0.24266
was not quite)."""

from __future__ import annotations

import re

import pytest

from tinytui.lesson.practice.grading import accepted, grade
from tinytui.lesson.practice.questions import BACKWARD_STEPS, FORWARD_STEPS, questions_at, step_questions
from tinytui.model.backward.gradients import Gradients


@pytest.fixture(scope="module")
def intervals(chapter, trace):
    grads = Gradients(chapter.params, trace)
    return [
        (q.cell(), accepted(q.why))
        for backward, steps in ((False, FORWARD_STEPS), (True, BACKWARD_STEPS))
        for n in steps
        for q in step_questions(trace, chapter.params, n, backward, grads=grads)
    ]


def test_each_end_of_accepted_is_graded_right_as_written(intervals):
    assert len(intervals) > 900
    outside = [
        (cell, ok.text(), end)
        for cell, ok in intervals
        if ok.places
        for piece in ok.text().split(" or ")
        for end in piece.split(" to ")
        if not grade(end, ok).correct
    ]
    assert outside == []


def test_the_rule_s_width_is_never_more_than_is_counted_right(intervals):
    promised_too_much = []
    for cell, ok in intervals:
        if not ok.places or not ok.computable:
            continue
        width = float(re.search(r"±([0-9.]+)", ok.rule_text()).group(1))
        assert width - 1e-12 <= ok.width < width + 1e-5  # cut to the places written, never rounded up
        if not (ok.holds(ok.from_shown - width) and ok.holds(ok.from_shown + width)):
            promised_too_much.append((cell, ok.rule_text()))
    assert promised_too_much == []


def test_one_range_worked_out(chapter, trace):
    """S_2[1,0]: right from −0.2431925 to −0.2426647; the range says the 5-place numbers inside it."""
    (q,) = questions_at(trace, chapter.params, [("blocks.0.scores.2", (1, 0))])
    ok = accepted(q.why)
    ((low, high),) = ok.ranges()
    assert low == pytest.approx(-0.2431925, abs=1e-7) and high == pytest.approx(-0.2426647, abs=1e-7)
    assert ok.text() == "−0.24319 to −0.24267"
    assert grade("−0.24267", ok).correct and not grade("−0.24266", ok).correct
    assert ok.rule_text() == "within ±0.00026 of what the numbers on screen give"
