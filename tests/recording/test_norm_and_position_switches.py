"""The norm and positions switches in a recording: each toggle encodes, decodes and replays to the same
run; the transcript names the change both ways; a recording that asks for a norm the model cannot run
is refused in one line."""

import pytest

from tinytui.model.io.model_file import load
from tinytui.model.io.presets import presets
from tinytui.recording.event_kinds import decode_event
from tinytui.recording.event_log import event_json
from tinytui.recording.log_values import BadLine
from tinytui.recording.replay import replay_event
from tinytui.recording.state_digest import Digests
from tinytui.recording.transcript import change_facts
from tinytui.session.session import Session


def test_toggles_replay_to_the_same_run_and_read_both_ways(chapter):
    live, replayed = Session(chapter), Session(chapter)
    heard = []

    def hear(event):
        doc = event_json(len(heard) + 1, event, live, Digests())
        rec = decode_event(doc, len(heard) + 2, len(heard) + 1, chapter)
        again = replay_event(replayed, rec)
        assert replayed.state.switches == live.state.switches
        assert again.after.loss == event.after.loss and again.after.prediction == event.after.prediction
        heard.append((doc, event))

    live.listeners.append(hear)
    live.toggle("norm_kind")
    live.toggle("positions")
    before = live.state
    live.toggle("norm_kind")
    docs = [doc["data"]["switches"] for doc, _ in heard]
    assert [d.get("norm_kind") for d in docs] == ["rms", "rms", None]
    assert [d.get("positions") for d in docs] == [None, "rope", "rope"]
    assert "norm_kind" not in heard[2][0]["data"]["switches"]  # back to the model's own: left out
    # the chapter's loss 1.1690 → 0.7218 (RMSNorm) → RoPE on top → LayerNorm again with RoPE: 3.9938
    assert round(heard[0][1].after.loss, 4) == 0.7218 and round(heard[2][1].after.loss, 4) == 3.9938
    lines = dict(change_facts(heard[2][1], before, live))
    assert lines["switches"] == "RMSNorm → the model's own norm"


def test_a_norm_the_model_cannot_switch_is_refused_in_one_line(chapter):
    llama = load(presets()["chapter17-llama"])
    live = Session(chapter)
    heard = []
    live.listeners.append(lambda e: heard.append(event_json(1, e, live, Digests())))
    live.toggle("norm_kind")
    with pytest.raises(BadLine, match="norms have gains"):
        decode_event(heard[0], 2, 1, llama)
