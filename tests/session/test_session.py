import numpy as np
import pytest

from tinytui.lesson.step_path import changed_per_step
from tinytui.session.session import Session, parse_value
from tinytui.session.state import Refused


@pytest.fixture
def session(chapter):
    return Session(chapter)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0.5", 0.5),
        ("-1", -1.0),
        ("1e-3", 1e-3),
        ("1/2", 0.5),
        (" −0.25 ", -0.25),
        ("-3/4", -0.75),
        (".5", 0.5),
    ],
)
def test_parse_value_accepts(text, value):
    assert parse_value(text) == value


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("abc", "not a number"),
        ("", "empty"),
        ("nan", "not a number"),
        ("inf", "not a number"),
        ("1e999", "finite"),
        ("1/0", "zero"),
        ("0x10", "not a number"),
        ("1,5", "not a number"),
    ],
)
def test_parse_value_refuses(text, why):
    with pytest.raises(Refused, match=why):
        parse_value(text)


def test_edit_recomputes_and_undo_redo_are_exact(session, trace):
    ev = session.edit("W_O", (0, 0), "0")
    assert ev.data["old"] == 1.0 and ev.data["new"] == 0.0
    assert session.params["blocks.0.W_O"][0, 0] == 0.0
    assert session.edited_cells() == {"blocks.0.W_O": [(0, 0)]}
    d = session.diff
    assert d["blocks.0.mha"].n_changed > 0 and d["x"].n_changed == 0
    edited = session.trace
    session.undo()
    for name in trace:
        assert np.array_equal(session.trace[name], trace[name])
    assert session.edited_cells() == {}
    session.redo()
    assert np.array_equal(session.trace["logits"], edited["logits"])


def test_refused_edit_changes_nothing(session):
    before = session.trace
    for bad in ("abc", "nan", "1e999", ""):
        with pytest.raises(Refused):
            session.edit("W_O", (0, 0), bad)
    with pytest.raises(Refused, match="overflow"):
        session.edit("E", (5, 3), 1e200)
    with pytest.raises(Refused, match="outside"):
        session.edit("W_O", (9, 0), 1.0)
    assert session.trace is before and session.cursor == 0


def test_toggles_are_undoable(session):
    session.toggle("causal_mask")
    assert not session.state.switches.causal_mask
    assert session.diff["blocks.0.attn.1"].changed[0, 1]
    session.toggle("ablated_heads", head=2)
    assert np.all(session.trace["blocks.0.head.2"] == 0)
    session.undo()
    session.undo()
    assert session.state.switches.causal_mask and not session.state.switches.ablated_heads


def test_prompt_swap_and_target(session):
    session.swap_positions(0, 1)
    assert session.state.prompt == ("woodchuck", "a", "would", "chuck")
    session.set_target("chuck")
    assert session.trace.target == "chuck"
    with pytest.raises(Refused):
        session.set_prompt(())
    with pytest.raises(Refused):
        session.set_target("beaver")


def test_steps_and_events(session):
    seen = []
    session.listeners.append(lambda e: seen.append((e.kind, e.step)))
    assert not session.prev()
    assert session.next() and session.step == 2
    assert session.goto(16) and not session.next()
    session.edit("b_2", (3,), 2)
    assert seen == [("step", 2), ("step", 16), ("edit", 16)]


def test_compare_to_original(session):
    session.edit("b_2", (3,), 2)
    session.edit("b_2", (0,), 1)
    assert session.diff["blocks.0.ffn"].changed[:, 3].sum() == 0  # relative to the last edit
    session.set_compare_to_original(True)
    assert (
        session.diff["blocks.0.ffn"].changed[:, 3].all() and session.diff["blocks.0.ffn"].changed[:, 0].all()
    )


def test_reset_is_undoable(session, trace):
    session.edit("b_2", (3,), 2)
    session.reset()
    assert np.array_equal(session.trace["logits"], trace["logits"])
    session.undo()
    assert session.params["blocks.0.b_2"][3] == 2


def test_a_changes_two_traces_are_compared_once_and_any_others_anew(session):
    first = session.trace
    event = session.edit("b_2", (3,), 2)
    second = session.trace
    assert session.diff_between(event.before, event.after) is session.diff  # the pair the view shows
    session.edit("b_2", (0,), 1)
    older = session.diff_between(first, second)  # no longer the view's pair: worked out for the two
    assert older is not session.diff
    assert older["blocks.0.ffn"].changed[:, 3].all() and not older["blocks.0.ffn"].changed[:, 0].any()
    assert session.diff_between(second, session.trace)["blocks.0.ffn"].changed[:, 0].all()
    counts = changed_per_step(session.diff, 2, 1)
    counts.clear()  # a caller's copy: the diff's own counts stay
    assert sum(changed_per_step(session.diff, 2, 1).values()) > 0
