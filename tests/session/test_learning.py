import numpy as np
import pytest

from tinytui.model.backward.gradients import gradients
from tinytui.session.session import Session
from tinytui.session.state import Refused


@pytest.fixture
def session(chapter):
    return Session(chapter)


def test_learn_step_is_one_sgd_step_and_an_undoable_learn_event(session, chapter):
    events = []
    session.listeners.append(events.append)
    grads = session.gradients
    old_loss = session.trace.loss
    event = session.learn_step()
    assert event.kind == "learn" and events == [event]
    assert event.data["lr"] == 0.5 and event.data["steps"] == 1
    assert event.data["loss_old"] == old_loss == event.before.loss
    assert event.data["loss_new"] == session.trace.loss == event.after.loss
    assert event.data["losses"] == [old_loss, session.trace.loss]
    assert session.trace.loss < old_loss
    for name in chapter.params:
        assert np.array_equal(session.params[name], chapter.params[name] - 0.5 * grads.param(name))
    assert session.previous is event.before  # highlights compare to the trace before the step
    assert set(session.edited_cells()) == set(chapter.params)

    undone = session.undo()
    assert undone.kind == "undo" and session.params == chapter.params and session.trace.loss == old_loss
    session.redo()
    assert session.trace.loss == event.data["loss_new"]


def test_learn_step_uses_the_sessions_switches_and_a_given_lr(session, chapter):
    session.toggle("ablated_heads", head=2)
    event = session.learn_step(0.1)
    assert event.data["lr"] == 0.1
    assert np.array_equal(session.params["blocks.0.W_V"][1], chapter.params["blocks.0.W_V"][1])
    assert not np.array_equal(session.params["blocks.0.W_V"][0], chapter.params["blocks.0.W_V"][0])


def test_train_is_one_change_with_the_loss_curve(session, chapter):
    session.set_target("chuck")
    assert session.trace.prediction == "wood"
    event = session.train(20)
    losses = event.data["losses"]
    assert event.kind == "learn" and event.data["steps"] == 20 and len(losses) == 21
    assert np.all(np.diff(losses) < 0)
    assert session.trace.prediction == "chuck" and session.trace.loss == losses[-1]
    session.undo()
    assert session.params == chapter.params and session.state.target == "chuck"


def test_gradients_follow_the_current_trace(session):
    first = session.gradients
    assert session.gradients is first  # cached while the trace stays
    session.learn_step()
    again = session.gradients
    assert again is not first
    expected = gradients(session.params, session.trace)
    assert all(np.array_equal(again[n], expected[n]) for n in expected)


@pytest.mark.parametrize(
    ("k", "lr", "why"),
    [
        (0, None, "between 1 and"),
        (1, 0.0, "change nothing"),
        (1, float("nan"), "finite number above 0, not nan"),
        (3, 1e5, "overflows"),
    ],
)
def test_bad_learning_requests_change_nothing(session, k, lr, why):
    events = []
    session.listeners.append(events.append)
    before = (session.params, session.trace, len(session.history))
    with pytest.raises(Refused, match=why):
        session.train(k, lr)
    assert (session.params, session.trace, len(session.history)) == before and events == []
