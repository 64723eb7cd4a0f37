"""Replaying a practice answer on another machine: an answer typed on an end of its accepted range keeps
its recorded grade when that range's last bits come out otherwise there; a grade that differs by more
than replay's tolerance for computed numbers is still refused."""

from __future__ import annotations

import dataclasses
import math

import pytest

from tinytui.lesson.practice.grading import grade
from tinytui.recording import event_kinds
from tinytui.recording.recorder import Recorder
from tinytui.recording.replay import Replayer, ReplayError, load_recording
from tinytui.session import practice_state
from tinytui.session.practice_state import accepted_at
from tinytui.session.session import Session

CELL = ("blocks.0.scores.2", (1, 0))


def recorded_on_the_top_end(chapter, tmp_path):
    """A recording whose one answer is the highest number counted right, typed to every bit."""
    session = Session(chapter)
    path = tmp_path / "edge.txt"
    rec = Recorder(path, clock=None)
    rec.attach(session)
    session.goto(7)
    session.set_practice(True)
    ok = accepted_at(session.trace, session.params, session.gradients, CELL)
    top = ok.bounds()[-1][1]
    session.answer(*CELL, repr(top))
    rec.stop()
    assert session.practice.answers[CELL].correct
    return path, top


def another_machine(monkeypatch, shift):
    """Every range computed from numbers lower by shift(x) than here, as a machine that rounds the last
    bits otherwise (or a real change of the model, for a large shift) gives them."""

    def there(trace, params, grads, cell):
        ok = accepted_at(trace, params, grads, cell)
        moved = {"value": ok.value - shift(ok.value), "from_shown": ok.from_shown - shift(ok.from_shown)}
        if ok.written is not None:
            moved["written"] = ok.written - shift(ok.written)
        return dataclasses.replace(ok, **moved)

    monkeypatch.setattr(event_kinds, "accepted_at", there)
    monkeypatch.setattr(practice_state, "accepted_at", there)
    return there


def ulps(n):
    return lambda x: n * math.ulp(x)


def test_an_answer_on_an_end_replays_with_its_recorded_grade(chapter, tmp_path, monkeypatch):
    path, top = recorded_on_the_top_end(chapter, tmp_path)
    there = another_machine(monkeypatch, ulps(8))
    session = Session(chapter)
    session.goto(7)
    assert not grade(repr(top), there(session.trace, session.params, session.gradients, CELL)).correct
    replayer = Replayer(load_recording(path))  # refused before: "was right when recorded, and is not now"
    again = replayer.new_session()
    replayer.apply_all(again)
    assert replayer.diverged is None
    assert again.practice.answers[CELL].correct  # the recorded grade, kept
    assert again.practice.rung(CELL) == 0  # so no hint was spent on it either


def test_a_grade_that_differs_by_more_than_the_tolerance_is_refused(chapter, tmp_path, monkeypatch):
    path, top = recorded_on_the_top_end(chapter, tmp_path)
    another_machine(monkeypatch, lambda x: 1e-7)  # ~4e-7 of the value: far past a relative 1e-9
    with pytest.raises(ReplayError) as exc:
        load_recording(path)
    assert str(exc.value).endswith(
        f"edge.jsonl:4: practice: the answer {repr(top)!r} was right when recorded, and is not now"
    )
