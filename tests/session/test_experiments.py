import numpy as np
import pytest

from tinytui.session.session import Session
from tinytui.tui.experiments import EXPERIMENT_BY_ID, EXPERIMENTS


@pytest.fixture
def session(chapter):
    return Session(chapter)


def test_every_experiment_flips_recomputes_and_undoes(session, trace):
    for exp in EXPERIMENTS:
        assert exp.is_on(session.state.switches), exp.id
        exp.apply(session)
        assert not exp.is_on(session.state.switches), exp.id
        assert not session.diff.empty, exp.id  # something downstream moved
        session.undo()
        assert exp.is_on(session.state.switches)
        for name in trace:
            assert np.array_equal(session.trace[name], trace[name]), (exp.id, name)


def test_keys_are_unique_single_keys():
    keys = [e.key for e in EXPERIMENTS if e.key]
    assert len(keys) == len(set(keys))
    assert not {"n", "p", "e", "u", "q", "g"} & set(keys)


def test_head_cycle(session):
    cycle = EXPERIMENT_BY_ID["cycle-heads"].apply
    seen = []
    for _ in range(4):
        cycle(session)
        seen.append(sorted(session.state.switches.ablated_heads))
    assert seen == [[1], [2], [1, 2], []]
    assert np.all(session.trace["blocks.0.mha"] == session.trace["blocks.0.mha"])  # finite, recomputed


def test_the_chapters_two_experiments(session):
    EXPERIMENT_BY_ID["toggle-mask"].apply(session)
    upper = np.triu_indices(4, k=1)
    assert np.all(session.trace["blocks.0.attn.1"][upper] > 0)
    EXPERIMENT_BY_ID["toggle-pe"].apply(session)
    before = session.trace
    session.swap_positions(0, 1)
    after = session.trace
    assert np.allclose(after["x"], before["x"][[1, 0, 2, 3]])
    assert np.allclose(after["logits"], before["logits"])
