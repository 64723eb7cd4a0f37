from dataclasses import replace

from tinytui.lesson.stages import STAGE_BY_NUMBER, STAGES, formula_as_run
from tinytui.model.switches import Switches


def test_default_switches_give_the_chapters_formulas():
    for stage in STAGES:
        assert formula_as_run(stage, Switches()) == stage.formula, stage.number


def test_switches_change_the_formula_shown():
    s = STAGE_BY_NUMBER
    assert formula_as_run(s[11], Switches(activation="gelu")) == "h = GELU(LN(x') W_1 + b_1)"
    assert formula_as_run(s[10], Switches(norm="post")) == "x' = LN(x + MHA(x))"
    assert formula_as_run(s[12], Switches(residual=False)) == "y = h W_2 + b_2"
    assert formula_as_run(s[12], Switches(norm="post", residual=False)) == "y = LN(h W_2 + b_2)"
    assert "softmax(S)" in formula_as_run(s[8], Switches(causal_mask=False))
    assert "head_2 = 0" in formula_as_run(s[9], Switches(ablated_heads={2}))
    assert formula_as_run(s[3], Switches(positional_encoding=False)).startswith("PE = 0")


def test_a_stage_carries_its_formula_as_run():
    scores = STAGE_BY_NUMBER[7]
    own = replace(scores, as_run=lambda formula, sw, cfg: f"{formula}   (mask {sw.causal_mask})")
    assert formula_as_run(own, Switches()) == f"{scores.formula}   (mask True)"
