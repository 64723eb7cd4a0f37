"""The view (Session.mode) is recorded: mode events say in words what is now shown and replay through
set_mode; walk steps enter the walk and forward steps leave it; a recording started mid-walk replays."""

import pytest

from tinytui.model.generation.sampling import Sampling
from tinytui.recording.event_kinds import KINDS
from tinytui.recording.recorder import Recorder
from tinytui.recording.replay import Replayer, load_recording
from tinytui.session.session import Session
from tinytui.session.state import Mode


def test_mode_events_are_told_in_words_and_replay(chapter, tmp_path):
    session = Session(chapter)
    path = tmp_path / "mode.txt"
    rec = Recorder(path, clock=None)
    rec.attach(session)
    session.set_mode(gradients=True)
    session.goto(9)
    session.set_mode(backward=True)
    session.goto(12, backward=True)
    session.set_mode(backward=False)
    session.set_mode(gradients=False)
    session.goto(14, backward=True)
    session.goto(3)  # a forward step leaves the walk
    rec.stop()

    text = path.read_text(encoding="utf-8")
    assert "=== 1 · view: ∂L/∂w now shown with each weight table (at step 1) =" in text
    assert "=== 3 · view: entered the backward walk at step 9 =" in text
    assert "Backward step 9/16 · " in text.split("=== 3 ·")[1]
    assert "=== 5 · view: left the backward walk at step 12 =" in text
    assert "Step 12/16 · " in text.split("=== 5 ·")[1].split("=== 6 ·")[0]
    assert "=== 6 · view: ∂L/∂w now hidden (at step 12) =" in text

    replayer = Replayer(load_recording(path))
    assert replayer.describe().startswith("event 1 of 8: show the forward pass, ∂L/∂w shown")
    again = replayer.new_session()
    modes = []
    again.listeners.append(lambda e: modes.append(again.mode))
    replayer.apply_all(again)
    assert replayer.diverged is None
    assert modes == [
        Mode(False, True),
        Mode(False, True),
        Mode(True, True),
        Mode(True, True),
        Mode(False, True),
        Mode(False, False),
        Mode(True, False),
        Mode(False, False),
    ]
    assert again.step == 3 and again.mode == session.mode


def test_a_recording_started_in_the_walk_replays_from_the_walk(chapter, tmp_path):
    session = Session(chapter)
    session.goto(12, backward=True)
    session.set_mode(gradients=True)
    rec = Recorder(tmp_path / "mid.txt", clock=None)
    rec.attach(session)
    session.set_mode(backward=False)  # only possible from inside the walk
    rec.stop()
    header = rec.text().split("=== 1 ·")[0]
    assert "view        in the backward walk · ∂L/∂w shown with each weight table" in header
    assert (
        "=== start: the recording begins at step 12/16 in the backward walk" in header
        and "Backward step 12/16" in header
    )
    recording = load_recording(tmp_path / "mid.txt")
    again = Replayer(recording).new_session()
    assert again.mode == Mode(True, True) and again.step == 12
    Replayer(recording).apply_all(again)
    assert again.mode == Mode(False, True)


def test_entering_the_walk_where_it_has_no_step_is_named(chapter, tmp_path):
    session = Session(chapter)
    rec = Recorder(tmp_path / "m.txt", clock=None)
    rec.attach(session)
    session.goto(9)
    session.set_mode(backward=True)
    rec.stop()
    lines = (tmp_path / "m.jsonl").read_text(encoding="utf-8").splitlines()
    (tmp_path / "m.jsonl").write_text("\n".join([lines[0], lines[2].replace('"seq": 2', '"seq": 1')]) + "\n")
    with pytest.raises(ValueError, match=r"m.jsonl:2: mode: the backward walk cannot be entered at step 1"):
        load_recording(tmp_path / "m.txt")


def test_every_kind_the_session_emits_is_in_the_codec_and_round_trips(chapter, tmp_path):
    """What the recorder writes for each kind, replay reads back: the one table serves both."""
    session = Session(chapter)
    rec = Recorder(tmp_path / "all.txt", clock=None)
    rec.attach(session)
    kinds = []
    session.listeners.append(lambda e: kinds.append(e.kind))
    session.goto(9)
    session.set_mode(gradients=True)
    session.edit("W_O", (2, 0), "2")
    session.toggle("ablated_heads", 2)
    session.set_prompt(["a", "woodchuck"])
    session.set_target("chuck")
    session.set_lr("0.25")
    session.train(2)
    session.undo()
    session.redo()
    session.reset()
    session.set_practice(True)
    session.answer("blocks.0.scores.1", (0, 0), "1")
    session.set_sampling(Sampling(1.0, None, 0.5, 2))
    session.add_note("Compare the two heads' rows here.")
    session.set_patching("a much would chuck", "chuck")
    session.compare_with("pinned")
    rec.stop()
    assert sorted(set(kinds)) == sorted(KINDS)
    replayer = Replayer(load_recording(tmp_path / "all.txt"))
    again = replayer.new_session()
    replayer.apply_all(again)
    assert replayer.diverged is None and again.params == session.params
    assert again.sampling == session.sampling
    assert [r.kind for r in replayer.recording.events] == kinds
