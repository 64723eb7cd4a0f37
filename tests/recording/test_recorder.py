import json
import os
import signal
import subprocess
import sys

import numpy as np
import pytest

from tinytui.recording.recorder import Recorder, events_path
from tinytui.recording.replay import Replayer, load_recording
from tinytui.report.tables import fmt
from tinytui.session.session import Session
from tinytui.session.state import Refused


def scripted(session):
    """Steps, two edits, a toggle and an undo: what a lesson might do."""
    session.goto(2)
    session.goto(9)
    session.edit("W_O", (2, 0), "2")  # flips the prediction from wood to chuck
    session.goto(14)
    session.edit("E", (4, 3), "0")
    session.toggle("causal_mask")
    session.undo()
    session.goto(15)


def assert_same_session(a: Session, b: Session):
    assert a.params == b.params
    assert a.state.switches == b.state.switches
    assert (a.state.prompt, a.state.target, a.state.lr) == (b.state.prompt, b.state.target, b.state.lr)
    assert (a.step, a.cursor, len(a.history)) == (b.step, b.cursor, len(b.history))
    for sa, sb in zip(a.history, b.history):
        assert sa.params == sb.params and sa.switches == sb.switches and sa.prompt == sb.prompt
    assert list(a.trace) == list(b.trace)
    for name in a.trace:
        assert np.array_equal(a.trace[name], b.trace[name]), name


def test_record_then_replay_reaches_the_same_trace_exactly(chapter, tmp_path):
    live = Session(chapter)
    path = tmp_path / "lesson.txt"
    rec = Recorder(path, clock=None)
    assert rec.problem is None
    rec.attach(live)
    wood_before = live.trace
    scripted(live)
    rec.stop()

    replayer = Replayer(load_recording(path))
    assert replayer.total == 8
    again = replayer.new_session()
    events = replayer.apply_all(again)
    assert [e.kind for e in events] == ["step", "step", "edit", "step", "edit", "toggle", "undo", "step"]
    assert replayer.done and replayer.diverged is None
    assert_same_session(live, again)

    text = path.read_text(encoding="utf-8")
    assert "W_O[h2.k0, thing]: 0.0000 → 2.0000" in text
    assert "E[wood, wood]: 1.0000 → 0.0000" in text
    assert "switches    mask on → mask off" in text and "switches    mask off → mask on" in text
    # the first edit's effect on the prediction and the loss, old → new
    edited = live.history[1]
    from tinytui.model.trace import run

    after_first = run(edited.params, edited.prompt, edited.target, edited.switches)
    assert wood_before.prediction == "wood" and after_first.prediction == "chuck"
    assert "prediction  wood (p 0.3107) → chuck (p " in text
    assert f"loss        {fmt(wood_before.loss)} → {fmt(after_first.loss)}" in text
    assert "largest change per step" in text and "14    ℓ[" in text


def test_replaying_step_by_step_matches_each_recorded_state(chapter, tmp_path):
    live = Session(chapter)
    rec = Recorder(tmp_path / "l.txt", clock=None)
    rec.attach(live)
    snapshots = []
    live.listeners.append(lambda e: snapshots.append((live.params, live.state.switches, live.trace)))
    scripted(live)
    replayer = Replayer(load_recording(tmp_path / "l.jsonl"))
    again = replayer.new_session()
    for params, switches, trace in snapshots:
        assert replayer.apply_next(again) is not None
        assert again.params == params and again.state.switches == switches
        assert np.array_equal(again.trace["probs"], trace["probs"])
    assert replayer.apply_next(again) is None
    assert replayer.describe() == "replay finished: 8 of 8 events applied"


def test_transcript_is_on_disk_after_every_event(chapter, tmp_path):
    session = Session(chapter)
    path = tmp_path / "lesson.txt"
    rec = Recorder(path, clock=None)
    rec.attach(session)
    header = path.read_text(encoding="utf-8")
    assert (
        header.startswith("tinytui session transcript")
        and "=== start: the recording begins at step 1/16" in header
    )
    seen = []

    def check_disk(event):
        # runs after the recorder's listener: what a kill at this moment would leave behind
        seen.append(event.kind)
        n = len(seen)
        text = path.read_text(encoding="utf-8")
        assert f"=== {n} · {event.kind}" in text
        lines = events_path(path).read_text(encoding="utf-8").splitlines()
        assert len(lines) == n + 1 and json.loads(lines[-1])["seq"] == n
        assert json.loads(lines[-1])["kind"] == event.kind
        assert load_recording(path).events[-1].seq == n  # replayable at every point

    session.listeners.append(check_disk)
    scripted(session)
    session.edit("E", (0, 0), "-0.5")
    assert len(seen) == 9
    assert "E[a, thing]: 0.0000 → -0.5000" in path.read_text(encoding="utf-8")


