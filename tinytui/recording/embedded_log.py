"""The event log a transcript carries, so that lesson.txt alone replays: each event-log record as
ASCII JSON cut into lines that fit the transcript's width, each line with a CRC-32 of its part, so an
edited line is named when the records are read back (read_data).
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from tinytui.recording.log_values import BadLine
from tinytui.recording.transcript import WIDTH

DATA = "#| "  # the first line of a record
MORE = "#|+"  # a record's later lines
EDITED = "this line of event data was changed after it was recorded (its checksum does not match)"
CHUNK = WIDTH - len(DATA) - 9  # the JSON on one line: after the marker, 8 hex digits and a space


def data_lines(doc: dict[str, Any]) -> str:
    """An event-log record as transcript lines: ASCII JSON (so no escape code, one column a character)
    cut into parts that fit WIDTH, each line marker + CRC-32 of its part + the part. A part never ends
    with a space, so an editor that trims trailing blanks changes nothing."""
    text = json.dumps(doc, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    out, start = [], 0
    while start < len(text):
        end = min(start + CHUNK, len(text))
        while end < len(text) and end - start > 1 and text[end - 1] == " ":
            end -= 1
        part = text[start:end]
        out.append(f"{DATA if not out else MORE}{zlib.crc32(part.encode()):08x} {part}")
        start = end
    return "\n" + "\n".join(out) + "\n"


class DataLineError(BadLine):
    """A line of a transcript's event data that cannot be read; .line is its number (from 1)."""

    def __init__(self, line: int, message: str):
        super().__init__(message)
        self.line = line


def has_data(lines: list[str]) -> bool:
    return any(raw.startswith(DATA) for raw in lines)


def read_data(lines: list[str]) -> list[tuple[int, str]]:
    """The records a transcript carries: (line number of its first line, its JSON text), in order.
    A line whose part does not match its checksum raises DataLineError naming it (line numbers from
    1); so does a continuation with no record before it. Lines without a marker are the text: skipped."""
    records: list[tuple[int, list[str]]] = []
    previous = False  # whether the line before was event data
    for n, raw in enumerate(lines, start=1):
        first = raw.startswith(DATA)
        if not first and not raw.startswith(MORE):
            previous = False
            continue
        crc, part = raw[3:11], raw[12:]
        if raw[11:12] != " " or crc != f"{zlib.crc32(part.encode()):08x}":
            raise DataLineError(n, EDITED)
        if first:
            records.append((n, [part]))
        elif previous:
            records[-1][1].append(part)
        else:
            raise DataLineError(n, "this event data line continues no record (a line before it is missing)")
        previous = True
    return [(n, "".join(parts)) for n, parts in records]
