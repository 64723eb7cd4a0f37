"""Grading a learner's answer fairly: right when it is what the formula gives from the operands as the
screen shows them, within the rounding those shown operands can carry through the formula.

    ok = accepted(why)          # the interval of right answers for one cell (lesson/why's Why)
    grade("0.4713", ok)         Grade(correct=True, …)
    grade("0.4743", ok)         Grade(correct=False, …, said='not quite')
    grade("seven", ok)          Grade(correct=False, answer=None, said="'seven' is not a number (try …)")

The rule, worked out per question from its own formula:
- the operands as shown: each rounded to the 4 decimals the tables show (token ids and the mask are
  whole numbers, shown exactly);
- from_shown: the formula evaluated on those shown operands, what a careful student gets;
- carried: the most the operands' rounding (each within half a unit of its 4th decimal) moves the
  result, to first order: Σ |∂f/∂operand| · 0.00005, the derivatives taken on the formula itself;
- right: within carried plus half a unit of the last place shown (0.00005) of from_shown, or within
  half a unit of the last place of the exact value (the exact value to the places shown).
A cell computed from more than MAX_DERIVED operands carries none (the derivatives would take minutes).

The margin kept: an accepted interval never reaches further than MARGIN (0.002) from the exact value,
however large the carried rounding, so an answer 0.003 off the true value is wrong on every question.
On the chapter model the widest interval reaches 0.0007 from the true value (tests/practice check it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tinytui.lesson.why.why import PLACES, Why
from tinytui.model import checks

HALF_UNIT = 0.5 * 10.0**-PLACES  # half of the 4th decimal: 0.00005
MARGIN = 2e-3  # the farthest an accepted answer may be from the exact value
_SLACK = 1e-12  # what a decimal written to 4 places may differ by in binary (0.12345 is not exact)
_STEP = 1e-6  # the step of the central differences that give the derivatives
MAX_DERIVED = 512  # operands whose rounding is carried through; a cell of more (a row of GPT-2's
# vocabulary) is not: its interval is what the shown operands give and the exact value, each ± half a unit


@dataclass(frozen=True)
class Accepted:
    """The answers counted right for one cell: from low to high (value lies between them)."""

    value: float  # the exact value
    from_shown: float  # the formula on the operands as shown
    carried: float  # how far the operands' rounding can move the result (first order)
    places: int  # the places the result is shown to (0 for a token id)
    low: float
    high: float

    def holds(self, answer: float) -> bool:
        if not math.isfinite(self.value):
            return answer == self.value
        return self.low - _SLACK <= answer <= self.high + _SLACK

    @property
    def width(self) -> float:
        """How far from what the shown operands give an answer may be: 'within ±0.0007'."""
        return self.carried + 0.5 * 10.0**-self.places

    def text(self) -> str:
        """'0.47071 to 0.47209': the interval, to one place more than shown (its ends are not rounded)."""
        p = self.places + 1
        return f"{_signed(self.low, p)} to {_signed(self.high, p)}"

    def rule_text(self) -> str:
        """The rule without the answer: 'within ±0.00072 of what its operands as shown give'."""
        return f"within ±{self.width:.{self.places + 1}f} of what its operands as shown give"


@dataclass(frozen=True)
class Grade:
    """One answer graded: the number read (None when the text is not one), whether it is right, and a
    few words for the learner ("right", "not quite", "'x' is not a number (try …)") and the interval
    it was graded against."""

    answer: float | None
    expected: float
    correct: bool
    said: str
    accepted: Accepted | None = None


def accepted(why: Why) -> Accepted:
    """The interval of right answers for why's cell, worked out from its formula and operands."""
    value = why.value
    places = why.places
    half = 0.5 * 10.0**-places
    if not math.isfinite(value):
        return Accepted(value, value, 0.0, places, value, value)
    shown = why.shown_operands()
    from_shown = why.evaluate(shown)
    carried = 0.0
    for i, op in enumerate(why.operands if len(why.operands) <= MAX_DERIVED else ()):
        if op.exact:
            continue
        step = _STEP * max(1.0, abs(shown[i]))
        up, down = list(shown), list(shown)
        up[i] += step
        down[i] -= step
        slope = (why.evaluate(up) - why.evaluate(down)) / (2 * step)
        carried += abs(slope) * HALF_UNIT if math.isfinite(slope) else math.inf
    if not math.isfinite(from_shown) or not math.isfinite(carried):
        from_shown, carried = value, 0.0
    low = max(min(from_shown - carried - half, value - half), value - MARGIN)
    high = min(max(from_shown + carried + half, value + half), value + MARGIN)
    return Accepted(value, from_shown, carried, places, low, high)


def grade(text: str, ok: Accepted) -> Grade:
    """A typed answer graded against a cell's accepted interval."""
    if not text.strip():
        return Grade(None, ok.value, False, "no answer given", ok)
    try:
        answer = checks.number(text)
    except checks.Invalid as exc:
        return Grade(None, ok.value, False, str(exc), ok)
    right = ok.holds(answer)
    return Grade(answer, ok.value, right, "right" if right else "not quite", ok)


def _signed(v: float, places: int) -> str:
    s = f"{v:.{places}f}"
    return s.replace("-", "−") if s.strip("-0.") else s.lstrip("-")