def test_unwritable_path_is_reported_at_once_and_nothing_is_lost(chapter, tmp_path):
    bad = tmp_path / "no such folder" / "lesson.txt"
    rec = Recorder(bad, clock=None)
    assert rec.problem.startswith(f"cannot record to {bad}: No such file or directory")
    assert "still recording in memory" in rec.problem and "\n" not in rec.problem
    assert rec.path is None
    session = Session(chapter)
    rec.attach(session)
    scripted(session)
    assert not bad.parent.exists()
    assert "W_O[h2.k0, thing]: 0.0000 → 2.0000" in rec.text()

    (tmp_path / "folder").mkdir()
    assert "is a folder" in rec.set_path(tmp_path / "folder")
    assert "name the transcript" in rec.set_path(tmp_path / "lesson.jsonl")

    good = tmp_path / "lesson.txt"
    assert rec.set_path(good) is None and rec.problem is None and rec.path == good
    assert good.read_text(encoding="utf-8") == rec.text()
    assert "=== 8 · step 15/16" in good.read_text(encoding="utf-8")
    session.toggle("positional_encoding")  # and it keeps appending there
    assert "=== 9 · toggle the positional encoding" in good.read_text(encoding="utf-8")
    replayer = Replayer(load_recording(good))
    again = replayer.new_session()
    replayer.apply_all(again)
    assert_same_session(session, again)


def test_a_failing_disk_mid_session_is_reported_and_kept_in_memory(chapter, tmp_path, monkeypatch):
    problems = []
    rec = Recorder(tmp_path / "a.txt", clock=None, on_problem=problems.append)
    session = Session(chapter)
    rec.attach(session)
    session.goto(2)

    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    session.goto(3)
    monkeypatch.undo()
    assert problems == [rec.problem] and "No space left on device" in problems[0]
    assert rec.path is None
    session.edit("W_O", (2, 0), "2")
    assert rec.set_path(tmp_path / "b.txt") is None
    text = (tmp_path / "b.txt").read_text(encoding="utf-8")
    assert "=== 2 · step 3/16" in text and "W_O[h2.k0, thing]: 0.0000 → 2.0000" in text
    assert len(load_recording(tmp_path / "b.txt").events) == 3


def test_recording_started_mid_session_replays_undo_past_its_start(chapter, tmp_path):
    session = Session(chapter)
    session.edit("W_O", (2, 0), "2")
    session.edit("E", (0, 0), "-0")  # −0.0 differs from 0.0 only in its sign bit
    session.goto(7)
    rec = Recorder(tmp_path / "mid.txt", clock=None)
    rec.attach(session)
    header = rec.text()
    assert "2 cells differ from the model file: E[a, thing] = 0.0000, W_O[h2.k0, thing] = 2.0000" in header
    assert "at step     7/16 · Attention scores" in header
    session.undo()
    session.undo()
    session.redo()
    replayer = Replayer(load_recording(tmp_path / "mid.txt"))
    again = replayer.new_session()
    assert again.step == 7 and again.cursor == 2
    assert np.signbit(again.params["E"][0, 0])
    replayer.apply_all(again)
    assert_same_session(session, again)


def test_parameter_replacing_events_replay_from_the_recorded_values(chapter, tmp_path):
    session = Session(chapter)
    rec = Recorder(tmp_path / "learn.txt", clock=None)
    rec.attach(session)
    nudged = {name: arr * 0.9 + 1e-3 for name, arr in session.params.items()}
    # the weights and losses are made up: replay sets the recorded values, it does not recompute them
    data = {"lr": 0.5, "steps": 1, "loss_old": 1.2, "loss_new": np.float64(0.9), "losses": [1.2, 0.9]}
    session.set_params(session.params.with_arrays(nudged), "learn", data)
    text = rec.text()
    assert "=== 1 · learn: 1 SGD step of size 0.5 on all weights (at step 1)" in text
    assert "… and 164 more (172 cells in all)" in text
    replayer = Replayer(load_recording(tmp_path / "learn.txt"))
    again = replayer.new_session()
    replayer.apply_all(again)
    assert_same_session(session, again)


