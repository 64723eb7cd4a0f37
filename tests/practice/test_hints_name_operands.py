"""The first hint names the cells a value is computed from: the numbers to compute with first, the whole
numbers that only choose among them (the mask's row) after, so a long row's scores are never crowded out
of the hint by its mask."""

from __future__ import annotations

from tinytui.lesson.practice.hints import hint, lit
from tinytui.lesson.practice.questions import questions_at
from tinytui.model.io.model_file import load
from tinytui.model.io.presets import resolve
from tinytui.model.trace import run


def test_an_attention_weight_of_a_long_row_names_every_score():
    m = load(resolve("woodland"))
    trace = run(m.params, m.prompt, m.target)
    last = len(m.prompt) - 1
    (q,) = questions_at(trace, m.params, [("blocks.0.attn.1", (last, 1))])
    first = hint(q, 1, trace.cfg.n_blocks)
    scores = [f"S_1[{last},{k}] (block 1)" for k in range(last + 1)]
    assert all(s in first for s in scores), first
    assert first.index(scores[-1]) < first.index(f"mask[{last},0]")  # the mask after the scores
    assert "more" not in first
    assert {n for n, _ in lit(q)} == {"mask", "blocks.0.scores.1"}  # and both are lit


def test_a_masked_weight_names_its_mask_cell(chapter, trace):
    (q,) = questions_at(trace, chapter.params, [("blocks.0.attn.1", (0, 2))])
    assert hint(q, 1) == "computed from mask[0,2]"
