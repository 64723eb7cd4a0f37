"""The backward walk's table is read off the stage table: each forward Stage declares its own step back
(Stage.backward), so the two cannot fall out of step."""

from tinytui.lesson.stages import STAGES
from tinytui.lesson.walk_stages import BACKWARD_BY_NUMBER, BACKWARD_STAGES, backward_stages
from tinytui.lesson.walk_steps import Walk
from tinytui.model.switches import Switches


def test_the_walk_is_the_stages_backwards():
    walked = [s for s in reversed(STAGES) if s.backward is not None]
    assert [s.number for s in walked] == [s.number for s in BACKWARD_STAGES] == list(range(15, 1, -1))
    numbers = {s.id: s.number for s in STAGES}
    for sw in (Switches(), Switches(norm="post", residual=False, activation="gelu")):
        for stage, back in zip(walked, backward_stages(sw), strict=True):
            assert back.rules == stage.backward(Walk(sw, None, numbers)).rules


def test_each_step_back_names_gradients_of_its_own_stage():
    """What arrives or is worked out is the gradient of what the stage writes; what leaves, of what it
    reads."""
    walked = [s for s in reversed(STAGES) if s.backward is not None]
    for sw in (Switches(), Switches(norm="post"), Switches(residual=False)):
        for stage, back in zip(walked, backward_stages(sw), strict=True):
            assert {n.removeprefix("grad.") for n in (*back.incoming, *back.within)} <= set(stage.writes)
            assert {n.removeprefix("grad.") for n in back.outgoing} <= set(stage.reads), stage.id


def test_a_rule_names_another_step_by_its_number():
    assert "skip share from step 10" in BACKWARD_BY_NUMBER[5].rules[0]
    assert "added at step 5" in BACKWARD_BY_NUMBER[10].rules[-1]
    assert "unembedding share (step 14)" in BACKWARD_BY_NUMBER[2].rules[1]
