"""Replay compares what the user typed or chose exactly and what BLAS computed within a relative 1e-9:
a recording made on a machine whose kernels round the last bits differently still replays, and a real
mismatch is still refused in one line."""

import json

import numpy as np
import pytest

from tinytui.recording.event_log import computed_close
from tinytui.recording.recorder import Recorder
from tinytui.recording.replay import Replayer, ReplayError, load_recording
from tinytui.session.session import Session


@pytest.fixture
def lesson(chapter, tmp_path):
    """A lesson with edits, a toggle and learning steps, and its .jsonl lines as JSON objects."""
    path = tmp_path / "lesson.txt"
    session = Session(chapter)
    rec = Recorder(path, clock=None)
    rec.attach(session)
    session.goto(14)
    session.edit("W_O", (2, 0), "2")
    session.learn_step()
    session.train(3)
    session.toggle("causal_mask")
    rec.stop()
    log = path.with_suffix(".jsonl")
    return log, [json.loads(x) for x in log.read_text().splitlines()], session


def write(log, docs):
    log.write_text("".join(json.dumps(d) + "\n" for d in docs))


def ulps(x, n):
    """x moved n representable doubles up: what another machine's BLAS might have given."""
    for _ in range(n):
        x = float(np.nextafter(x, np.inf))
    return x


def test_losses_that_differ_in_the_last_bits_still_replay(lesson):
    log, docs, live = lesson
    recorded = [doc["check"]["loss"] for doc in docs]
    for doc in docs:
        doc["check"]["loss"] = ulps(doc["check"]["loss"], 3)
        if doc.get("kind") == "learn":  # the losses it shows were computed there too
            d = doc["data"]
            d["losses"] = [ulps(v, 2) for v in d["losses"]]
            d["loss_old"], d["loss_new"] = d["losses"][0], d["losses"][-1]
    write(log, docs)
    assert len(docs) == 6 and all(d["check"]["loss"] != x for d, x in zip(docs, recorded))
    replayer = Replayer(load_recording(log))
    session = replayer.new_session()
    replayer.apply_all(session)
    assert replayer.done and replayer.diverged is None
    assert session.trace.loss == live.trace.loss  # the weights are the recorded ones, bit for bit
    for name in live.params:
        assert np.array_equal(session.params[name], live.params[name]), name


def test_a_loss_off_by_more_than_the_tolerance_is_refused_in_one_line(lesson):
    log, docs, _ = lesson
    docs[3]["check"]["loss"] *= 1 + 1e-7  # the first learning step's loss
    write(log, docs)
    with pytest.raises(ReplayError) as err:
        load_recording(log)
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"{log}:4: replaying this learn does not reach")
    assert "loss is different" in message and "more than a relative 1e-09 apart" in message


@pytest.mark.parametrize(
    "change, where, words",
    [
        # what the user typed is compared exactly: a weight set to 2 + 1 ulp is another weight
        (lambda docs: docs[2]["data"].update(new=ulps(2.0, 1)), 3, "params is different"),
        (lambda docs: docs[2]["check"].update(prompt=["a", "a", "a"]), 3, "prompt is different"),
        (lambda docs: docs[5]["check"]["switches"].update(causal_mask=True), 6, "switches is different"),
        # another model: one weight of the file changed
        (lambda docs: docs[0]["model"]["weights"]["E"][0].__setitem__(0, 0.5), 1, "is different"),
    ],
)
def test_what_the_user_typed_or_chose_is_compared_exactly(lesson, change, where, words):
    log, docs, _ = lesson
    change(docs)
    write(log, docs)
    with pytest.raises(ReplayError) as err:
        load_recording(log)
    assert str(err.value).startswith(f"{log}:{where}: ") and words in str(err.value)
    assert "\n" not in str(err.value)


def test_the_tolerance_is_relative_one_in_a_billion():
    assert computed_close(0.902867635053445, 0.9028676350534455)  # the two machines
    assert computed_close(1.0, 1.0 + 0.9e-9) and not computed_close(1.0, 1.0 + 1.1e-9)
    assert computed_close(1000.0, 1000.0 + 0.9e-6) and not computed_close(1000.0, 1000.0 + 1.1e-6)
