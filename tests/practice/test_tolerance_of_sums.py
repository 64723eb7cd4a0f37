"""The slack for products written down on the way is given where a student writes products: a mean of the
shown numbers, or x = E[id] + PE, is added exactly and divided once, so what the shown operands give is
right within their rounding and the answer's own, no more. It was one half unit per pair of operands
(μ[2] of the chapter: ±0.00020, so 0.6281 was right though the shown row gives 0.62825), and a pair of
operands the result does not move with (a layer norm's entry reads one entry of its row) counted as one;
a dot product, a norm, a softmax and ℓ′ = ℓ − lr·g, which do write products, keep theirs."""

from __future__ import annotations

import pytest

from tinytui.lesson.practice.grading import HALF_UNIT, accepted, grade
from tinytui.lesson.practice.questions import questions_at


def interval(chapter, trace, name, index):
    (q,) = questions_at(trace, chapter.params, [(name, index)])
    return q, accepted(q.why)


def test_a_mean_is_right_within_its_operands_rounding_and_its_own(chapter, trace):
    q, ok = interval(chapter, trace, "blocks.0.ln1.mean", (2,))
    assert "(0.9093 + 0.5839 + 0.0200 + 0.9998) / 4" in q.why.filled
    assert ok.from_shown == pytest.approx(0.62825, abs=1e-12)
    # four operands, each weighed 1/4 and rounded within half a unit: half a unit in all, and the answer's
    assert ok.carried == pytest.approx(HALF_UNIT, rel=1e-6) and ok.width == pytest.approx(
        2 * HALF_UNIT, rel=1e-6
    )
    assert ok.rule_text() == "within ±0.00010 of what the numbers on screen give"
    assert grade("0.6282", ok).correct and grade("0.6283", ok).correct  # the two roundings of 0.62825
    assert not grade("0.6281", ok).correct and not grade("0.6284", ok).correct  # a sum off by 0.0005


def test_a_sum_of_two_shown_numbers(chapter, trace):
    q, ok = interval(chapter, trace, "x", (2, 1))
    assert q.why.filled == "1.0000 − 0.4161"
    assert ok.rule_text() == "within ±0.00015 of what the numbers on screen give"
    assert grade("0.5839", ok).correct and not grade("0.5837", ok).correct


@pytest.mark.parametrize(
    ("name", "index", "rule"),
    [
        ("blocks.0.scores.2", (1, 0), "±0.00026"),  # (q·k) / √2: two products
        ("logits_stepped", (0,), "±0.00017"),  # ℓ − 0.5·g: one product
        ("blocks.0.ln1.var", (2,), "±0.00018"),  # four squares
        ("probs", (0,), "±0.00025"),  # a softmax of eight logits: four
    ],
)
def test_formulas_that_write_products_keep_their_slack(chapter, trace, name, index, rule):
    _, ok = interval(chapter, trace, name, index)
    assert rule in ok.rule_text()


@pytest.mark.parametrize(
    ("name", "index", "filled", "rule"),
    [
        # (x − μ) / √(σ² + ε) reads one entry of the row of six operands: one product, not three
        ("blocks.0.x_norm", (2, 1), "(0.5839 − 0.6282) / √(0.1472 + 1e−05)", "±0.00038"),
        # eight products, six of them with a 0.0000, which is written as 0
        ("blocks.0.ffn", (0, 0), "0.0000·1.0000 + 0.0000·0.0000 + 0.5773·0.0000", "±0.00036"),
    ],
)
def test_only_the_operands_a_result_moves_with_are_counted(chapter, trace, name, index, filled, rule):
    q, ok = interval(chapter, trace, name, index)
    assert q.why.filled.startswith(filled)
    assert rule in ok.rule_text()
