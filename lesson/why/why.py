"""The pieces every "why this number" rule is built from: Why, Operand, the context a rule reads and the
text helpers (4-decimal numbers with the Unicode minus, cell references, sums of products).

A rule (stream_cells.py, attention_cells.py, block_cells.py, grad_cells.py, grad_block_cells.py,
grad_param_cells.py) turns one cell into a Why: the formula in
symbols, the formula with its operands' numbers filled in, the operands themselves (canonical name, full
index, value) and a compute function that gives the value again from those operand values alone. That
last part is what keeps the explanation honest: tests evaluate every cell and compare with the trace.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from tinytui.lesson.why.written import last_piece, settled, value_of
from tinytui.model.backward.rows import ROWS_OF
from tinytui.model.config import ModelConfig
from tinytui.model.names import BLOCK, GRAD, WHOLE_NUMBERS, label, split
from tinytui.model.switches import Switches
from tinytui.model.trace import Trace

Index = tuple[int, ...]
Ref = tuple[str, Index]  # a cell: canonical name and full index
Compute = Callable[[Sequence[float]], float]

SHOW = 4  # the terms of a long sum shown before "… + N more"
_MORE = re.compile(r"… \+ (\d+) more")  # sum_text's tail: the terms not printed
MINUS = "−"
PLACES = 4  # the decimals every table, formula and result shows


@dataclass(frozen=True)
class Operand:
    """One cell a value is computed from: a trace tensor, a parameter or a gradient."""

    name: str  # canonical: "blocks.0.q.2", "E", "grad.blocks.0.mha"
    index: Index  # a full index into that array (() for a scalar)
    value: float

    @property
    def exact(self) -> bool:
        """Shown exactly (a token id, the mask's 0 or 1), so it carries no rounding."""
        return self.name in WHOLE_NUMBERS

    @property
    def shown(self) -> float:
        """The value as the screen shows it: rounded to PLACES decimals (a whole number as it is)."""
        if self.exact or not math.isfinite(self.value):
            return self.value
        return round(self.value, PLACES)


@dataclass(frozen=True)
class Why:
    """Why one cell has the value it has.

    formula: the rule in symbols, as it ran under the trace's switches;
    filled: the same with the operands' numbers in; result: the value as the app shows it;
    operands: every cell the value is computed from, in the order compute() takes them.
    filled is true as written; where its numbers do not give result at the places shown, gives says
    what they give and ending writes "≈ result".
    """

    name: str
    index: Index
    value: float
    formula: str
    filled: str
    result: str
    operands: tuple[Operand, ...]
    compute: Compute = field(repr=False, compare=False)

    @cached_property
    def gives(self) -> float | None:
        """None when the numbers written in filled give result at the places shown, else what they give.
        Worked out when first asked (the inspector, why, a hint): a walk over every cell never pays."""
        written = value_of(last_piece(self.filled))
        if written is None and self.operands:  # not every number is written ("… + 4 more"): the shown ones
            try:
                written = float(self.compute(self.shown_operands()))
            except (ValueError, ZeroDivisionError, OverflowError):
                written = None
        if written is None or not math.isfinite(written) or result_text(self.name, written) == self.result:
            return None
        return written

    def evaluate(self, values: Sequence[float] | None = None) -> float:
        """The value recomputed from the operands' values (or from other values, one per operand)."""
        vals = [o.value for o in self.operands] if values is None else [float(v) for v in values]
        if len(vals) != len(self.operands):
            raise ValueError(f"{len(self.operands)} operand values needed, {len(vals)} given")
        return float(self.compute(vals))

    @property
    def ending(self) -> str:
        """What follows filled, true as written: '= 0.4714', or where the rounded numbers written give
        another value at the places shown, '≈ 0.4714   (these rounded numbers give 0.4713)'; where a sum
        is cut to "… + N more", what all its terms give, the N not printed with them."""
        if self.gives is None:
            return f"= {self.result}"
        gives = result_text(self.name, self.gives)
        if more := _MORE.search(last_piece(self.filled)):  # worked from every term, printed or not: say so
            return (
                f"≈ {self.result}   (these terms and the {more[1]} more, every number rounded, give {gives})"
            )
        return f"≈ {self.result}   (these rounded numbers give {gives})"

    @property
    def places(self) -> int:
        """The decimals the result is shown to: none for a token id."""
        return 0 if self.name == "ids" else PLACES

    def shown_operands(self) -> list[float]:
        """The operands' values as the screen shows them, in the order compute() takes them."""
        return [o.shown for o in self.operands]

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "index": list(self.index),
            "value": self.value,
            "formula": self.formula,
            "filled": self.filled,
            "operands": [{"name": o.name, "index": list(o.index), "value": o.value} for o in self.operands],
            "result": self.result,
            "equals": "=" if self.gives is None else "≈",
            "gives": self.gives,
        }


