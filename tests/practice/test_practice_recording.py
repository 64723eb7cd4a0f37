"""A practice session is recorded like any other: the transcript says what was asked, answered and shown,
and replay gives every answer the same grade and ends with the same practice (answers, hints, score)."""

from __future__ import annotations

import json

import pytest

from tinytui.recording.event_kinds import KINDS
from tinytui.recording.handout import handout
from tinytui.recording.recorder import Recorder
from tinytui.recording.replay import Replayer, ReplayError, load_recording
from tinytui.session.practice_state import Sample
from tinytui.session.session import Session
from tinytui.session.state import Kind, Refused


def practised(chapter, tmp_path):
    session = Session(chapter)
    path = tmp_path / "practice.txt"
    rec = Recorder(path, clock=None)
    rec.attach(session)
    session.goto(7)
    session.set_practice(True)
    cell = ("blocks.0.scores.2", (1, 0))
    session.answer(*cell, "0.5")
    session.more_hint(*cell)
    session.answer(*cell, "−0.2429")
    session.answer("blocks.0.scores.1", (0, 0), "abc")
    session.set_practice(False)
    rec.stop()
    return session, path


def test_the_transcript_says_what_was_asked_answered_and_shown(chapter, tmp_path):
    _, path = practised(chapter, tmp_path)
    text = path.read_text(encoding="utf-8")
    assert "=== 2 · practice on: what each step computes hidden as ? until worked out (at step 7) =" in text
    flat = " ".join(text.split())  # the transcript wraps a long line to its width
    assert "=== 3 · practice: answered S_2[1,0] = 0.5, wrong ===" in text
    assert (
        "shown not quite (right is within ±0.00026 of what the numbers on screen give). "
        "hint 1 of 3: computed from Q_2[1,0], K_2[0,0], Q_2[1,1], K_2[0,1] ===" in flat
    )
    assert "=== 4 · practice: asked for a hint on S_2[1,0] (at step 7) ===" in text
    assert "shown       hint 2 of 3: S_2[1,0] = (Q_2[1] · K_2[0]) / √2\n" in text
    assert "=== 5 · practice: answered S_2[1,0] = −0.2429, right ===" in text
    assert "shown       ✓ S_2[1,0] = −0.2429 (accepted −0.24319 to −0.24267)\n" in text
    assert "=== 6 · practice: answered S_1[0,0] = abc, refused: not a number ===" in text
    assert "shown       'abc' is not a number (try 0.5, -1, 1e-3 or 1/2)\n" in text  # no hint spent
    assert "=== 7 · practice off: every value shown again (at step 7) =" in text


def test_replay_grades_the_same_and_ends_with_the_same_practice(chapter, tmp_path):
    session, path = practised(chapter, tmp_path)
    replayer = Replayer(load_recording(path))
    again = replayer.new_session()
    graded = []
    again.listeners.append(
        lambda e: graded.append(e.data.get("correct")) if e.kind == Kind.PRACTICE else None
    )
    replayer.apply_all(again)
    assert replayer.diverged is None
    assert graded == [None, False, None, True, False, None]
    assert again.practice.answers == session.practice.answers
    assert (
        again.practice.rungs
        == session.practice.rungs
        == {("blocks.0.scores.2", (1, 0)): 2}  # text that is not a number costs no hint
    )
    assert not again.practice.on


def test_a_lesson_or_sample_start_replays_with_its_cells(chapter, tmp_path):
    session = Session(chapter)
    path = tmp_path / "lesson.txt"
    rec = Recorder(path, clock=None)
    rec.attach(session)
    note = "a dot product: multiply the query and the key entry by entry, add, then divide by √2 " * 3
    session.set_practice(True, (("blocks.0.scores.2", (1, 0), note.strip()), ("loss", (), "")))
    session.set_practice(True, sample=Sample(9, True, 0, 3, 1))
    rec.stop()
    text = path.read_text(encoding="utf-8")
    assert "practice on: a lesson's 2 cells hidden as ?" in text
    assert "asks        S_2[1,0], L\n" in text
    flat = " ".join(text.split())  # the transcript wraps a long line to its width
    assert f"note S_2[1,0]: {' '.join(note.split())}" in flat  # the teacher's note whole
    md = handout(load_recording(path), "lesson.txt")  # and in the handout
    cell = r"S\_2\[1,0\]"  # as Markdown writes it
    assert f"- **note**: {cell}: {note.strip()}" in md and f"- **asks**: {cell}, L" in md
    assert "practice on: step 9, 3 of its cells hidden as ?" in text
    again = Replayer(load_recording(path)).new_session()
    replayer = Replayer(load_recording(path))
    replayer.apply_next(again)
    assert again.practice.lesson == (("blocks.0.scores.2", (1, 0)), ("loss", ()))
    assert again.practice.notes == {("blocks.0.scores.2", (1, 0)): note.strip()}
    replayer.apply_next(again)
    assert again.practice.sample == Sample(9, True, 0, 3, 1)


def test_a_cell_the_run_does_not_have_is_refused(chapter):
    session = Session(chapter)
    with pytest.raises(Refused, match=r"the run has no cell scores.2\[9, 0\]"):
        session.answer("blocks.0.scores.2", (9, 0), "1")
    with pytest.raises(Refused):
        session.more_hint("blocks.0.nothing", (0,))
    assert session.practice.answers == {}


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ({"action": "dance"}, "practice: action: 'dance' is not one of on, off, answer, hint"),
        ({"action": "answer", "name": "loss", "index": []}, "practice: rung: missing"),
        (
            {
                "action": "answer",
                "name": "loss",
                "index": [],
                "text": "1",
                "correct": True,
                "rung": 7,
                "shown": "",
            },
            "practice: rung: 7 is out of range (0–3)",
        ),
        (
            {"action": "hint", "name": "loss\x1b[2J", "index": [], "rung": 1, "shown": ""},
            "practice: name: control character U+001B",
        ),
        ({"action": "on", "sample": {"number": 99}}, "practice: sample: number: 99 is out of range (1–16)"),
        ({"action": "on", "cells": [["loss", [-1], ""]]}, "practice: cells[0]: index: -1 is out of range"),
    ],
)
def test_hostile_practice_lines_are_one_line(chapter, tmp_path, data, says):
    _, path = practised(chapter, tmp_path)
    log = path.with_suffix(".jsonl")
    lines = log.read_text(encoding="utf-8").splitlines()
    doc = json.loads(lines[2])
    assert doc["kind"] == "practice"
    doc["data"] = data
    lines[2] = json.dumps(doc)
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ReplayError) as exc:
        load_recording(path)
    assert says in str(exc.value) and "\n" not in str(exc.value)


def test_every_kind_is_defined():
    assert Kind.PRACTICE in KINDS


def test_an_answer_graded_otherwise_now_is_refused_in_one_line(chapter, tmp_path):
    _, path = practised(chapter, tmp_path)
    log = path.with_suffix(".jsonl")
    text = log.read_text(encoding="utf-8").replace(
        '"text": "0.5", "correct": false', '"text": "0.5", "correct": true'
    )
    log.write_text(text, encoding="utf-8")
    with pytest.raises(ReplayError) as exc:
        load_recording(path)  # the whole file is replayed before anything is shown
    assert str(exc.value).endswith(
        "practice.jsonl:4: practice: the answer '0.5' was right when recorded, and is not now"
    )
