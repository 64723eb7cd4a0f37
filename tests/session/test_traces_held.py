"""The session's traces stay within its budget: a small model keeps its recent ones, so an undo chain
computes nothing; past the budget (GPT-2's size) it holds two, not four, and what it lets go comes back
exactly when it is needed again."""

import gc
import weakref

import numpy as np
import pytest

from tinytui.session import history
from tinytui.session.session import Session
from tinytui.session.state import Refused


def same_trace(a, b):
    assert set(a.tensors) == set(b.tensors)
    for name in a.tensors:
        assert a[name].tobytes() == b[name].tobytes(), name


def test_past_the_budget_an_edit_holds_the_trace_and_the_one_before_it_only(chapter):
    session = Session(chapter)
    session.trace_budget = 0  # as GPT-2's traces: two of them pass the budget
    made = []
    for k in range(4):
        session.edit("blocks.0.W_O", (0, k), 0.1 * k)
        made.append(weakref.ref(session.trace))
    gc.collect()
    assert [r() is not None for r in made] == [False, False, True, True]
    assert session.previous is made[2]() and session.trace is made[3]()


def test_the_original_trace_let_go_runs_again_to_the_same_numbers(chapter, trace):
    session = Session(chapter)
    session.trace_budget = 0
    session.edit("blocks.0.b_2", (3,), 2.0)
    session.edit("blocks.0.b_2", (0,), 1.0)
    gc.collect()
    assert session._original() is None  # neither the trace nor the previous one: not held
    session.set_compare_to_original(True)
    original = session.base
    same_trace(original, trace)
    assert session.diff["blocks.0.ffn"].changed[:, [0, 3]].all()
    session.edit("blocks.0.b_2", (1,), 1.0)
    gc.collect()
    assert session.base is original  # held while the highlights compare to it
    session.set_compare_to_original(False)
    assert session.base is session.previous
    del original
    session.edit("blocks.0.b_2", (2,), 1.0)
    gc.collect()
    assert session._original() is None  # let go by the move
    asked = weakref.ref(session.original_trace)  # run again, and kept until the next move
    gc.collect()
    assert asked() is session.original_trace
    session.edit("blocks.0.b_2", (2,), 0.5)
    gc.collect()
    assert asked() is None


def test_undo_to_the_file_weights_makes_the_trace_the_original(chapter):
    session = Session(chapter)
    session.edit("blocks.0.b_2", (3,), 2.0)
    session.edit("blocks.0.b_2", (0,), 1.0)
    session.undo()
    session.undo()
    assert session.original_trace is session.trace


@pytest.mark.parametrize("held_elsewhere", [True, False])
def test_a_refused_move_gives_back_the_previous_trace(chapter, held_elsewhere):
    session = Session(chapter)
    session.trace_budget = 0  # the previous trace is let go during the move unless held elsewhere
    session.edit("blocks.0.b_2", (3,), 2.0)
    session.edit("blocks.0.b_2", (0,), 1.0)
    previous, trace = session.previous, session.trace
    bits = {name: previous[name].tobytes() for name in previous.tensors}
    old_diff = session.diff
    if not held_elsewhere:
        previous = weakref.ref(previous)
    with pytest.raises(Refused, match="overflow"):
        session.edit("E", (5, 3), 1e200)
    gc.collect()
    assert session.trace is trace and session.cursor == 2
    if held_elsewhere:
        assert session.previous is previous
    else:
        assert previous() is None  # it was let go during the move and run again from its state
    assert {name: session.previous[name].tobytes() for name in session.previous.tensors} == bits
    for name, d in session.diff.tensors.items():
        assert np.array_equal(d.delta, old_diff[name].delta), name
    session.undo()
    assert session.params["blocks.0.b_2"][0] == chapter.params["blocks.0.b_2"][0]
    assert session.previous is trace


@pytest.mark.parametrize("small", [True, False])
def test_the_gradients_of_a_trace_no_longer_shown_are_let_go(chapter, monkeypatch, small):
    if not small:  # a trace as big as GPT-2's: only the shown trace's gradients are held
        monkeypatch.setattr(history, "SMALL_TRACE", 0)
    session = Session(chapter)
    grads = weakref.ref(session.gradients)
    assert session.gradients is grads()  # computed once per trace
    session.goto(9)  # a step is not a change: the same trace, the same gradients
    assert session.gradients is grads()
    session.edit("blocks.0.W_O", (0, 0), 0.5)
    gc.collect()
    if small:  # the trace before the last change keeps its gradients while it is held, no longer
        assert grads() is not None
        session.edit("blocks.0.W_O", (0, 0), 0.25)
        gc.collect()
    assert grads() is None
    assert float(session.gradients["grad.logits"][0]) == float(session.trace["probs"][0]) - (
        chapter.params.cfg.vocab[0] == session.trace.target
    )


def test_is_original_never_runs_the_model_again(chapter):
    session = Session(chapter)
    first = session.trace
    assert session.is_original(first)
    for k in range(3):
        session.edit("blocks.0.W_O", (0, k), 0.1 * k)
    gc.collect()
    runs = []
    session._run = lambda state, run=session._run: runs.append(state) or run(state)
    assert not session.is_original(session.trace) and runs == []
