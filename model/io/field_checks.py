"""The checks a model file's fields pass, the bounds they enforce, and the one error they raise.

Each check takes fail(field, why), the reader's way of making a ModelFileError that names its file, so
every refusal is one line: "<file>: <field>: <why>". The JSON reader's number hooks live here too: they
turn NaN, Infinity and numbers beyond a float into UnusableNumber, which the field holding it refuses.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable
from typing import Any

import numpy as np

from tinytui.model import checks


class ModelFileError(ValueError):
    """A model file that cannot be used; str() is one line naming the file and the field."""


Fail = Callable[[str, str], ModelFileError]  # (field, why) -> the error to raise

# Each size at most this: GPT-2 small (d_model 768, 12 heads of 64, d_ff 3072, 12 blocks, 50257 tokens,
# n_ctx 1024) fits; a 10,000-token context (n_ctx² attention tables per head) does not.
LIMITS = {
    "d_model": 4096,
    "n_heads": 64,
    "d_head": 1024,
    "d_ff": 16384,
    "n_ctx": 1024,
    "vocab": 100_000,
    "weights.blocks": 48,
}
MAX_TEXT = {"name": 200, "about": 5000, "token": 100}
MAX_INT_DIGITS = 20  # longer integers are read as floats (no int() digit limit, no OverflowError)


class UnusableNumber:
    """What the JSON reader returns for NaN, Infinity, and numbers too large for a float: the field
    that holds it is then refused by name, like any other wrong value."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        t = self.text
        return t if len(t) <= 24 else f"{t[:12]}… (a {len(t)}-character number)"


def read_int(text: str) -> int | float | UnusableNumber:
    """json.loads' parse_int: a bounded int, so a 5,000-digit integer cannot stall int()."""
    return int(text) if len(text) <= MAX_INT_DIGITS else read_float(text)


def read_float(text: str) -> float | UnusableNumber:
    """json.loads' parse_float: a finite float, or the text kept to be refused by its field."""
    value = float(text)  # float() has no digit limit; too large gives inf
    return value if math.isfinite(value) else UnusableNumber(text)


def is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def finite(x: int | float) -> bool:
    try:
        return math.isfinite(x)
    except OverflowError:  # an int beyond float range (parse() may get a doc built in Python)
        return False


def describe(x: Any) -> str:
    """A wrong value for a message: short even when the value is huge or deeply nested."""
    if isinstance(x, list):
        return f"a list of {len(x)}"
    if isinstance(x, dict):
        return "an object"
    if isinstance(x, str):
        return checks.shown(x)
    if isinstance(x, int) and not isinstance(x, bool) and not finite(x):
        return "a number too large for a float"
    return repr(x)


def positive_int(x: Any, field: str, fail: Fail) -> int:
    if not isinstance(x, int) or isinstance(x, bool) or x <= 0:
        raise fail(field, f"expected a positive whole number, got {describe(x)}")
    if x > LIMITS.get(field, x):
        raise fail(field, f"{x} is larger than tinytui allows ({LIMITS[field]})")
    return x


def plain_text(x: Any, field: str, limit: int, fail: Fail) -> str:
    """Shown on screen, so no control characters (escape sequences could rewrite the terminal)."""
    try:
        return checks.plain_text(x, "text", limit)
    except checks.Invalid as exc:
        raise fail(field, str(exc).removeprefix("text: ")) from None


# characters that change nothing a reader sees: format characters (zero-width space and joiners, word
# joiner, BOM, soft hyphen, bidi marks), the combining grapheme joiner, variation selectors, Hangul fillers
_INVISIBLE_EXTRA = frozenset("\u034f\u115f\u1160\u3164\uffa0") | frozenset(map(chr, range(0xFE00, 0xFE10)))


def seen_as(token: str) -> str:
    """A token as a reader sees it: composed (NFC), without its invisible characters."""
    kept = "".join(
        c
        for c in unicodedata.normalize("NFC", token)
        if unicodedata.category(c) != "Cf" and c not in _INVISIBLE_EXTRA and not 0xE0100 <= ord(c) <= 0xE01EF
    )
    return unicodedata.normalize("NFC", kept)


def look_alike(tokens: list[str] | tuple[str, ...]) -> tuple[int, int] | None:
    """The first two positions (i < j) whose tokens differ only by invisible characters or by how their
    accents are encoded, so a prompt could name either one while showing the other; None if none."""
    first: dict[str, int] = {}
    for j, token in enumerate(tokens):
        i = first.setdefault(seen_as(token), j)
        if i != j:
            return i, j
    return None


def strings(x: Any, field: str, fail: Fail) -> list[str]:
    if not isinstance(x, list) or not all(isinstance(s, str) for s in x):
        raise fail(field, "expected a list of strings")
    for i, s in enumerate(x):
        plain_text(s, f"{field}[{i}]", MAX_TEXT["token"], fail)
    return x


def weight_array(x: Any, shape: tuple[int, ...], field: str, fail: Fail) -> np.ndarray:
    """The array a weights field holds: checked in numpy passes (shape, the leaves' types, finiteness);
    only a field that fails them is walked number by number, to name the first bad one."""
    fast = _weight_array_fast(x, shape)
    if fast is not None:
        return fast

    def walk(v: Any, depth: int, where: str) -> None:
        if depth == len(shape):
            if isinstance(v, UnusableNumber) or (is_number(v) and not finite(v)):
                raise fail(where, f"{describe(v)} is not a finite number")
            if not is_number(v):
                raise fail(where, f"expected a number, got {describe(v)}")
            return
        if not isinstance(v, list) or len(v) != shape[depth]:
            got = f"a list of {len(v)}" if isinstance(v, list) else repr(v)
            raise fail(where, f"expected shape {list(shape)} (a list of {shape[depth]} here), got {got}")
        for i, item in enumerate(v):
            walk(item, depth + 1, f"{where}[{i}]")

    walk(x, 0, field)
    return np.array(x, dtype=np.float64)


def _weight_array_fast(x: Any, shape: tuple[int, ...]) -> np.ndarray | None:
    """x as a float64 array when it is exactly nested lists of shape with plain finite int/float leaves
    (what the walk accepts, bools and strings excluded); None when the walk must decide."""
    if not isinstance(x, list):
        return None
    try:
        cells = np.array(x, dtype=object)
    except (ValueError, TypeError, RecursionError):
        return None
    if cells.shape != shape:
        return None
    leaves = cells.ravel().tolist()
    if not set(map(type, leaves)) <= {int, float}:
        return None
    try:
        arr = np.array(leaves, dtype=np.float64)
    except (OverflowError, ValueError, TypeError):
        return None
    if not np.isfinite(arr).all():
        return None
    return arr.reshape(shape)