def test_every_line_fits_100_columns_and_has_no_escape_codes(chapter, tmp_path):
    session = Session(chapter)
    rec = Recorder(tmp_path / "wide.txt", clock=None)
    rec.attach(session)
    long_prompt = "a woodchuck would chuck how much wood would a woodchuck chuck . a woodchuck would chuck"
    session.set_prompt(long_prompt.split())  # 16 tokens: 16×16 attention tables
    for step in range(2, 17):
        session.goto(step)
    session.edit("W_Q", (1, 3, 1), "1/3")
    session.toggle("ablated_heads", 2)
    session.toggle("activation")
    session.set_target("chuck")
    session.reset()
    rec.stop()
    text = (tmp_path / "wide.txt").read_text(encoding="utf-8")
    assert "=== recording stopped after 21 events" in text
    assert "(columns 1–" in text  # the 16-wide tables were split to fit
    long = [(n, len(s)) for n, s in enumerate(text.splitlines(), 1) if len(s) > 100]
    assert long == []
    assert "\x1b" not in text and not any(c < " " and c != "\n" for c in text)
    assert "W_Q[h2: wood, k1]: 1.0000 → 0.3333" in text


def test_attach_twice_is_refused(chapter):
    rec = Recorder(None, clock=None)
    rec.attach(Session(chapter))
    with pytest.raises(RuntimeError):
        rec.attach(Session(chapter))


def test_learning_steps_are_recorded_and_replay_exactly(chapter, tmp_path):
    session = Session(chapter)
    rec = Recorder(tmp_path / "train.txt", clock=None)
    rec.attach(session)
    session.goto(15)
    first = session.learn_step()
    session.train(3, 0.25)
    text = rec.text()
    assert "=== 2 · learn: 1 SGD step of size 0.5 on all weights (at step 15)" in text
    assert "=== 3 · learn: 3 SGD steps of size 0.25 on all weights (at step 15)" in text
    assert f"loss        1.1690 → {fmt(first.after.loss)}" in text
    assert "losses      " + " ".join(fmt(v) for v in first.data["losses"]) in text
    replayer = Replayer(load_recording(tmp_path / "train.txt"))
    again = replayer.new_session()
    replayer.apply_all(again)
    assert_same_session(session, again)


def test_a_user_change_mid_replay_is_refused_or_reported(chapter, tmp_path):
    session = Session(chapter)
    rec = Recorder(tmp_path / "d.txt", clock=None)
    rec.attach(session)
    session.edit("W_O", (2, 0), "2")
    session.undo()
    session.goto(3)
    replayer = Replayer(load_recording(tmp_path / "d.txt"))
    again = replayer.new_session()
    again.edit("W_O", (2, 0), "1")  # the user edits the same cell before pressing n
    with pytest.raises(Refused, match=r"replay line 2: edit: the recording says W_O\[h2.k0, thing\] was 0.0"):
        replayer.apply_next(again)
    assert replayer.position == 0 and again.params["blocks.0.W_O"][2, 0] == 1.0
    again.undo()
    replayer.apply_next(again)
    again.goto(3)  # the user walks ahead, so the recorded undo still applies but the step differs
    assert replayer.diverged is None
    replayer.apply_next(again)
    assert replayer.diverged == (
        "line 3: replaying this undo does not reach the recorded state (step is different)"
    )
    with pytest.raises(Refused, match="replay line 4: step: the session is already at step 3"):
        replayer.apply_next(again)


CHILD = """
import sys
from tinytui.model.io.model_file import load_default
from tinytui.recording.recorder import Recorder
from tinytui.session.session import Session
session = Session(load_default())
Recorder(sys.argv[1], clock=None).attach(session)
for n, change in enumerate([lambda: session.goto(9), lambda: session.edit("W_O", (2, 0), "2"),
                            lambda: session.toggle("causal_mask"), lambda: session.goto(10)], 1):
    change()
    print("done", n, flush=True)
    sys.stdin.readline()  # wait: the test kills us here
"""


def test_a_killed_process_leaves_every_event_it_showed(tmp_path):
    path = tmp_path / "killed.txt"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout.readline() == "done 1\n"
        child.stdin.write("\n")
        child.stdin.flush()
        assert child.stdout.readline() == "done 2\n"
        child.send_signal(signal.SIGKILL)  # no chance to close or flush anything
        child.wait(timeout=10)
    finally:
        child.kill()
    text = path.read_text(encoding="utf-8")
    assert (
        "=== 2 · edit: W_O[h2.k0, thing] set from 0.0000 to 2.0000 (at step 9)" in text
        and "W_O[h2.k0, thing]: 0.0000 → 2.0000" in text
    )
    assert "=== 3 ·" not in text and "recording stopped" not in text
    recording = load_recording(path)
    assert [e.kind for e in recording.events] == ["step", "edit"]
