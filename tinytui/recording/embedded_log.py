"""The event log a transcript carries, so that lesson.txt alone replays: each event-log record as ASCII
JSON cut into lines that fit the transcript's width, each line a marker, a CRC-32 and its part. The
recorder gathers them in an appendix after the last event (appendix_text); transcripts written before
it have each record under its event's block, and read_data() reads both.

The checksums are chained: a record's first line ("#| ") has the CRC-32 of its part started from SEED,
and each later line ("#|+") the CRC-32 of its part continued from the line before's. So a line edited,
removed, repeated or moved inside its record breaks the chain at that line, and read_data() names it;
a record whose last lines are missing is named where it stops. Records written before the chain (each
line's CRC-32 of its own part alone, started from 0) still read, with the checks they always had.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from tinytui.recording.log_values import BadLine
from tinytui.recording.transcript import WIDTH, rule

DATA = "#| "  # the first line of a record
MORE = "#|+"  # a record's later lines
SEED = zlib.crc32(b"tinytui event record")  # where a chained record's first checksum starts
EDITED = "this line of event data was changed after it was recorded (its checksum does not match)"
BROKEN = (
    "this line of event data was changed, or a line of its record removed, repeated or moved, after it "
    "was recorded (its checksum does not follow the line before it)"
)
CHUNK = WIDTH - len(DATA) - 9  # the JSON on one line: after the marker, 8 hex digits and a space


def data_lines(doc: dict[str, Any]) -> str:
    """An event-log record as transcript lines: ASCII JSON (so no escape code, one column a character)
    cut into parts that fit WIDTH, each line marker + chained CRC-32 + the part. A part never ends with
    a space, so an editor that trims trailing blanks changes nothing."""
    text = json.dumps(doc, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    out: list[str] = []
    start, crc = 0, SEED
    while start < len(text):
        end = min(start + CHUNK, len(text))
        while end < len(text) and end - start > 1 and text[end - 1] == " ":
            end -= 1
        part = text[start:end]
        crc = zlib.crc32(part.encode(), crc)
        out.append(f"{DATA if not out else MORE}{crc:08x} {part}")
        start = end
    return "\n" + "\n".join(out) + "\n"


def appendix_text(records: list[str]) -> str:
    """The end of a transcript: every record's lines (data_lines), under a heading that tells a reader
    they are for replay, so the lesson above them reads without them."""
    noun = "record" if len(records) == 1 else "records"
    head = rule(f"event data for tinytui replay ({len(records)} {noun}: the start, then each event)")
    note = "The lines below hold the recording exactly, so this file alone replays; a reader can stop here."
    return "\n\n" + head + "\n" + note + "\n" + "".join(records)


class DataLineError(BadLine):
    """A line of a transcript's event data that cannot be read; .line is its number (from 1)."""

    def __init__(self, line: int, message: str):
        super().__init__(message)
        self.line = line


def has_data(lines: list[str]) -> bool:
    return any(raw.startswith(DATA) for raw in lines)


def read_data(lines: list[str]) -> list[tuple[int, str]]:
    """The records a transcript carries: (line number of its first line, its JSON text), in order.
    A line that breaks its record's checksums raises DataLineError naming it (line numbers from 1); so
    does a continuation with no record before it, and the last line of a record that stops short of
    complete JSON. Lines without a marker are the text: skipped."""
    records: list[tuple[int, list[str]]] = []
    last: list[int] = []  # the number of each record's last line
    crc: int | None = None  # a chained record's running checksum; None: a record from before the chain
    previous = False  # whether the line before was event data
    for n, raw in enumerate(lines, start=1):
        first = raw.startswith(DATA)
        if not first and not raw.startswith(MORE):
            previous = False
            continue
        given, parts = raw[3:11], _parts(raw)
        if first:
            if (part := _matching(parts, given, SEED)) is not None:
                crc = zlib.crc32(part.encode(), SEED)
            elif (part := _matching(parts, given, 0)) is not None:
                crc = None
            else:
                raise DataLineError(n, EDITED)
            records.append((n, [part]))
            last.append(n)
        elif not previous:
            raise DataLineError(n, "this event data line continues no record (a line before it is missing)")
        else:
            part = _matching(parts, given, 0 if crc is None else crc)
            if part is None:
                raise DataLineError(n, EDITED if crc is None else BROKEN)
            if crc is not None:
                crc = zlib.crc32(part.encode(), crc)
            records[-1][1].append(part)
            last[-1] = n
        previous = True
    out = [(n, "".join(parts)) for n, parts in records]
    for (n, text), end in zip(out, last):
        if not _complete(text):
            raise DataLineError(
                end,
                f"the event data from line {n} stops here, before it is complete: a line is missing",
            )
    return out


TRAILING = " \t\r\f\v"  # what an editor adds or strips at a line's end, and Windows' \r: not content


def _parts(raw: str) -> list[str]:
    """What a data line's part may be: without the blanks at its end (a part never ends with one, so an
    editor that adds or strips them, or a CRLF line end, changes nothing), or, for the rare part that
    is all spaces, with its spaces (and only the \r dropped)."""
    if raw[11:12] != " ":
        return []
    stripped, kept = raw.rstrip(TRAILING)[12:], raw.rstrip("\r")[12:]
    return [stripped] if kept == stripped else [stripped, kept]


def _matching(parts: list[str], given: str, start: int) -> str | None:
    """The first of parts whose CRC-32, continued from start, is the one the line gives."""
    return next((p for p in parts if given == f"{zlib.crc32(p.encode(), start):08x}"), None)


def _complete(text: str) -> bool:
    """Whether a record's text is whole JSON (what it says is checked later, against the model)."""
    try:
        json.loads(text)
    except RecursionError:
        return True  # too deep to tell here; the reader refuses it by name
    except ValueError:
        return False
    return True
