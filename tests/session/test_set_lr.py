"""The learning rate as an undoable change: validated, recorded and replayed like the others."""

import pytest

from tinytui.recording.recorder import Recorder
from tinytui.recording.replay import Replayer, load_recording
from tinytui.report.tables import fmt
from tinytui.session.session import Session
from tinytui.session.state import Refused


@pytest.fixture
def session(chapter):
    return Session(chapter)


def test_set_lr_is_an_undoable_change_that_the_next_learning_step_uses(session):
    stepped_before = float(session.trace["loss_stepped"])
    event = session.set_lr("0.1")
    assert event.kind == "lr" and event.data == {"old": 0.5, "new": 0.1}
    assert session.state.lr == 0.1
    # step 15's "after one step" column is taken with the new size
    assert float(session.trace["loss_stepped"]) != stepped_before
    assert session.learn_step().data["lr"] == 0.1
    session.undo()
    session.undo()
    assert session.state.lr == 0.5 and float(session.trace["loss_stepped"]) == stepped_before


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("abc", "'abc' is not a number"),
        ("0", "finite number above 0, not 0"),
        (0.0, "finite number above 0, not 0"),
        ("-0.5", "finite number above 0, not -0.5"),
        ("nan", "'nan' is not a number"),
        (float("nan"), "finite number above 0, not nan"),
        (float("inf"), "finite number above 0, not inf"),
        ("1e9", "not a usable step size"),
        ("0.5", "already 0.5"),
    ],
)
def test_set_lr_refuses_bad_values_and_changes_nothing(session, text, why):
    with pytest.raises(Refused, match=why):
        session.set_lr(text)
    assert session.state.lr == 0.5 and len(session.history) == 1


def test_an_lr_change_is_recorded_and_replayed(session, tmp_path):
    path = tmp_path / "lesson.txt"
    rec = Recorder(path, clock=None)
    rec.attach(session)
    session.set_lr("1/4")
    session.learn_step()
    rec.stop()
    assert "lr          0.5 → 0.25" in path.read_text(encoding="utf-8")

    replayer = Replayer(load_recording(path))
    again = replayer.new_session()
    assert [e.kind for e in replayer.apply_all(again)] == ["lr", "learn"]
    assert again.state.lr == 0.25
    assert fmt(again.trace.loss) == fmt(session.trace.loss)
