"""Backward-walk steps are recorded as such: the transcript shows gradients, replay keeps the flag."""

from tinytui.model.backward.gradients import gradients
from tinytui.recording.recorder import Recorder
from tinytui.recording.replay import Replayer, load_recording
from tinytui.report.tables import fmt
from tinytui.session.session import Session


def test_backward_walk_steps_show_gradients_and_replay(chapter, tmp_path):
    session = Session(chapter)
    path = tmp_path / "walk.txt"
    recorder = Recorder(path)
    recorder.attach(session)
    session.goto(15, backward=True)
    session.goto(12, backward=True)
    session.goto(12, backward=True)  # already there: nothing recorded
    session.goto(11)
    recorder.stop()

    text = path.read_text()
    assert "=== 2 · step 12/16: the backward walk moved to" in text
    assert "Backward step 12/16 · " in text
    assert "∂L/∂W_2 = hiddenᵀ · ∂L/∂FFN" in text
    assert "∂L/∂W_2 (for this step's weights)" in text
    g = gradients(chapter.params, session.trace)["grad.blocks.0.W_2"]
    assert fmt(float(g[3, 3])) in text  # unit 3 is live on the last position: a real, non-zero number
    assert float(g[3, 3]) != 0.0
    # an ordinary step afterwards prints the forward tables again
    forward = text.split("=== 3 · step 11/16")[1]
    assert "Step 11/16 · Feed-forward: widen and rectify" in forward
    assert "Backward step" not in forward

    replayer = Replayer(load_recording(path), to_end=False)
    fresh = replayer.new_session()
    seen = []
    fresh.listeners.append(lambda e: seen.append(dict(e.data)))
    assert replayer.describe().startswith("event 1 of 3: backward walk to step 15")
    replayer.apply_all(fresh)
    assert seen == [{"step": 15, "backward": True}, {"step": 12, "backward": True}, {"step": 11}]
    assert fresh.step == 11
