"""A safetensors file's header, read from an open file and checked whole before a byte of data is trusted.

Every reader of weights (a model file's weights_file, a GPT-2 or Llama-family checkpoint) goes through
read_header, so a header that lies is refused the same way wherever it is found, in one line naming the
tensor: a length beyond the file or beyond MAX_HEADER_BYTES, text that is not UTF-8 or not one JSON
object, a name given twice, __metadata__ that is not an object of strings, an entry that is not
{dtype, shape, data_offsets}, an unknown dtype, a shape that is not whole numbers from 0 or whose bytes
are not the entry's span, offsets that are reversed, overlap, leave a gap or end anywhere but the end
of the file. Nothing is allocated from a size the header gives: shapes are multiplied as Python ints
and compared with the file's own size first. The file is read with os.pread (its position untouched).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from typing import Any

from tinytui.model import checks
from tinytui.model.io.field_checks import Fail

# Far above any real header (GPT-2 XL's, 48 blocks, is ~70 KB) and a small fraction of memory to parse
MAX_HEADER_BYTES = 16 * 2**20
# Bytes a value of each dtype the safetensors format names takes (F8 formats: one byte)
ITEM_BYTES = {
    "BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1, "F8_E8M0": 1,
    "I16": 2, "U16": 2, "F16": 2, "BF16": 2,
    "I32": 4, "U32": 4, "F32": 4,
    "I64": 8, "U64": 8, "F64": 8,
}  # fmt: skip
MAX_DIMS = 8  # more than any weight has; a longer shape is refused before it is multiplied
METADATA = "__metadata__"
HEADER = "(header)"  # the "tensor" named when the header as a whole is wrong
NOT_HEADER = "not a safetensors header"  # how a why begins when the header cannot be read at all
ENTRY_KEYS = frozenset({"dtype", "shape", "data_offsets"})


@dataclass(frozen=True)
class Entry:
    """One tensor: its dtype, shape, and its bytes' span [begin, end) after the header."""

    dtype: str
    shape: tuple[int, ...]
    begin: int
    end: int


@dataclass(frozen=True)
class Header:
    """A safetensors file's checked header: each tensor's Entry by name, the file's text metadata, and
    where the tensors' bytes begin."""

    entries: dict[str, Entry]  # in the header's order
    metadata: dict[str, str]
    data_start: int  # where the tensors' bytes start: 8 + the header's length


class _Twice(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def read_header(fd: int, size: int, fail: Fail) -> Header:
    """The checked header of the safetensors file open at fd, size bytes long (fstat's, taken by the
    caller before reading); fail(tensor, why) makes the one-line error, tensor HEADER for the whole."""
    if size < 8:
        raise fail(HEADER, f"truncated: {size} bytes is too short for a safetensors file")
    n = int.from_bytes(os.pread(fd, 8, 0), "little")
    if n > MAX_HEADER_BYTES:
        at_most = f"{MAX_HEADER_BYTES} bytes at most"
        raise fail(HEADER, f"a {n}-byte header is larger than tinytui reads, {at_most}")
    if 8 + n > size:
        raise fail(HEADER, f"truncated: the header says {n} bytes, the file has {size - 8}")
    raw = os.pread(fd, n, 8)
    if len(raw) < n:
        raise fail(HEADER, f"truncated: the header says {n} bytes, the file has {len(raw)}")
    table = _parse(raw, fail)
    metadata = table.pop(METADATA, {})
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise fail(METADATA, "expected an object of strings")
    entries = {name: _entry(name, x, fail) for name, x in table.items()}
    end = 0
    for name, e in sorted(entries.items(), key=lambda item: (item[1].begin, item[1].end)):
        if e.begin != end:
            where = "overlap the tensor before" if e.begin < end else f"leave bytes {end}…{e.begin} unused"
            follow = "tensors must follow each other from 0"
            raise fail(named(name), f"data_offsets [{e.begin}, {e.end}] {where}: {follow}")
        end = e.end
    if 8 + n + end != size:
        last = named(max(entries.items(), key=lambda item: item[1].end)[0]) if entries else HEADER
        raise fail(last, f"truncated or padded: the file has {size} bytes, the header says {8 + n + end}")
    return Header(entries, metadata, 8 + n)


def _parse(raw: bytes, fail: Fail) -> dict[str, Any]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise fail(HEADER, f"{NOT_HEADER} (not UTF-8 text at byte {exc.start})") from None
    try:
        table = json.loads(
            text, object_pairs_hook=_once, parse_constant=_refuse_constant, parse_int=_bounded_int
        )
    except _Twice as exc:
        raise fail(named(exc.key), "the header names it twice") from None
    except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
        raise fail(HEADER, f"{NOT_HEADER} (expected a JSON object)") from None
    if not isinstance(table, dict):
        raise fail(HEADER, f"{NOT_HEADER} (expected a JSON object)")
    return table


def _once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are each there once (json.loads would keep the last of two)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Twice(key)
        out[key] = value
    return out


def _refuse_constant(name: str) -> Any:
    raise ValueError(name)  # NaN or Infinity in a header: refused like any header that is not JSON


def _bounded_int(text: str) -> int | str:
    """An integer of at most 20 digits (an offset fits in 19); a longer one is kept as its text, which
    no check accepts, so int() never meets a thousand-digit number."""
    return int(text) if len(text) <= 20 else text


def _is_whole(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def named(name: str) -> str:
    """A tensor's name from a file, for a message: as it is when plain and short, else quoted and cut
    (a name holding a line break or an escape sequence must not break the one line or the terminal)."""
    return name if name.isprintable() and 0 < len(name) <= 100 else checks.shown(name)


def _entry(name: str, x: Any, fail: Fail) -> Entry:
    shown = named(name)
    if not isinstance(x, dict) or set(x) != ENTRY_KEYS:
        raise fail(shown, "expected {dtype, shape, data_offsets}")
    dtype, shape, offsets = x["dtype"], x["shape"], x["data_offsets"]
    if not isinstance(dtype, str) or dtype not in ITEM_BYTES:
        raise fail(shown, f"dtype {_short(dtype)}: not a dtype safetensors has")
    if not isinstance(shape, list) or len(shape) > MAX_DIMS or not all(map(_is_whole, shape)):
        raise fail(shown, f"shape {_short(shape)}: expected a list of whole numbers from 0")
    if not (isinstance(offsets, list) and len(offsets) == 2 and all(map(_is_whole, offsets))):
        raise fail(shown, f"data_offsets {_short(offsets)}: expected [begin, end]")
    begin, end = offsets
    if begin > end:
        raise fail(shown, f"data_offsets {offsets}: the end is before the beginning")
    size = math.prod(shape) * ITEM_BYTES[dtype]  # Python ints: a shape of 2**40 × 2**40 is just a number
    if size != end - begin:
        held = f"data_offsets {offsets} hold {end - begin}"
        raise fail(shown, f"shape {shape} of {dtype} is {size} bytes, but {held}")
    return Entry(dtype, tuple(shape), begin, end)


def _short(x: Any) -> str:
    """A wrong value for a message, short however long it is."""
    text = checks.shown(x) if isinstance(x, str) else repr(x)
    return text if len(text) <= 40 else f"{text[:40]}… ({len(text)} characters)"
