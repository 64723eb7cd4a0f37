"""Text that is not a number, typed as an answer, is refused in one line and changes nothing: not the
answer kept for the cell (a right one survives, to count again once the run is back), not the hints."""

from __future__ import annotations

import pytest

from tinytui.session.session import Session

TYPED = ("abc", "nan", "1e999", "", "  ", ",5", "1/0", "½", "--1")


@pytest.fixture
def session(chapter):
    s = Session(chapter)
    s.set_practice(True)
    s.goto(7)
    return s


@pytest.mark.parametrize("typed", TYPED)
def test_a_refused_answer_keeps_the_right_one(session, typed):
    name, index = ("blocks.0.scores.1", (0, 0))
    value = session.cell_value((name, index))
    assert session.answer(name, index, f"{value:.4f}").data["correct"]
    session.edit("W_Q", (0, 0, 0), "2")  # the run changes: the answer no longer counts ...
    assert not session.practice.is_right((name, index), session.cell_value((name, index)))
    said = session.answer(name, index, typed).data["shown"]
    assert "\n" not in said and ("try 0.5" in said or "no answer" in said or "division" in said)
    assert session.practice.rung((name, index)) == 0
    session.undo()  # ... the run is back: it counts again, the refused text changed nothing
    assert session.practice.is_right((name, index), session.cell_value((name, index)))


@pytest.mark.parametrize(("typed", "right"), [("−0.4714", True), ("-0.4714", True), ("0.4714", False)])
def test_the_unicode_minus_and_a_sign_slip(session, typed, right):
    assert session.answer("blocks.0.scores.1", (0, 0), typed).data["correct"] is right
