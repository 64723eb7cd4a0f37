"""The one validator for values a user types or a file carries: numbers, learning rates, step counts,
prompts, targets, heads and display text.

Each function returns the clean value or raises Invalid (a ValueError) whose str() is one line the user
can act on. The command line, the session and the model-file loader all call these, so a value refused
in one place is refused everywhere, with the same words.
"""

from __future__ import annotations

import math
import numbers
import re
import unicodedata
from collections.abc import Sequence

MAX_STEPS = 1000  # a training run is one undoable change; this keeps it to a few seconds
MAX_LR = 1e6  # beyond this one step throws every weight far outside anything the tables can show
MAX_NUMBER_CHARS = 100  # longer "numbers" are typos or attacks; also keeps int() off its digit limit
MAX_LISTED = 20  # a vocabulary longer than this is counted in messages, not listed

_HINT = "try 0.5, -1, 1e-3 or 1/2"
# The patterns below are strings re compiles when one is first used (re keeps it in its own cache):
# none is needed to start the app, and compiling each costs ~1 M instructions.
_DECIMAL = r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?"
_FRACTION = r"([+-]?[0-9]+)\s*/\s*([0-9]+)"
# U+202A–202E and U+2066–2069 reorder the text around them on screen ("Trojan source")
_BIDI = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}


class Invalid(ValueError):
    """A value that cannot be used; str() is the message. where is a suffix such as "[3]" naming the
    item of a list that was wrong, so a file loader can name the field."""

    def __init__(self, message: str, where: str = "") -> None:
        super().__init__(message)
        self.where = where


