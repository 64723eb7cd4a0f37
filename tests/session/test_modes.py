"""The backward walk and the gradient overlay are the session's: events say when they change."""

from tinytui.session.session import Session
from tinytui.session.state import WALK, Mode


def _events(session):
    seen = []
    session.listeners.append(lambda e: seen.append((e.kind, dict(e.data))))
    return seen


def test_a_walk_step_enters_the_walk_and_a_forward_step_leaves_it(chapter):
    s = Session(chapter)
    seen = _events(s)
    assert s.goto(15, backward=True) and s.mode == Mode(backward=True)
    assert not s.goto(15, backward=True)  # already there, already walking
    assert s.goto(15) and s.mode == Mode()  # the same step, forward: leaves the walk
    assert seen == [("step", {"step": 15, "backward": True}), ("step", {"step": 15})]


def test_the_walk_covers_steps_15_to_2_only(chapter):
    s = Session(chapter)
    assert WALK[0] == 15 and WALK[-1] == 2
    assert not s.goto(16, backward=True) and not s.goto(1, backward=True)
    assert s.mode == Mode() and s.step == 1


def test_set_mode_enters_the_walk_where_the_session_is_and_says_so(chapter):
    s = Session(chapter)
    seen = _events(s)
    assert not s.set_mode(backward=True)  # step 1 is outside the walk: nothing happens
    s.goto(9)
    assert s.set_mode(backward=True) and s.step == 9 and s.mode.backward
    assert s.set_mode(gradients=True) and s.mode == Mode(backward=True, gradients=True)
    assert not s.set_mode(gradients=True)
    assert s.set_mode(backward=False) and s.mode == Mode(gradients=True)
    kinds = [k for k, _ in seen]
    assert kinds == ["step", "mode", "mode", "mode"]
    assert seen[-1] == ("mode", {"backward": False, "gradients": True})


def test_undo_does_not_take_back_where_the_user_is_looking(chapter):
    s = Session(chapter)
    s.goto(12, backward=True)
    s.edit("W_2", (3, 0), "0")
    s.undo()
    assert s.mode.backward and s.step == 12
