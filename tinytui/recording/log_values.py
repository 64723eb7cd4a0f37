"""Reading the session log's JSON without trusting it, and the validators its decoders share: each returns
the clean value or raises BadLine naming the field (the reader adds the file and the line)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import fields
from typing import Any

import numpy as np

from tinytui.model import checks
from tinytui.model.io.document import ModelFile
from tinytui.model.names import canonical, label
from tinytui.model.params import Params
from tinytui.model.switches import FLAGS, VALUES, Switches, run_config

MAX_INT_DIGITS = 20  # longer integer literals are refused by field, before int() parses thousands of digits
MAX_LINE_BYTES = 2**20  # an event line, plus room for a learn event listing every parameter cell
MAX_TEXT = 1000  # the "recorded" time, an edit's label, a toggle's description (64 heads ablated fit)


class BadLine(ValueError):
    """A problem on the line being read; str() names the field. The reader adds the file and line."""


class Damaged(BadLine):
    """A line that is not JSON at all, or an empty file: the file was cut short or damaged (rather than
    holding a value replay refuses), so another copy of the recording may still replay."""


class CutShort(Damaged):
    """The last line stops before its JSON is complete: the recording was stopped mid-write (killed, a
    power cut), so the lines before it still replay."""


# ---- reading JSON -------------------------------------------------------------------------------


class Unusable:
    """What the reader returns for a number too long or too large: the field holding it is then
    refused by name, like any other wrong value (its repr stays short)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        t = self.text
        return t if len(t) <= 24 else f"{t[:12]}… (a {len(t)}-character number)"


def _read_int(text: str) -> int | Unusable:
    return int(text) if len(text) <= MAX_INT_DIGITS else Unusable(text)


def _read_float(text: str) -> float | Unusable:
    value = float(text)  # float() has no digit limit; too large gives inf
    return value if math.isfinite(value) else Unusable(text)


def _no_constant(name: str) -> Any:
    raise BadLine(f"{name} is not a number a session can hold")


