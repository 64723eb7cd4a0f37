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
