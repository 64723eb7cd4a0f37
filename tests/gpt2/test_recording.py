"""A recording of a checkpoint session names the checkpoint (its folder and the sha256 of its
model.safetensors) instead of copying its weights, replays bit for bit, and refuses in one line when the
weights in that folder are no longer the ones recorded."""

import json
import shutil

import numpy as np
import pytest

from tests.gpt2.checkpoints import TINY, copy, hf_tensors, with_tensors
from tinytui.model.io.checkpoint import load_checkpoint
from tinytui.recording.recorded_model import CHECKPOINT
from tinytui.recording.recorder import Recorder, events_path
from tinytui.recording.replay import Replayer, ReplayError, load_recording
from tinytui.session.session import Session


def record(model, path):
    live = Session(model)
    rec = Recorder(path, clock=None)
    rec.attach(live)
    live.goto(6)
    live.edit("blocks.1.b_Q", (2, 3), "1.5")  # a GPT-2 weight the chapter's model does not have
    live.edit("P", (1, 0), "-2")
    live.toggle("ablated_heads", head=3)
    live.set_prompt(model.prompt_pieces("The river runs"))
    live.set_target("Ġto")
    live.undo()
    rec.stop()
    return live


def test_the_recording_names_the_checkpoint_and_replays_exactly(tmp_path):
    model = load_checkpoint(copy(tmp_path))
    path = tmp_path / "lesson.txt"
    live = record(model, path)
    first = json.loads(events_path(path).read_text(encoding="utf-8").splitlines()[0])
    assert first["model"] == {
        "format": CHECKPOINT,
        "name": "tiny",
        "path": str((tmp_path / "tiny").resolve()),
        "sha256": model.weights_sha256,
    }
    assert len(events_path(path).read_text(encoding="utf-8").splitlines()[0]) < 4000  # no weights in it

    replayer = Replayer(load_recording(path))
    again = replayer.new_session()
    replayer.apply_all(again)
    assert replayer.done and replayer.diverged is None
    assert again.params == live.params and again.state == live.state
    assert np.array_equal(again.trace["logits"], live.trace["logits"])
    assert again.params["blocks.1.b_Q"][2, 3] == 1.5


def test_other_weights_in_the_folder_are_refused_in_one_line(tmp_path):
    folder = copy(tmp_path)
    path = tmp_path / "lesson.txt"
    record(load_checkpoint(folder), path)
    tensors = hf_tensors()
    tensors["transformer.h.0.ln_1.bias"][0] += 1
    with_tensors(folder, tensors)
    with pytest.raises(ReplayError) as info:
        load_recording(path)
    text = str(info.value)
    assert "\n" not in text
    assert text.startswith(
        f"{events_path(path)}:1: model: {folder.resolve() / 'model.safetensors'} is not the"
    )
    assert text.endswith("replay needs the same weights")


def test_a_moved_checkpoint_is_named(tmp_path):
    folder = copy(tmp_path)
    path = tmp_path / "lesson.txt"
    record(load_checkpoint(folder), path)
    shutil.rmtree(folder)
    with pytest.raises(ReplayError, match=r":1: model: the recording's checkpoint cannot be loaded: .*tiny"):
        load_recording(path)


def test_a_hand_edited_reference_is_refused(tmp_path):
    path = tmp_path / "lesson.txt"
    record(load_checkpoint(TINY), path)
    log = events_path(path)
    lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
    head = json.loads(lines[0])
    head["model"]["sha256"] = "not a hash"
    log.write_text(json.dumps(head) + "\n" + "".join(lines[1:]), encoding="utf-8")
    with pytest.raises(ReplayError, match="model: sha256: expected 64 hexadecimal digits"):
        load_recording(log)
