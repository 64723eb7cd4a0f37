"""Step titles said as the run computes: a step that adds nothing is not called an addition."""

from __future__ import annotations

from tinytui.lesson.stages import STAGE_BY_NUMBER, formula_as_run, title_for
from tinytui.lesson.step_path import Step
from tinytui.lesson.walk_stages import backward_stage_for
from tinytui.model.switches import Switches
from tinytui.model.trace import run
from tinytui.present.step_list_lines import StepTitles
from tinytui.report.step_report import stage_report


def test_step_4_adds_nothing_under_rope_or_with_the_positions_off(chapter):
    add = STAGE_BY_NUMBER[4]
    assert title_for(add, chapter.params.cfg) == "Add position to meaning"
    off = Switches(positional_encoding=False)
    rope = Switches(positions="rope")
    for sw in (off, rope):
        trace = run(chapter.params, chapter.prompt, chapter.target, sw)
        assert "(no position added)" in formula_as_run(add, trace.switches, trace.cfg)
        assert stage_report(trace, add, chapter.params).title == "Meaning alone, no position added"
        assert StepTitles(trace.cfg, trace.switches).title(Step(4, 0)) == "Meaning alone, no position added"
        back = backward_stage_for(4, trace.switches, trace.cfg)
        assert back.title == "Straight through: no position added"
        assert "position were added" not in back.explain


def test_the_residual_steps_say_no_residual_with_it_switched_off(chapter):
    off = run(chapter.params, chapter.prompt, chapter.target, Switches(residual=False))
    on = run(chapter.params, chapter.prompt, chapter.target)
    titles = {n: stage_report(off, STAGE_BY_NUMBER[n], chapter.params).title for n in (10, 12)}
    assert titles == {10: "Attention out, no residual", 12: "Feed-forward out, no residual"}
    assert StepTitles(off.cfg, off.switches).title(Step(12, 0)) == "Feed-forward out, no residual"
    assert (
        stage_report(on, STAGE_BY_NUMBER[12], chapter.params).title == "Feed-forward out and second residual"
    )
    assert backward_stage_for(12, off.switches, off.cfg).title == "Through W_2, no residual"
    assert backward_stage_for(10, off.switches, off.cfg).title == "Through the attention out, no residual"
    assert backward_stage_for(12, on.switches, on.cfg).title == "Through W_2 and the second residual"


def test_step_4s_table_is_titled_without_the_position_when_none_is_added(chapter):
    off = run(chapter.params, chapter.prompt, chapter.target, Switches(positional_encoding=False))
    (x,) = [
        t for t in stage_report(off, STAGE_BY_NUMBER[4], chapter.params).tables if t.title.startswith("x")
    ]
    assert x.title == "x = E[id]   (no position added)"  # was "x = E[id] + PE"
    assert x.cells[0][0] == f"{chapter.params['E'][int(off['ids'][0])][0]:.4f}"  # the embedding row, as it is
    on = run(chapter.params, chapter.prompt, chapter.target)
    assert "x = E[id] + PE" in [t.title for t in stage_report(on, STAGE_BY_NUMBER[4], chapter.params).tables]


def test_gpt2s_walk_with_the_positions_off_says_p_learns_nothing():
    from dataclasses import replace

    import numpy as np

    from tests.gpt2.checkpoints import TINY
    from tinytui.model.backward.gradients import Gradients
    from tinytui.model.io.checkpoint import load_checkpoint
    from tinytui.model.switches import defaults

    gpt2 = load_checkpoint(TINY)
    off = run(
        gpt2.params, gpt2.prompt, gpt2.target, replace(defaults(gpt2.params.cfg), positional_encoding=False)
    )
    assert not np.any(Gradients(gpt2.params, off)["grad.P"])  # every row of P gets 0
    step3, step4 = (backward_stage_for(n, off.switches, off.cfg) for n in (3, 4))
    assert (
        step3.explain
        == "With the positions switched off pe did not read P, so no row of P learns anything here."
    )
    assert step4.rules[1] == "∂L/∂pe = ∂L/∂x   (PE off: pe did not read P)"
    assert step4.explain.endswith("the embedding rows receive the whole gradient; P gets none at step 3.")
