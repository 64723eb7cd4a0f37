"""A recording made before the one naming scheme (tinytui 0.1.0 as first released) still replays exactly."""

from pathlib import Path

import numpy as np

from tinytui.recording.replay import Replayer, load_recording
from tinytui.session.session import Session

FIXTURE = Path(__file__).parent / "fixtures" / "before-names.jsonl"


def test_a_recording_from_before_the_naming_scheme_replays_to_the_same_state(chapter):
    replayer = Replayer(load_recording(FIXTURE))
    session = replayer.new_session()
    events = replayer.apply_all(session)
    assert replayer.done and replayer.diverged is None
    kinds = [e.kind for e in events]
    assert kinds[:3] == ["step", "edit", "step"] and kinds[-3:] == ["redo", "reset", "undo"]
    assert "learn" in kinds and "lr" in kinds
    # where the recorded session ended: the edit, the switches, the longer prompt and the trained weights
    assert session.state.prompt == ("a", "woodchuck", "would", "chuck", "much")
    assert session.state.target == "chuck" and session.state.lr == 0.25
    assert not session.state.switches.causal_mask and session.state.switches.ablated_heads == {2}
    assert f"{session.trace.loss:.6f}" == "0.242422" and session.trace.prediction == "chuck"
    assert session.params["blocks.0.W_O"][2, 0] != 0.0  # trained from the edited 2.0


def test_the_same_actions_today_give_the_same_weights_within_the_stated_tolerance(chapter):
    """Learned weights went through BLAS on the machine that recorded them: equal within a relative 1e-9
    (the README's tolerance), not bit for bit, since another machine's kernels round differently."""
    replayer = Replayer(load_recording(FIXTURE))
    replayed = replayer.new_session()
    replayer.apply_all(replayed)
    live = Session(chapter)
    live.edit("blocks.0.W_O", (2, 0), "2")
    live.toggle("causal_mask")
    live.toggle("ablated_heads", 2)
    live.set_prompt(("a", "woodchuck", "would", "chuck", "much"))
    live.set_target("chuck")
    live.set_lr("0.25")
    live.learn_step()
    live.train(3)
    for name in live.params:
        np.testing.assert_allclose(
            live.params[name], replayed.params[name], rtol=1e-9, atol=1e-12, err_msg=name
        )
