"""A norm's table is titled as its numbers are: with a learned gain (GPT-2's, Qwen2's, never all ones)
the table holds g ⊙ RMS(x), not RMS(x), and the title says so; the chapter's norm, without one, keeps
its bare LN(x)."""

import numpy as np

from tests.llama.checkpoints import QWEN2
from tinytui.lesson.stages import STAGE_BY_NUMBER
from tinytui.model.io.checkpoint import load_model
from tinytui.model.trace import run
from tinytui.report.step_report import stage_report


def _tables(params, trace, number: int) -> dict:
    return {t.title: t for t in stage_report(trace, STAGE_BY_NUMBER[number], params).tables}


def test_a_norm_with_a_gain_is_titled_with_it():
    model = load_model(QWEN2)
    trace = run(model.params, model.prompt, model.target)
    x, g = trace["x"][0], np.asarray(model.params["blocks.0.ln1_g"])
    bare = x / np.sqrt(np.mean(x**2) + model.cfg.eps)
    table = _tables(model.params, trace, 5)["g₁ ⊙ RMS(x)"]  # was titled "RMS(x)"
    assert table.cells[0][0] == f"{g[0] * bare[0]:.4f}" != f"{bare[0]:.4f}"
    assert "x′ = x + MHA(g₁ ⊙ RMS(x))" in _tables(model.params, trace, 10)
    assert "z = g_f ⊙ RMS(y_last)" in _tables(model.params, trace, 13)


def test_the_chapters_norm_keeps_its_bare_title(chapter):
    trace = run(chapter.params, chapter.prompt, chapter.target)
    assert "LN(x)" in _tables(chapter.params, trace, 5)
    assert "z = LN(y_last)" in _tables(chapter.params, trace, 13)


def test_post_norm_sums_are_titled_with_the_gain_they_are_scaled_by():
    from dataclasses import replace

    from tinytui.model.switches import defaults

    model = load_model(QWEN2)
    trace = run(model.params, model.prompt, model.target, replace(defaults(model.cfg), norm="post"))
    summed = trace["x"][0] + trace["blocks.0.mha"][0]
    bare = summed / np.sqrt(np.mean(summed**2) + model.cfg.eps)
    g = np.asarray(model.params["blocks.0.ln1_g"])
    table = _tables(model.params, trace, 10)["x′ = g₁ ⊙ RMS(x + MHA(x))"]  # was "x′ = RMS(x + MHA(x))"
    assert table.cells[0][0] == f"{g[0] * bare[0]:.4f}" != f"{bare[0]:.4f}"
    assert "y = g₂ ⊙ RMS(x′ + FFN)" in _tables(model.params, trace, 12)