def num(v: float) -> str:
    """4 decimals, the Unicode minus, never "−0.0000"."""
    if math.isinf(v):
        return "∞" if v > 0 else MINUS + "∞"
    s = f"{v:.4f}"
    if s == "-0.0000":
        s = "0.0000"
    return s.replace("-", MINUS)


def const(v: float) -> str:
    """A constant such as ε or lr: as short as it reads exactly ("1e−05", "0.5")."""
    return f"{v:g}".replace("-", MINUS)


def factor(v: float) -> str:
    """A number inside a product: parenthesised when negative, so "0.5·(−0.3)"."""
    s = num(v)
    return f"({s})" if s.startswith(MINUS) else s


def sum_text(terms: Sequence[str], total: int | None = None, show: int = SHOW) -> str:
    """Terms joined by + and −, the first `show` of them and "… + N more" after. `total` is how many
    terms there are when only the first few were formatted."""
    total = len(terms) if total is None else total
    if not total:
        return "0"
    shown = list(terms[:show])
    out = shown[0]
    for t in shown[1:]:
        out += f" {MINUS} {t[1:]}" if t.startswith(MINUS) else f" + {t}"
    if total > show:
        out += f" + … + {total - show} more"
    return out


def product_terms(pairs: Sequence[tuple[float, float]]) -> list[str]:
    """'a·b' for each pair; the first factor keeps its sign in front, the second is parenthesised."""
    return [f"{num(a)}·{factor(b)}" for a, b in pairs]


def dot(values: Sequence[float], n: int, start: int = 0) -> float:
    """Σ v[start+2k]·v[start+2k+1] over n interleaved pairs."""
    v = np.asarray(values[start : start + 2 * n], dtype=np.float64)
    return float(np.dot(v[0::2], v[1::2])) if n else 0.0


@dataclass
class Cell:
    """The cell asked about, taken apart: canonical name, block (None if model-wide), block-local name
    without its head, the head (1-based, None if not per head) and the index."""

    name: str
    block: int | None
    local: str
    head: int | None
    index: Index

    @property
    def b(self) -> int:
        """The block, for a rule of a block's tensor (every cell such a rule is given lies in one)."""
        if self.block is None:
            raise ValueError(f"{self.name} lies in no block")
        return self.block

    @property
    def h(self) -> int:
        """The head (1-based), for a rule of a per-head tensor (every cell it is given has one)."""
        if self.head is None:
            raise ValueError(f"{self.name} belongs to no head")
        return self.head


def cell_of(name: str, index: Index) -> Cell:
    b, local = split(name)
    grad = local.startswith(GRAD)
    bare = local[len(GRAD) :] if grad else local
    head = None
    if b is not None:
        base, _, h = bare.rpartition(".")
        if h.isdigit() and base:
            bare, head = base, int(h)
    return Cell(name, b, (GRAD if grad else "") + bare, head, tuple(index))