def loads(raw: str, last: bool) -> Any:
    """One line of the log as JSON values; last says whether a parse error means a cut-off file."""
    try:
        return json.loads(raw, parse_int=_read_int, parse_float=_read_float, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        if last:
            raise CutShort(f"truncated: the last line is not complete JSON ({exc.msg})") from None
        raise Damaged(f"not JSON ({exc.msg}, column {exc.colno})") from None
    except RecursionError:
        raise BadLine("lists or objects nested too deeply") from None


# ---- validators: each returns the clean value or raises BadLine naming `where` ------------------


def shown(x: Any) -> str:
    """repr() of a value from the file, cut short so one bad value never floods the message line."""
    text = repr(x)
    return text if len(text) <= 40 else f"{text[:40]}… ({len(text)} characters)"


def checked(check: Callable[..., Any], value: Any, where: str) -> Any:
    """A tinytui.model.checks validator, its message prefixed with the field."""
    try:
        return check(value)
    except checks.Invalid as exc:
        raise BadLine(f"{where}: {exc}") from None


def keys(doc: dict[str, Any], allowed: tuple[str, ...], optional: tuple[str, ...], where: str) -> None:
    for key in allowed:
        if key not in doc and key not in optional:
            raise BadLine(f"{where}: {key}: missing")
    extra = [k for k in doc if k not in allowed]
    if extra:
        raise BadLine(f"{where}: {shown(extra[0])[1:-1]}: unknown key")


def integer(x: Any, where: str, lo: int, hi: int) -> int:
    if not isinstance(x, int) or isinstance(x, bool):
        raise BadLine(f"{where}: expected a whole number, got {shown(x)}")
    if not lo <= x <= hi:
        raise BadLine(f"{where}: {x} is out of range ({lo}–{hi})")
    return x


def number(x: Any, where: str) -> float:
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        raise BadLine(f"{where}: expected a number, got {shown(x)}")
    value = float(x)  # ints are at most MAX_INT_DIGITS long, so this cannot overflow
    if not math.isfinite(value):
        raise BadLine(f"{where}: {x!r} is not a finite number")
    return value


def learning_rate(x: Any, where: str) -> float:
    return checked(checks.lr, number(x, where), where)


def boolean(x: Any, where: str) -> bool:
    if not isinstance(x, bool):
        raise BadLine(f"{where}: expected true or false, got {shown(x)}")
    return x


def plain(x: Any, where: str) -> str:
    """Text that may reach a transcript or the screen: no escape or control characters."""
    try:
        return checks.plain_text(x, where, MAX_TEXT)
    except checks.Invalid as exc:
        raise BadLine(str(exc)) from None


def line_limit(model: ModelFile) -> int:
    """The longest event line replay reads: a learn event lists every cell (under 64 bytes each)."""
    return MAX_LINE_BYTES + 64 * model.params.total()


# What the machine computed through BLAS (the loss after each event, the ends of a practice answer's
# accepted range) is compared on replay within a relative COMPUTED_TOLERANCE, since another machine's
# kernels round the last bits differently; what the user typed or chose is compared exactly.
COMPUTED_TOLERANCE = 1e-9  # relative; numbers within ABSOLUTE_FLOOR of each other are equal too
ABSOLUTE_FLOOR = 1e-12


def computed_close(a: float, b: float) -> bool:
    """Whether two computed numbers agree as replay requires: within a relative 1e-9."""
    return math.isclose(a, b, rel_tol=COMPUTED_TOLERANCE, abs_tol=ABSOLUTE_FLOOR)


def bits(x: float) -> int:
    return int(np.float64(x).view(np.int64))


def token(x: Any, model: ModelFile, where: str) -> str:
    if not isinstance(x, str) or x not in model.cfg.vocab:
        vocab = model.cfg.vocab
        known = " ".join(vocab) if len(vocab) <= 20 else f"{len(vocab)} tokens"
        raise BadLine(f"{where}: {shown(x)} is not in the vocabulary ({known})")
    return x


def tokens(x: Any, model: ModelFile, where: str) -> tuple[str, ...]:
    if not isinstance(x, list):
        raise BadLine(f"{where}: expected a list of tokens")
    if len(x) > model.cfg.n_ctx:
        raise BadLine(f"{where}: {len(x)} tokens is more than the context holds ({model.cfg.n_ctx})")
    return tuple(token(t, model, where) for t in x)


def param(x: Any, params: Params, where: str) -> str:
    if not isinstance(x, str) or canonical(x) not in params:
        known = ", ".join(label(n) for n in params)
        raise BadLine(f"{where}: no parameter {shown(x)} in this model ({known})")
    return canonical(x)


def cell_index(x: Any, shape: tuple[int, ...], name: str, where: str) -> tuple[int, ...]:
    if not isinstance(x, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in x):
        raise BadLine(f"{where}: index: expected a list of whole numbers, got {shown(x)}")
    if len(x) != len(shape) or any(not 0 <= i < n for i, n in zip(x, shape)):
        raise BadLine(f"{where}: {name}{shown(x)} is outside its shape {shape}")
    return tuple(x)


def edited(base: Params, edits: Any, where: str) -> Params:
    """base with the [parameter, index, value] cells of edits set."""
    if not isinstance(edits, list):
        raise BadLine(f"{where}: expected a list of [parameter, index, value]")
    arrays: dict[str, np.ndarray] = {}
    for item in edits:
        if not isinstance(item, list) or len(item) != 3:
            raise BadLine(f"{where}: expected [parameter, index, value], got {shown(item)}")
        name = param(item[0], base, where)
        index = cell_index(item[1], base[name].shape, label(name), where)
        arrays.setdefault(name, base[name].copy())[index] = number(item[2], where)
    return base.with_arrays(arrays) if arrays else base


def switches_of(doc: Any, model: ModelFile, where: str) -> Switches:
    if not isinstance(doc, dict):
        raise BadLine(f"{where}: expected an object")
    known = {f.name for f in fields(Switches)}
    extra = [k for k in doc if k not in known]
    if extra:
        raise BadLine(f"{where}: {shown(extra[0])} is not a switch")
    for name in FLAGS:
        if name in doc:
            boolean(doc[name], f"{where}.{name}")
    for name, options in VALUES.items():
        if name in doc and doc[name] not in options:
            raise BadLine(f"{where}.{name}: {shown(doc[name])} is not one of {', '.join(options)}")
    heads = doc.get("ablated_heads", [])
    if not isinstance(heads, list):
        raise BadLine(f"{where}.ablated_heads: expected a list of head numbers")
    for h in heads:
        integer(h, f"{where}.ablated_heads", 1, model.cfg.n_heads)
    pairs = doc.get("ablated", [])
    if not isinstance(pairs, list) or not all(isinstance(p, list) and len(p) == 2 for p in pairs):
        raise BadLine(f"{where}.ablated: expected a list of [block, head] pairs")
    for block, head in pairs:
        integer(block, f"{where}.ablated: block", 0, model.cfg.n_blocks - 1)
        integer(head, f"{where}.ablated: head", 1, model.cfg.n_heads)
    switches = Switches.from_dict(doc)
    try:  # a norm or positions the model cannot run without weights it lacks
        run_config(model.cfg, switches)
    except ValueError as exc:
        raise BadLine(f"{where}: {exc}") from None
    return switches
