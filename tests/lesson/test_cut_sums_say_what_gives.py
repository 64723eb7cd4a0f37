"""A sum cut to "… + N more" cannot be checked from what it prints: its note says the value comes from
all its terms, the N not printed with them, each number rounded as the tables show it."""

from __future__ import annotations

from tests.random_models import random_params
from tinytui.lesson.why.explain import explain
from tinytui.lesson.why.why import num
from tinytui.model.trace import run


def test_a_cut_sums_note_names_the_terms_it_was_worked_from():
    params = random_params(seed=0, d=16, heads=2, d_head=8, d_ff=32, vocab=10, blocks=1)
    why = explain(run(params, ("t1", "t2", "t3"), "t4"), params, "blocks.0.q.1", (0, 0))
    assert why.filled.endswith(" + … + 12 more")
    all_rounded = num(why.evaluate(why.shown_operands()))
    assert (why.result, all_rounded) == ("−0.5770", "−0.5771")
    assert why.ending == "≈ −0.5770   (these terms and the 12 more, every number rounded, give −0.5771)"


def test_a_sum_printed_whole_keeps_its_short_note(chapter):
    trace = run(chapter.params, chapter.prompt, chapter.target)
    why = explain(trace, chapter.params, "blocks.0.x_mid", (3, 3))
    assert "more" not in why.filled
    assert why.ending == "≈ 3.2507   (these rounded numbers give 3.2508)"
