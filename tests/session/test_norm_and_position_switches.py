"""The session's norm and positions switches: each moves the prediction by what the switched model
computes, written out here by hand for the chapter's last position, and undo gives back every tensor
bit for bit."""

import numpy as np
import pytest

from tinytui.model import ops
from tinytui.model.io.model_file import load
from tinytui.model.io.presets import presets
from tinytui.model.switches import Switches
from tinytui.session.session import Session
from tinytui.session.state import Refused


@pytest.fixture
def session(chapter):
    return Session(chapter)


def test_rmsnorm_divides_block_1s_input_by_its_root_mean_square(session, trace):
    session.toggle("norm_kind")
    x = trace["x"]  # the positions are untouched: block 1 reads the same stream
    by_hand = x / np.sqrt((x**2).mean(axis=1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(session.trace["blocks.0.x_norm"], by_hand, rtol=0, atol=1e-15)
    p = session.trace["probs"]
    # 'wood' stays the prediction, its probability 0.3107 → 0.4859, the loss 1.1690 → 0.7218
    assert session.trace.prediction == "wood"
    assert (round(float(p[4]), 4), round(session.trace.loss, 4)) == (0.4859, 0.7218)
    assert session.trace.loss == pytest.approx(-np.log(p[4]), abs=1e-15)


def test_rope_turns_the_keys_and_moves_the_prediction_to_would(session, trace):
    session.toggle("positions")
    t = session.trace
    np.testing.assert_array_equal(t["x"], trace["emb"])  # nothing added at step 4
    k_pre = t["blocks.0.k_pre.2"]
    turned = ops.rotate(k_pre, np.arange(4.0)[:, None])  # d_head 2: one pair, p radians at position p
    np.testing.assert_array_equal(t["blocks.0.k.2"], turned)
    logits = t["z"] @ session.model.params["E"].T
    np.testing.assert_allclose(t["logits"], logits, rtol=0, atol=1e-14)
    assert t.prediction == "would" and round(float(t["probs"].max()), 4) == 0.4113


def test_undo_gives_back_the_chapters_run_bit_for_bit(session, trace):
    session.toggle("norm_kind")
    session.toggle("positions")
    assert session.trace.cfg.norm == "rms" and session.trace.cfg.positions == "rope"
    session.undo()
    session.undo()
    assert session.state.switches == session.history[0].switches
    assert set(session.trace) == set(trace)
    for name in trace:
        np.testing.assert_array_equal(session.trace[name], trace[name], err_msg=name)
    session.redo()
    assert session.trace.cfg.norm == "rms" and session.trace.cfg.positions == "sinusoid"


def test_a_model_that_cannot_switch_its_norm_refuses_and_changes_nothing(llama_session):
    before = llama_session.trace
    with pytest.raises(Refused, match="this model's norms have gains"):
        llama_session.toggle("norm_kind")
    with pytest.raises(Refused, match="this model's norms have gains"):  # as a lesson file would set it
        llama_session.set_switches(Switches(activation="silu", norm_kind="layer"))
    assert llama_session.trace is before and not llama_session.can_undo


@pytest.fixture
def llama_session():
    return Session(load(presets()["chapter17-llama"]))
