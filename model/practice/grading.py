"""Grading a learner's answer: right when it agrees with the true value to the 4 decimals the app shows.

    grade("0.7777", 0.777714…)   Grade(correct=True, …)
    grade("0.7787", 0.777714…)   Grade(correct=False, …, said='not quite')
    grade("seven", 0.777714…)    Grade(correct=False, answer=None, said="'seven' is not a number")

The rule: |answer − value| ≤ 5e-5 (half the last decimal shown), or, for values of 10 or more, a relative
error of at most 1e-4. An answer may be written as the app writes numbers (the Unicode minus "−0.2429",
"∞") or as Python reads them ("-0.2429", "1e-3"); anything else is not a number and is graded wrong.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

ABSOLUTE = 5e-5  # half of the 4th decimal
RELATIVE = 1e-4  # for values of 10 or more
LARGE = 10.0
_SLACK = 1e-12  # what a decimal written to 4 places may differ by in binary (0.12345 is not exact)
_INFINITE = {"∞": math.inf, "+∞": math.inf, "−∞": -math.inf, "-∞": -math.inf}


@dataclass(frozen=True)
class Grade:
    """One answer graded: the number read (None when the text is not one), whether it is right, and a
    few words for the learner ("right", "not quite", "'x' is not a number")."""

    answer: float | None
    expected: float
    correct: bool
    said: str


def read_number(text: str) -> float | None:
    """The number a learner typed, or None when it is not one: '−0.25', '-0.25', '1e-3', '∞'."""
    s = text.strip().replace("−", "-").replace(" ", "")
    if s in _INFINITE:
        return _INFINITE[s]
    if not s or s.lower().lstrip("+-") in ("nan", "inf", "infinity"):
        return None  # Python reads these; a learner writing them has not computed a number
    try:
        return float(s)
    except ValueError:
        return None


def tolerance(expected: float) -> float:
    """How far an answer may be from expected and still be right."""
    if abs(expected) >= LARGE:
        return RELATIVE * abs(expected)
    return ABSOLUTE + _SLACK


def is_right(answer: float, expected: float) -> bool:
    """answer agrees with expected to the 4 decimals shown (see tolerance)."""
    if math.isinf(expected) or math.isinf(answer):
        return answer == expected
    return abs(answer - expected) <= tolerance(expected)


def grade(text: str, expected: float) -> Grade:
    """A typed answer graded against the true value."""
    answer = read_number(text)
    if answer is None:
        shown = text.strip()
        return Grade(None, expected, False, f"{shown!r} is not a number" if shown else "no answer given")
    right = is_right(answer, expected)
    return Grade(answer, expected, right, "right" if right else "not quite")