@dataclass
class Ctx:
    """What a rule reads: the trace, the parameters, the gradients and the switches the trace ran with."""

    trace: Trace
    params: Mapping[str, np.ndarray]
    grads: Mapping[str, np.ndarray]
    cfg: ModelConfig
    sw: Switches
    prompt: tuple[str, ...]
    target: int  # the target's vocabulary id
    lr: float

    @property
    def T(self) -> int:
        return int(self.trace["ids"].shape[0])

    _arrays: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    def array(self, name: str) -> np.ndarray:
        arr = self._arrays.get(name)
        if arr is None:
            if name.startswith(GRAD):
                arr = self.grads[name]
            elif name in self.trace:
                arr = self.trace[name]
            else:
                arr = self.params[name]
            self._arrays[name] = arr
        return arr

    def value(self, name: str, index: Index) -> float:
        if name in ROWS_OF and name not in self._arrays and hasattr(self.grads, "rows"):
            # E's gradient and its unembedding share, one row at a time (300 MB each at GPT-2)
            return float(self.grads.rows(name, [index[0]])[0][index[1:]])
        return float(self.array(name)[index])

    def shape(self, name: str) -> tuple[int, ...]:
        """An array's shape; a gradient's from its axes, without computing it."""
        axes = getattr(self.grads, "axes", None)
        if name.startswith(GRAD) and axes is not None and name not in self._arrays:
            return tuple(len(a.labels) for a in axes(name))
        return tuple(self.array(name).shape)

    def label(self, name: str) -> str:
        return label(name, self.cfg.n_blocks)

    def ref(self, name: str, *index: int | str) -> str:
        """'q.2[1,0]', 'W_Q[1,:,0]', 'x_norm[1]'; with several blocks 'q.2[1,0] (block 2)'."""
        shown = self.label(name)
        base, sep, block = shown.partition(" (block ")
        idx = f"[{','.join(str(i) for i in index)}]" if index else ""
        return base + idx + (f" (block {block}" if sep else "")

    def block_input(self, b: int) -> str:
        """The stream block b reads (x for the first block, the previous block's y after that), as the
        forward pass declared it."""
        return self.trace.stream_into(b)

    def name(self, b: int, local: str) -> str:
        return f"{BLOCK}{b}.{local}"

    def terms(self, name: str) -> list[str]:
        """What a residual sum (x_mid, y) added, as the forward declared it (its formula takes the stream
        and the branch first): both, or the branch alone with the residual switched off."""
        stream, branch = self.trace.inputs_of(name)[:2]
        return [stream, branch] if self.sw.residual else [branch]

    def last_y(self) -> str:
        """The stream the final norm reads: the last block's y."""
        return self.trace.stream_into()

    def make(self, cell: Cell, formula: str, filled: str, refs: Sequence[Ref], compute: Compute) -> Why:
        """The one place a Why is made: filled is settled here so it is true as written (an "=" between
        pieces that differ at the places shown becomes "≈"; Why.gives says what the written numbers
        give when that is not the result)."""
        value = self.value(cell.name, cell.index)
        operands = tuple(Operand(n, tuple(int(i) for i in idx), self.value(n, idx)) for n, idx in refs)
        result = result_text(cell.name, value)
        if _same_number(filled, result):  # "0" beside "0.0000" says nothing new: one text, shown once
            filled = result
        filled = settled(filled, num)
        return Why(cell.name, cell.index, value, formula, filled, result, operands, compute)


def _same_number(filled: str, result: str) -> bool:
    """Whether `filled` is only a number that reads as `result` at the shown precision."""
    try:
        return num(float(filled.strip().replace(MINUS, "-"))) == num(float(result.replace(MINUS, "-")))
    except ValueError:
        return False


def result_text(name: str, value: float) -> str:
    """The value as shown: a token id as an integer, everything else to 4 decimals."""
    return str(int(value)) if name == "ids" else num(value)
