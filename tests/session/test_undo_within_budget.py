"""At d_model 64 (benchmarks/bench_view.py's model: 4 heads, 2 blocks, 64 tokens of vocabulary, a prompt
of 16) an undo chain computes nothing: each undo and redo shows the very trace shown before, and the
traces held stay within the session's budget."""

import gc
import weakref

import numpy as np
import pytest

from tests.random_models import config, weights
from tinytui.model.io.document import ModelFile
from tinytui.model.trace import run
from tinytui.session import history
from tinytui.session.session import Session

EDITS = 15  # as bench_view's rounds: 15 edits, then 15 undos


@pytest.fixture(scope="module")
def d64() -> ModelFile:
    cfg = config(64, 4, 16, 8, 64, blocks=2, n_ctx=16)
    prompt = tuple(cfg.vocab[(5 * i) % 64] for i in range(16))
    return ModelFile("d64", "", weights(np.random.default_rng(64), cfg, 0.3), prompt, cfg.vocab[1])


def edit_chain(session: Session, n: int) -> list[weakref.ref]:
    """n edits of block 0's W_O (every later tensor changes); the trace shown after each, by weak
    reference: the test holds none of them alive."""
    shown = [weakref.ref(session.trace)]
    for i in range(n):
        session.edit("blocks.0.W_O", (i % 64, i % 3), 0.05 * (i + 1))
        shown.append(weakref.ref(session.trace))
    return shown


def alive(refs: list[weakref.ref]) -> tuple[int, int]:
    """(how many of the traces refs watch are alive, bytes of their tensor values)."""
    gc.collect()
    traces = {id(t): t for r in refs if (t := r()) is not None}
    return len(traces), history._bytes_of(*traces.values())


def test_an_undo_chain_and_its_redo_show_the_very_traces_shown_before(d64):
    session = Session(d64)
    shown = edit_chain(session, EDITS)
    made: list[bool] = []  # for each move: whether its trace is none of those shown before
    session.listeners.append(lambda event: made.append(all(event.after is not r() for r in shown)))
    for k in range(EDITS):
        session.undo()
        assert session.trace is shown[EDITS - 1 - k](), k  # taken back as it was: nothing computed
    for k in range(EDITS):
        session.redo()
        assert session.trace is shown[k + 1](), k
    assert made == [False] * (2 * EDITS)
    # and each is still what a run of its state gives, bit for bit
    state = session.state
    again = run(state.params, state.prompt, state.target, state.switches, state.lr)
    assert all(session.trace[n].tobytes() == again[n].tobytes() for n in again.tensors)


def test_the_traces_held_stay_within_the_budget(d64):
    session = Session(d64)
    refs = [weakref.ref(session.trace)]
    session.listeners.append(lambda event: refs.append(weakref.ref(event.after)))
    edit_chain(session, history.KEPT_TRACES + 8)
    for k in range(history.KEPT_TRACES + 8):
        session.undo()
        if k % 10 == 0:
            count, size = alive(refs)
            assert size <= history.TRACE_BUDGET
            assert count <= history.KEPT_TRACES + 2  # the kept ones, the shown one, the one before
    assert session.held_trace_bytes() <= history.TRACE_BUDGET


def test_a_budget_for_a_few_traces_keeps_the_most_recent_and_runs_the_rest_again(d64):
    session = Session(d64)
    session.trace_budget = 4 * history._bytes_of(session.trace)  # arrays shared: more than four fit
    refs = [weakref.ref(session.trace)]
    session.listeners.append(lambda event: refs.append(weakref.ref(event.after)))
    shown = edit_chain(session, 8)
    assert alive(refs)[1] <= session.trace_budget
    gc.collect()
    held = [r() is not None for r in shown]
    n = sum(held)
    assert n >= 4 and held == [False] * (9 - n) + [True] * n  # the most recent, the start's let go first
    for k in range(n - 1):
        session.undo()
        assert session.trace is shown[7 - k]()
    assert alive(refs)[1] <= session.trace_budget
    while session.can_undo:  # the rest are run again, to the same numbers
        session.undo()
        assert alive(refs)[1] <= session.trace_budget
    first = session.trace
    assert first.params is d64.params
    expected = run(d64.params, d64.prompt, d64.target, session.state.switches, session.state.lr)
    assert all(first[n].tobytes() == expected[n].tobytes() for n in expected.tensors)


def test_a_change_after_undos_lets_go_of_the_traces_it_cut_from_the_history(d64):
    session = Session(d64)
    shown = edit_chain(session, 5)
    session.undo()
    session.undo()
    session.undo()
    session.edit("blocks.1.W_O", (0, 0), 1.5)  # the last three edits cannot be redone: their traces go
    gc.collect()
    assert [r() is not None for r in shown] == [True, True, True, False, False, False]
    assert all(any(s is h for h in session.history) for s, *_ in session._kept)
