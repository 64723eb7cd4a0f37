"""A sentence that names the largest weight compares weights as the tables show them (4 decimals): two
that both read 0.4000 are a tie, named as one, however they differ further down."""

from __future__ import annotations

import numpy as np

from tinytui.lesson.texts.attention_texts import largest


def test_weights_equal_at_four_decimals_tie():
    assert largest(np.array([0.40004, 0.39996, 0.2])) == [0, 1]
    assert largest(np.array([0.4001, 0.3999, 0.2])) == [0]
    assert largest(np.array([0.25, 0.25, 0.25, 0.25])) == [0, 1, 2, 3]
