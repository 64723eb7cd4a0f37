"""A session's moves compute only what they change: an edit runs from what reads it on, undo and redo take
back traces already made, and every trace is bit for bit a full run of its state."""

import gc

import numpy as np
import pytest

from tests.random_models import config, weights
from tinytui.model.io.document import ModelFile
from tinytui.model.names import prefix
from tinytui.model.trace import run
from tinytui.session import history
from tinytui.session.session import Session

BLOCKS = 4
PROMPT = ("t3", "t1", "t4", "t1", "t5")


@pytest.fixture
def model():
    cfg = config(
        8, 2, 4, 12, 10, blocks=BLOCKS, n_ctx=8, positions="learned", norm_affine=True, attn_bias=True
    )
    return ModelFile("random", "", weights(np.random.default_rng(29), cfg, 0.5), PROMPT, "t7")


@pytest.fixture
def runs(monkeypatch):
    """Each run the session makes: the first tensor it computed (None: it kept every one)."""
    made = []

    def counted(params, prompt, target, switches=None, lr=0.5, reuse=None):
        trace = run(params, prompt, target, switches, lr, reuse=reuse)
        computed = [n for n, t in trace.tensors.items() if reuse is None or reuse.tensors.get(n) is not t]
        made.append(computed[0] if computed else None)
        return trace

    monkeypatch.setattr(history, "run", counted)
    return made


def full_run(session):
    s = session.state
    return run(s.params, s.prompt, s.target, s.switches, s.lr)


def same_bits(a, b):
    assert list(a.tensors) == list(b.tensors)
    for name in a.tensors:
        assert a[name].tobytes() == b[name].tobytes(), name


def test_an_edit_runs_from_its_block_and_gives_a_full_runs_bits(model, runs):
    session = Session(model)
    for b in (3, 0, 2, 1):
        before = session.trace
        session.edit(f"blocks.{b}.W_1", (1, 2), 0.3 * (b + 1))
        assert runs[-1] == prefix(b) + "hidden_pre"  # the first tensor that reads W_1: nothing earlier
        same_bits(session.trace, full_run(session))
        earlier = [n for n in before.tensors if n.startswith(prefix(b - 1))] if b else ["x"]
        assert all(session.trace.tensors[n] is before.tensors[n] for n in earlier)


def test_undo_and_redo_take_back_the_traces_already_made(model, runs):
    session = Session(model)
    first = session.trace
    session.edit("blocks.3.W_2", (0, 0), 1.5)
    edited = session.trace
    del runs[:]
    session.undo()
    assert session.trace is first and session.previous is edited and runs == []
    session.redo()
    assert session.trace is edited and session.previous is first and runs == []
    session.edit("blocks.2.b_1", (4,), -1.0)
    session.undo()
    session.undo()  # two back: the file's weights, whose trace the session still holds as the original
    assert session.trace is first and runs == [prefix(2) + "hidden_pre"]  # what reads b_1, on
    same_bits(session.trace, full_run(session))


def test_undo_of_a_trace_let_go_runs_from_the_block_that_differs(model, runs):
    session = Session(model)
    session.trace_budget = 0  # as at GPT-2's size: only the trace and the one before it are held
    for k in range(3):
        session.edit("blocks.2.W_Q", (0, k, 0), 0.1 * k)
    session.edit("blocks.1.W_O", (1, 1), 0.5)
    gc.collect()
    del runs[:]
    session.undo()  # back to the third edit: its trace is the one before the last change
    session.undo()  # the second edit's trace was let go: block 2's W_Q differs from the current one
    assert runs == [prefix(2) + "q.1"]
    same_bits(session.trace, full_run(session))


def test_the_original_model_on_new_switches_runs_from_the_ablated_block(model, runs):
    session = Session(model)
    session.edit("blocks.0.W_V", (0, 0, 0), 2.0)
    session.set_compare_to_original(True)
    assert session.base is session.original_trace  # run again (the edit let it go) and now held
    del runs[:]
    session.set_switches(session.state.switches.with_block_head(3, 1))
    # the edited model's trace from block 3's head 1, the file's weights on the new switches too
    assert runs == [prefix(3) + "head.1", prefix(3) + "head.1"]
    same_bits(session.base, run(model.params, PROMPT, "t7", session.state.switches))
    same_bits(session.trace, full_run(session))


def test_the_diff_is_computed_once_per_pair_of_traces(model):
    session = Session(model)
    session.edit("blocks.2.W_2", (3, 1), 4.0)
    first = session.diff
    assert session.diff is first  # the view and the note of the change read the same one
    assert first["blocks.1.y"].n_changed == 0 and first["blocks.2.ffn"].n_changed > 0
    assert not first["blocks.1.y"].delta.any()
    session.set_compare_to_original(True)
    assert session.diff is first  # the original is the trace before the edit: the same pair
    session.undo()
    assert session.diff is not first and session.diff.empty


def test_a_switch_flipped_back_and_forth_takes_back_the_trace_it_made(model, runs):
    session = Session(model)
    session.toggle("causal_mask")
    mask_off, turned_off = session.trace, session.diff
    session.toggle("causal_mask")  # back to the file's own state: the original trace, nothing run
    assert session.diff is not turned_off and session.diff["blocks.0.attn.1"].n_changed > 0
    del runs[:]
    session.toggle("causal_mask")  # the state before the last change again: its trace, nothing run
    assert session.trace is mask_off and runs == []
    assert not session.state.switches.causal_mask
    same_bits(session.trace, full_run(session))
    assert session.diff is turned_off  # the same two traces: the diff made the first time