def shown(text: str, limit: int = 40) -> str:
    """repr() of user text, cut short so one bad value never floods a message line."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"… ({len(text)} characters)"


MAX_RUN_CHARS = 200  # a longer run without a space in a message is a typed value, never a word
# a longer stretch without a pause (a comma, colon, semicolon or full stop before a space, a quote mark)
# is a typed value with spaces (a prompt, a path): tinytui's own words pause sooner (the longest stretch
# in the notices and refusals the tests raise: 202 characters, a path)
MAX_STRETCH_CHARS = 300
# a longer line is cut in its middle whatever it holds (a long value full of commas); the longest of
# tinytui's own is a list of at most 80 names (tinytui why: 1,300 characters)
MAX_LINE_CHARS = 2000
_RUN = rf"\S{{{MAX_RUN_CHARS + 1},}}"  # patterns compiled when first used, as _DECIMAL
_STRETCH = rf"(?:(?![,;:.!?](?:\s|$))[^'\"\n]){{{MAX_STRETCH_CHARS + 1},}}"
_CONTROL = "[\x00-\x1f\x7f-\x9f\u2028\u2029]"  # line breaks, escapes: what a terminal acts on
_CONTROL_IN_LINE = "[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]"  # all of them but \n


def short_values(message: str) -> str:
    """A message with every typed value too long to read cut to its start and end, with its length (a
    5,000-character path, name or prompt echoed back): each run of more than MAX_RUN_CHARS characters
    without a space, then each stretch of more than MAX_STRETCH_CHARS without a pause, then each line
    still longer than MAX_LINE_CHARS in its middle; a control character typed in it (an escape) written
    as its escape (\\x1b). The message's own line breaks stay (a notice's paragraphs); one_line is the
    form for one line."""

    def cut(m: re.Match) -> str:
        run = m.group().rstrip(",;:.!?")  # the pause after a value stays after its length
        return f"{run[:60]}…{run[-20:]} ({len(run)} characters){m.group()[len(run) :]}"

    def shorter(line: str) -> str:
        line = re.sub(_STRETCH, cut, re.sub(_RUN, cut, line))
        if len(line) <= MAX_LINE_CHARS:
            return line
        return f"{line[:600]} … ({len(line) - 1800} characters left out) … {line[-1200:]}"

    message = re.sub(_CONTROL_IN_LINE, _escaped, message)
    return "\n".join(shorter(line) for line in message.split("\n"))


def _escaped(m: re.Match) -> str:
    return repr(m.group())[1:-1]  # \n, \x1b, \u2028


def one_line(message: str) -> str:
    """A refusal as one line a terminal shows whole: every control character (a line break or an escape
    typed in a name) written as its escape (\\n, \\x1b), then each long typed value cut (short_values)."""
    return short_values(re.sub(_CONTROL, _escaped, message))


def number(text: str) -> float:
    """A number as typed: '0.5', '-1', '1e-3', '1/2', with '−' (U+2212) as a minus. Finite, or Invalid.

    The one rule for typed numbers (a cell edit, a practice answer, a quiz line): ASCII digits only, no
    digit separators ('1_000'), no inf or nan; a decimal comma ('0,4714') is refused with the point
    suggested. Every refusal is one line saying what is accepted."""
    if not isinstance(text, str):
        raise Invalid(f"{text!r} is not typed text; {_HINT}")
    s = text.strip().replace("\u2212", "-")
    if not s:
        raise Invalid(f"empty: type a number such as 0.5, -1, 1e-3 or 1/2 ({_HINT})")
    if len(s) > MAX_NUMBER_CHARS:
        raise Invalid(f"{shown(s)} is too long to be a number (at most {MAX_NUMBER_CHARS} characters)")
    try:
        if m := re.fullmatch(_FRACTION, s):
            if int(m.group(2)) == 0:
                raise Invalid(f"{shown(s)}: division by zero")
            from fractions import Fraction  # a typed ratio only: not loaded to start

            value = float(Fraction(int(m.group(1)), int(m.group(2))))
        elif re.fullmatch(_DECIMAL, s):
            value = float(s)
        elif "," in s and re.fullmatch(_DECIMAL, point := s.replace(",", ".", 1)):
            raise Invalid(f"{shown(s)} is not a number: write a decimal point, {point} ({_HINT})")
        else:
            raise Invalid(f"{shown(s)} is not a number ({_HINT})")
    except OverflowError:  # float(Fraction) of a huge ratio
        value = math.inf
    if not math.isfinite(value):
        raise Invalid(f"{shown(s)} is too large to be a finite number ({_HINT})")
    return value


def _real(x: object, what: str) -> float:
    """A float from typed text or a number; Invalid for anything else (bools included)."""
    if isinstance(x, str):
        return number(x)
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise Invalid(f"{what} {x!r} is not a number")
    try:
        return float(x)
    except OverflowError:  # an int beyond float range
        return math.inf


def lr(x: float | str) -> float:
    """The SGD step size: finite, above 0 and below MAX_LR."""
    value = _real(x, "the learning rate")
    if not math.isfinite(value) or value <= 0:
        why = ": a learning rate of 0 would change nothing" if value == 0 else ""
        raise Invalid(f"the learning rate must be a finite number above 0, not {value:g}{why}")
    if value >= MAX_LR:
        raise Invalid(f"the learning rate {value:g} is not a usable step size (keep it below {MAX_LR:g})")
    return value


def steps(x: object) -> int:
    """How many SGD steps to take: a whole number from 1 to MAX_STEPS, typed or given."""
    if isinstance(x, str):
        s = x.strip()
        if not re.fullmatch(r"\+?[0-9]+", s):
            raise Invalid(f"{shown(s)} is not a whole number; type how many steps, 1 to {MAX_STEPS}")
        if len(s) > 10:  # int() of thousands of digits is slow (and limited); it is out of range anyway
            raise Invalid(f"the number of steps must be between 1 and {MAX_STEPS}, not {shown(s)}")
        x = int(s)
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        raise Invalid(f"the number of steps must be a whole number, not {x!r}")
    if not 1 <= int(x) <= MAX_STEPS:
        raise Invalid(f"the number of steps must be between 1 and {MAX_STEPS}, not {x}")
    return int(x)


def _vocab_hint(vocab: Sequence[str]) -> str:
    return " ".join(vocab) if len(vocab) <= MAX_LISTED else f"{len(vocab)} tokens"


def prompt(tokens: Sequence[str], vocab: Sequence[str], n_ctx: int) -> tuple[str, ...]:
    """A prompt: at least one token, at most n_ctx, each in the vocabulary."""
    if isinstance(tokens, str) or not all(isinstance(t, str) for t in tokens):
        raise Invalid("expected a list of tokens")
    tokens = tuple(tokens)
    if not tokens:
        raise Invalid("empty: the prompt needs at least one token")
    if len(tokens) > n_ctx:
        raise Invalid(f"{len(tokens)} tokens is longer than the context: it holds at most {n_ctx} tokens")
    known = set(vocab)
    for i, tok in enumerate(tokens):
        if tok not in known:
            raise Invalid(f"{shown(tok)} is not in the vocabulary ({_vocab_hint(vocab)})", f"[{i}]")
    return tokens


def target(token: str, vocab: Sequence[str]) -> str:
    """The token the loss is measured against: one of the vocabulary."""
    if not isinstance(token, str) or token not in vocab:
        what = shown(token) if isinstance(token, str) else repr(token)
        raise Invalid(f"{what} is not in the vocabulary ({_vocab_hint(vocab)})")
    return token


def head(h: object, n_heads: int) -> int:
    """An attention head as the user counts them, 1 to n_heads."""
    if isinstance(h, bool) or not isinstance(h, numbers.Integral) or not 1 <= int(h) <= n_heads:
        raise Invalid(f"there is no head {h} (heads are 1 to {n_heads})")
    return int(h)


def plain_text(text: object, what: str, max_chars: int) -> str:
    """Text shown on screen (a name, a token, a label): a string with no control or bidi characters,
    which could move the cursor, recolour the terminal or disguise what is shown, and no lone UTF-16
    surrogate, which cannot be printed or written back as UTF-8."""
    if not isinstance(text, str):
        raise Invalid(f"{what}: expected a string")
    if len(text) > max_chars:
        raise Invalid(f"{what}: {len(text)} characters is too long (at most {max_chars})")
    for i, c in enumerate(text):
        if c in _BIDI or unicodedata.category(c) in ("Cc", "Zl", "Zp"):
            raise Invalid(f"{what}: control character U+{ord(c):04X} at position {i}; use plain text")
        if "\ud800" <= c <= "\udfff":  # from a JSON \uXXXX escape or an undecodable byte in argv
            raise Invalid(
                f"{what}: lone UTF-16 surrogate U+{ord(c):04X} at position {i}, which no UTF-8 text can hold"
            )
    return text
