"""How the next token is chosen is recorded: a sampling event when the settings change, the settings a
recording starts under on its first line, both checked on the way back in; a replay then shows step
14's choice and appends the tokens under the settings the user had."""

import json

import pytest

from tinytui.model.generation.sampling import Sampling
from tinytui.recording.recorder import Recorder
from tinytui.recording.replay import Replayer, load_recording
from tinytui.session import next_token
from tinytui.session.session import Session

DRAWN = Sampling(1.5, 3, 0.9, 11)


def test_a_change_of_settings_is_an_event_told_in_words_and_replayed(chapter, tmp_path):
    session = Session(chapter)
    path = tmp_path / "drawn.txt"
    rec = Recorder(path, clock=None)
    rec.attach(session)
    kinds = []
    session.listeners.append(lambda e: kinds.append(str(e.kind)))
    next_token.set_sampling(session, temperature="1.5", top_k="3", top_p="0.9", seed="11")
    next_token.set_sampling(session, seed="11")  # the same settings again: nothing to record
    picked = [next_token.next_pick(session).token for _ in range(1)]
    next_token.append_next(session)
    picked.append(next_token.next_pick(session).token)
    next_token.append_next(session)
    next_token.set_sampling(session, temperature="0")  # back to greedy
    rec.stop()
    assert kinds == ["sampling", "prompt", "prompt", "sampling"]

    text = path.read_text(encoding="utf-8")
    assert "=== 1 · the next token is now chosen T 1.5 · top-k 3 · top-p 0.9 · seed 11 (at step 1) =" in text
    assert "=== 4 · the next token is now chosen greedy (at step 1) =" in text

    replayer = Replayer(load_recording(path))
    assert replayer.describe().startswith("event 1 of 4: next token: T 1.5 · top-k 3 · top-p 0.9 · seed 11")
    again = replayer.new_session()
    assert again.sampling == Sampling()
    settings, picks = [], []
    again.listeners.append(lambda e: settings.append(again.sampling))
    replayer.apply_next(again)
    picks.append(next_token.next_pick(again).token)  # what step 14 shows after the first event
    replayer.apply_all(again)
    assert replayer.diverged is None
    assert settings == [DRAWN, DRAWN, DRAWN, Sampling(0.0, 3, 0.9, 11)]  # greedy keeps the others for later
    assert picks[0] == picked[0]
    assert again.state.prompt == session.state.prompt  # the very tokens the user's session appended


def test_a_recording_started_under_drawn_settings_starts_under_them(chapter, tmp_path):
    session = Session(chapter)
    session.set_sampling(DRAWN)
    path = tmp_path / "late.txt"
    rec = Recorder(path, clock=None)
    rec.attach(session)
    choice = next_token.next_pick(session).token
    next_token.append_next(session)
    rec.stop()
    start = json.loads((tmp_path / "late.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert start["sampling"] == {"temperature": 1.5, "top_k": 3, "top_p": 0.9, "seed": 11}

    recording = load_recording(path)
    again = recording.new_session()
    assert again.sampling == DRAWN and next_token.next_pick(again).token == choice
    replayer = Replayer(recording)
    replayer.apply_all(again)
    assert replayer.diverged is None and again.state.prompt == session.state.prompt


def test_a_greedy_recording_says_nothing_of_sampling(chapter, tmp_path):
    session = Session(chapter)
    rec = Recorder(tmp_path / "greedy.txt", clock=None)
    rec.attach(session)
    session.goto(14)
    rec.stop()
    start = json.loads((tmp_path / "greedy.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert "sampling" not in start  # as recordings made before sampling was recorded: they still load
    assert load_recording(tmp_path / "greedy.txt").new_session().sampling == Sampling()


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("temperature", -1, "sampling: temperature -1 is below 0"),
        ("temperature", "1", "sampling: temperature: expected a number, got '1'"),
        ("top_k", 0, "sampling: top_k: 0 is out of range (1–8)"),
        ("top_k", 9, "sampling: top_k: 9 is out of range (1–8)"),
        ("top_k", 2.5, "sampling: top_k: expected a whole number, got 2.5"),
        ("top_p", 0, "sampling: top-p 0 is outside (0, 1]"),
        ("top_p", 1e999, "Infinity is not a number a session can hold"),
        ("seed", -3, "sampling: seed: -3 is out of range"),
        ("seed", 2**64, "sampling: seed: 18446744073709551616 is out of range"),
        ("seed", True, "sampling: seed: expected a whole number, got True"),
    ],
)
def test_settings_that_could_not_have_been_chosen_are_refused_in_one_line(
    chapter, tmp_path, field, value, message
):
    session = Session(chapter)
    rec = Recorder(tmp_path / "bad.txt", clock=None)
    rec.attach(session)
    session.set_sampling(DRAWN)
    rec.stop()
    log = tmp_path / "bad.jsonl"
    start, event = log.read_text(encoding="utf-8").splitlines()
    doc = json.loads(event)
    doc["data"][field] = value
    log.write_text(start + "\n" + json.dumps(doc) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.jsonl:2: ") as caught:
        load_recording(log)
    assert message in str(caught.value) and "\n" not in str(caught.value)

    head = json.loads(start)  # the same settings on the first line are checked the same way
    head["sampling"] = {"temperature": 1.0, "top_k": None, "top_p": 1.0, "seed": 0, field: value}
    log.write_text(json.dumps(head) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.jsonl:1: ") as caught:
        load_recording(log)
    assert message in str(caught.value)
