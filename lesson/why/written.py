"""A filled formula read back as written: the value of the arithmetic the app writes with its numbers in,
so a line that says "= 2.0787" is only written when the numbers on that line give 2.0787.

    value_of("1.5000 + 0.5788")                   2.0788
    value_of("(0.5773·0.5773 + 0.5773·0.5773) / 1.4142")   0.47133…
    value_of("−log 0.3107")                       1.16893…
    value_of("0.1·0.2 + … + 4 more")              None: not every term is written
    settled("sin(3·0.0316) = sin(0.0949)")        "sin(3·0.0316) ≈ sin(0.0949)": 0.0948 is not 0.0949

The arithmetic: numbers with the Unicode minus, + − · / ² ³, parentheses, √, exp, log, sin, cos, tanh,
max. Anything else (a word, "…", ∞, an index E[3, 1]) is not arithmetic and gives None. It is read with
Python's ast and only those operations are evaluated.
"""

from __future__ import annotations

import ast
import itertools
import math
import operator
import re
from collections.abc import Callable

NOTE = "   ("  # a note after the arithmetic: "max(0, −1.7)   (the unit did not fire)"
GIVEN = ":  "  # what comes before it is given: "μ = mean(x[1]) = 0.25,  σ² = 0.5:  (0.3 − 0.25) / …"
EQUALS, ABOUT = " = ", " ≈ "

_FUNCTIONS: dict[str, Callable[..., float]] = {
    "sqrt": math.sqrt,
    "exp": math.exp,
    "log": math.log,
    "sin": math.sin,
    "cos": math.cos,
    "tanh": math.tanh,
    "max": max,
}
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}
_ROOT_OF_NUMBER = re.compile(r"√(\d[\d.]*)")
_LOG_OF_NUMBER = re.compile(r"\blog (\d[\d.]*(?:e[+-]?\d+)?)")
MAX_CHARS = 4000  # a filled formula is a few hundred characters; longer text is not read


def value_of(text: str) -> float | None:
    """The value of the arithmetic in text as written, or None when text is not only arithmetic."""
    if len(text) > MAX_CHARS or "…" in text or "∞" in text or "[" in text:
        return None
    src = text.replace("−", "-").replace("·", "*").replace("²", "**2").replace("³", "**3")
    src = _ROOT_OF_NUMBER.sub(r"sqrt(\1)", src)
    src = src.replace("√(", "sqrt(")
    src = _LOG_OF_NUMBER.sub(r"log(\1)", src)
    try:
        tree = ast.parse(src.strip(), mode="eval")
        value = _evaluate(tree.body)
    except (SyntaxError, ValueError, TypeError, ZeroDivisionError, OverflowError, RecursionError):
        return None
    return float(value) if math.isfinite(value) else None


def last_piece(filled: str) -> str:
    """The arithmetic a filled formula ends with, the piece its result follows: without a note after
    it, what it is given before it, or the pieces of a chain ("a = b") before the last."""
    main = filled.split(NOTE, 1)[0].rsplit(GIVEN, 1)[-1]
    return re.split(f"{EQUALS}|{ABOUT}", main)[-1]


def settled(filled: str, shown: Callable[[float], str]) -> str:
    """filled with each " = " between two pieces of arithmetic that do not agree at the places shown
    (shown(value) writes a value as the app does) turned into " ≈ "."""
    if EQUALS not in filled:
        return filled  # no chain: nothing to settle (most formulas)
    main = filled.split(NOTE, 1)[0]
    before, sep, chain = main.rpartition(GIVEN)
    pieces = chain.split(EQUALS)
    if len(pieces) < 2:
        return filled
    values = [value_of(p) for p in pieces]
    out = pieces[0]
    for (a, b), piece in zip(itertools.pairwise(values), pieces[1:]):
        differ = a is not None and b is not None and shown(a) != shown(b)
        out += (ABOUT if differ else EQUALS) + piece
    return before + sep + out + filled[len(main) :]


def _evaluate(node: ast.AST) -> float:
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
    ):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _evaluate(node.operand)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.Pow):
            exponent = node.right.value if isinstance(node.right, ast.Constant) else None
            if not isinstance(exponent, (int, float)) or exponent not in (2, 3):
                raise ValueError("only squares and cubes are written")
            return _evaluate(node.left) ** int(exponent)
        op = _BINARY.get(type(node.op))
        if op is None:
            raise ValueError("not arithmetic the app writes")
        return op(_evaluate(node.left), _evaluate(node.right))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        fn = _FUNCTIONS.get(node.func.id)
        if fn is None:
            raise ValueError("not a function the app writes")
        return float(fn(*(_evaluate(a) for a in node.args)))
    raise ValueError("not arithmetic the app writes")
