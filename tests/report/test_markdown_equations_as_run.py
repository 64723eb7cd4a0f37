"""A Markdown step (handouts, print --markdown) writes the model's LaTeX only while the run computes it:
a switch that changes the step (mask off, PE off, post-norm, residual off, GELU, an ablated head) puts
the formula as run in its place, as the plain report already says it."""

from dataclasses import replace

import pytest

from tinytui.lesson.stages import STAGE_BY_NUMBER
from tinytui.model.io.model_file import load_default
from tinytui.model.switches import defaults
from tinytui.model.trace import run
from tinytui.report.render import markdown_report
from tinytui.report.step_report import stage_report

CHAPTER = load_default()
BASE = defaults(CHAPTER.cfg)


def equation_line(switches, step: int) -> str:
    trace = run(CHAPTER.params, CHAPTER.prompt, CHAPTER.target, switches)
    return markdown_report(stage_report(trace, STAGE_BY_NUMBER[step])).split("\n")[2]


@pytest.mark.parametrize(
    ("change", "steps", "gone"),
    [
        ({"causal_mask": False}, (8,), "S + M"),
        ({"positional_encoding": False}, (3, 4), "PE"),
        ({"norm": "post"}, (5, 10, 11, 12), r"\mathrm{LN}"),
        ({"residual": False}, (10, 12), "x + "),
        ({"activation": "gelu"}, (11,), r"\max"),
        ({"ablated_heads": {1}}, (9,), r"\mathrm{head}_h = A_h V_h"),
    ],
)
def test_a_switched_step_writes_the_formula_as_run(change, steps, gone):
    switches = replace(BASE, **change)
    for step in range(1, 17):
        line, plain = equation_line(switches, step), equation_line(BASE, step)
        assert plain.startswith("$$ ")
        if step in steps:
            trace = run(CHAPTER.params, CHAPTER.prompt, CHAPTER.target, switches)
            assert line == f"`{stage_report(trace, STAGE_BY_NUMBER[step]).formula}`"
            assert "$$" not in line and (gone in plain or step != steps[0])  # the LaTeX said what is gone
        else:
            assert line == plain
