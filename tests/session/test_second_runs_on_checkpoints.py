"""Patching and a two-run compare of GPT-2 and Llama folders are recorded and replayed: the replayed
session has the same corrupted prompt, foil and A, and the same patched numbers, bit for bit."""

import numpy as np
import pytest

from tests.gpt2.checkpoints import copy
from tests.llama.checkpoints import LLAMA
from tinytui.model.io.checkpoint import load_checkpoint, load_model
from tinytui.recording.recorder import Recorder
from tinytui.recording.replay import Replayer, load_recording
from tinytui.session.session import Session


@pytest.mark.parametrize("which", ["gpt2", "llama"])
def test_patching_and_a_compare_replay_exactly(tmp_path, which):
    model = load_checkpoint(copy(tmp_path)) if which == "gpt2" else load_model(LLAMA)
    path = tmp_path / "lesson.txt"
    live = Session(model)
    rec = Recorder(path, clock=None)
    rec.attach(live)
    live.set_prompt(model.prompt_pieces("The cat is a"))
    live.set_patching("The cat is the", " a")  # a word after a space: the piece Ġa
    live.compare_with("prompt", "The hat is a")
    live.goto(14)
    rec.stop()

    replayer = Replayer(load_recording(path))
    again = replayer.new_session()
    replayer.apply_all(again)
    assert replayer.done and replayer.diverged is None
    assert again.patch_setting == live.patch_setting and again.patch_setting.foil == "Ġa"
    assert again.comparison.state.prompt == live.comparison.state.prompt
    ours, theirs = live.patching(), again.patching()
    assert np.array_equal(ours.resid_pre, theirs.resid_pre) and np.array_equal(ours.heads, theirs.heads)
    assert np.array_equal(live.compare_trace()["logits"], again.compare_trace()["logits"])
