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
- written: what the rounded numbers the last hint and the inspector write give (√3 as 1.7321, a
  softmax's exps, a row's mean and variance), which the inspector says where it differs;
- carried: the most the operands' rounding (each within half a unit of its 4th decimal) moves the
  result, to first order: Σ |∂f/∂operand| · 0.00005, the derivatives taken on the formula itself,
  plus half a unit for each product a student writes down on the way (2√n of them past four): one per
  pair of the operands the result moves with, but none for a sum or a mean of them, and one per operand
  weighed by other than 1 in a formula straight in them (ℓ − lr·g);
- right: within carried plus half a unit of the last place shown (0.00005) of from_shown or of
  written, or within half a unit of the last place of the exact value; a token id only as itself.
A cell computed from more than MAX_DERIVED operands carries no derivatives (they would take minutes).

What the shown numbers give is always right, however far their rounding carries it from the exact value
(a layer norm of a variance shown as 0.0012, the log of a probability shown as 0.0090): nobody can
compute closer from the screen. Only carried is capped, at MARGIN (0.002), and where the ranges do not
meet, what lies between them is wrong. Where the shown operands give no number at all (the log of
0.0000), the exact value and the written numbers are right. On the chapter model no accepted answer
lies further than 0.001 from the exact value (tests/practice check it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tinytui.lesson.why.why import PLACES, Why
from tinytui.lesson.why.written import last_piece, value_of
from tinytui.model import checks

HALF_UNIT = 0.5 * 10.0**-PLACES  # half of the 4th decimal: 0.00005
MARGIN = 2e-3  # the most slack given for rounding on the way, beyond what the shown operands give
_SLACK = 1e-12  # what a decimal written to 4 places may differ by in binary (0.12345 is not exact)
_STEP = 1e-6  # the step of the central differences that give the derivatives
_PROBE = 0.1  # the step of the probe that tells a straight formula from a bent one: wide enough that a
# bend shows far above rounding (a softmax of p = 0.02 bends by 1e-9 at a step of 0.001)
_FLAT = 1e-9  # what a straight formula's second difference may be in floating point, relative
_SAME = 1e-6  # two slopes as equal as central differences tell them
_INWARD_STEPS = 20  # a range is at least a unit of the places shown wide: ten of the next place
MAX_DERIVED = 512  # operands whose rounding is carried through; a cell of more (a row of GPT-2's
# vocabulary) is not: its interval is what the shown operands give and the exact value, each ± half a unit


@dataclass(frozen=True)
class Accepted:
    """The answers counted right for one cell: near what the shown operands give or what the numbers the
    hint and the inspector write give (within width of either), or near the exact value (within half a
    unit of the last place shown). Mostly these overlap in one interval, low to high; where the shown
    numbers are too coarse to give the value (a gradient shown as 0.0000 times a weight of hundreds) they
    are apart, and what lies between them is not right."""

    value: float  # the exact value
    from_shown: float  # the formula on the operands as shown
    carried: float  # how far the operands' rounding can move the result (first order, capped)
    places: int  # the places the result is shown to (0 for a token id)
    computable: bool = True  # False: the shown operands give no number (log 0.0000), from_shown is value
    written: float | None = None  # what the numbers written in the formula give (its rounded √3, exps, μ)

    @property
    def low(self) -> float:
        """The lowest answer counted right."""
        return self.ranges()[0][0]

    @property
    def high(self) -> float:
        """The highest answer counted right."""
        return self.ranges()[-1][1]

    @property
    def half(self) -> float:
        """Half a unit of the last place shown; none for a whole number (a token id is itself or wrong)."""
        return 0.5 * 10.0**-self.places if self.places else 0.0

    def ranges(self) -> tuple[tuple[float, float], ...]:
        """The accepted ranges, lowest first, none meeting the next."""
        centres = [self.from_shown] + ([self.written] if self.written is not None else [])
        pieces = sorted(
            [(c - self.width, c + self.width) for c in centres]
            + [(self.value - self.half, self.value + self.half)]
        )
        merged = [pieces[0]]
        for lo, hi in pieces[1:]:
            if lo <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
            else:
                merged.append((lo, hi))
        return tuple(merged)

    def bounds(self) -> tuple[tuple[float, float], ...]:
        """The ranges as holds() tests them: each end widened by what a 4-place decimal may differ by in
        binary. An answer on one of these ends is where another machine's last bits can grade it
        otherwise."""
        return tuple((lo - _SLACK, hi + _SLACK) for lo, hi in self.ranges())

    def holds(self, answer: float) -> bool:
        if not math.isfinite(self.value):
            return answer == self.value
        return any(lo <= answer <= hi for lo, hi in self.bounds())

    @property
    def width(self) -> float:
        """How far from what the shown numbers give an answer may be: 'within ±0.0007'."""
        return self.carried + self.half

    def text(self) -> str:
        """'0.47072 to 0.47208' (or two such ranges joined by 'or'), to one place more than shown: each
        end the outermost number of that many places still counted right, so an end typed as written is
        graded right (an end rounded to the nearest place could lie outside by a hair)."""
        if not math.isfinite(self.value):
            return "no number"
        if not self.places:
            return f"only {self.value:.0f}"
        p = self.places + 1
        return " or ".join(
            f"{_signed(self._end(lo, p, 1), p)} to {_signed(self._end(hi, p, -1), p)}"
            for lo, hi in self.ranges()
        )

    def _end(self, end: float, places: int, inward: int) -> float:
        """The number of `places` decimals nearest to end on its inner side (inward: +1 for a low end, −1
        for a high one) that holds() counts right, as that many places write it."""
        units = round(end * 10**places)
        for _ in range(_INWARD_STEPS):
            if self.holds(float(f"{units / 10**places:.{places}f}")):
                return units / 10**places
            units += inward
        return end  # a number so large that its places are not held in a float: written as it is

    def rule_text(self) -> str:
        """The rule without the answer: 'within ±0.00072 of what the numbers on screen give'."""
        if not math.isfinite(self.value):  # a loss of a probability that is exactly 0
            return f"no number: its value is {'∞' if self.value > 0 else '−∞'}, which cannot be typed"
        if not self.places:
            return "exactly the id, a whole number"
        # the width cut (never rounded up) to the places written, so what the words promise is right
        places = self.places + 1
        within = f"±{math.floor(self.width * 10**places + 1e-9) / 10**places:.{places}f}"
        if not self.computable:
            return (
                f"within {within} of its value, since its operands as shown give no number: the last "
                "hint writes them to more places"
            )
        return f"within {within} of what the numbers on screen give"


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
    if not math.isfinite(value):
        return Accepted(value, value, 0.0, places)
    shown = why.shown_operands()
    from_shown = _evaluate(why, shown)
    carried = 0.0
    slopes: list[float] = []  # ∂f/∂operand of each operand shown rounded, in order
    for i, op in enumerate(why.operands if len(why.operands) <= MAX_DERIVED else ()):
        if op.exact:
            continue
        step = _STEP * max(1.0, abs(shown[i]))
        up, down = list(shown), list(shown)
        up[i] += step
        down[i] -= step
        slope = (_evaluate(why, up) - _evaluate(why, down)) / (2 * step)
        slopes.append(slope)
        carried += abs(slope) * HALF_UNIT if math.isfinite(slope) else math.inf
    computable = math.isfinite(from_shown)
    if not computable:  # the shown operands give no number (log 0.0000): the value only
        from_shown, carried = value, 0.0
    # What the shown operands give is always right, however far the operands' rounding carries it from
    # the value (a layer norm of a tiny variance, the log of a probability shown as 0.0090): a student
    # can compute no better from the screen. So is what the numbers the formula writes give (√3 as
    # 1.7321, exps, a mean and variance to 4 places), which the inspector says when it differs. Only the
    # slack for rounding on the way is capped.
    # a student who writes each of n products of a sum down to the places shown adds up to half a unit
    # per product, however small the operands: n of them at worst, but n roundings that all go one way
    # are rare, so past 4 products 2√n (3.5 standard deviations of their sum)
    products = _products(why, shown, from_shown, slopes)
    written_down = min(products, 2 * math.sqrt(products)) * HALF_UNIT
    carried = min(carried + written_down, MARGIN)
    written = value_of(last_piece(why.filled))
    return Accepted(value, from_shown, carried, places, computable, written)


def _products(why: Why, shown: list[float], at: float, slopes: list[float]) -> int:
    """How many products a student writes down on the way to the answer, each to the places shown. A
    formula straight in its operands (a sum, a mean, x + PE, ℓ − lr·g) writes one for each operand it
    weighs by other than 1, and none when it weighs them all alike (they are added, and divided once at
    the end); any other (a dot product, a norm, a softmax) one for each pair of the operands it moves
    with (a layer norm's entry reads one entry of its row, and a product with a 0.0000 is written as
    0)."""
    if not slopes or not math.isfinite(at) or not all(map(math.isfinite, slopes)):
        return sum(not op.exact for op in why.operands) // 2
    pairs = sum(1 for slope in slopes if slope) // 2
    if not _straight(why, shown, at):
        return pairs
    weights = [abs(s) for s in slopes if s]
    if all(math.isclose(w, weights[0], rel_tol=_SAME) for w in weights):
        return 0
    return sum(not math.isclose(w, 1.0, rel_tol=_SAME) for w in weights)


def _straight(why: Why, shown: list[float], at: float) -> bool:
    """Whether the formula is straight (affine) in its rounded operands around the shown values: a
    second difference along a probe that moves every one of them vanishes. A product of two of them
    adds 2·h·h′ to it, and the probe's signs alternate and its sizes cycle so that those never cancel."""
    probe = [
        0.0 if op.exact else _PROBE * (1 + i % 3) * (-1) ** i * max(1.0, abs(v))
        for i, (op, v) in enumerate(zip(why.operands, shown))
    ]
    with np.errstate(all="ignore"):  # a probe past a tiny variance's zero has no value: not straight
        ahead = _evaluate(why, [v + h for v, h in zip(shown, probe)])
        behind = _evaluate(why, [v - h for v, h in zip(shown, probe)])
    bend = ahead + behind - 2 * at
    return math.isfinite(bend) and abs(bend) <= _FLAT * max(1.0, abs(at), abs(ahead), abs(behind))


def _evaluate(why: Why, values: list[float]) -> float:
    """The formula on these operand values; nan where it has no value there (log 0, a division by 0)."""
    try:
        return why.evaluate(values)
    except (ValueError, ZeroDivisionError, OverflowError):
        return math.nan


def grade(text: str, ok: Accepted, verdict: bool | None = None) -> Grade:
    """A typed answer graded against a cell's accepted interval. verdict, when given, is the grade a
    number gets instead (replay keeps a recorded one for an answer on an end of its range, where another
    machine's last bits decide: tinytui.recording.event_kinds); text that is no number is never right."""
    if not text.strip():
        return Grade(None, ok.value, False, "no answer given", ok)
    try:
        answer = checks.number(text)
    except checks.Invalid as exc:
        return Grade(None, ok.value, False, str(exc), ok)
    right = ok.holds(answer) if verdict is None else verdict
    return Grade(answer, ok.value, right, "right" if right else "not quite", ok)


def _signed(v: float, places: int) -> str:
    s = f"{v:.{places}f}"
    return s.replace("-", "−") if s.strip("-0.") else s.lstrip("-")
