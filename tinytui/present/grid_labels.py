"""A table label under the cursor, and the one line the inspector says about it.

The cursor can sit on a row label (left of column 0), a column label (above row 0) or the corner;
the inspector then shows the glossary's line for that kind of label, or says where the label is when
the glossary has no entry for it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

ROW, COLUMN, CORNER = "row", "column", "corner"


@dataclass(frozen=True)
class Label:
    """A label the cursor is on: which kind, its text, its row or column number, the table's title."""

    kind: str  # ROW, COLUMN or CORNER
    text: str
    index: int  # the row or the column (0 for the corner)
    table: str


# Label shapes the glossary explains with one entry (matched in order; the entry's term as in GLOSSARY).
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\d+:.+|tokens|position"), "position, 0:how"),
    (re.compile(r"h\d+\.k\d+|heads"), "h1.k0"),
    (re.compile(r"k\d+"), "k0, k1"),
    (re.compile(r"kv head \d+.*"), "kv head 1"),
    (re.compile(r"h\d+|head \d+.*"), "h1, h2, head 1"),
    (re.compile(r"units?( \d+)?"), "unit 3"),
    (re.compile(r"ℓ|logits?"), "ℓ, logits; p, probs"),
)


def _terms(entry: str) -> set[str]:
    """The single labels a glossary term names: 'emb, pe, x' -> {emb, pe, x}; 'ℓ, logits; p, probs'."""
    return {t.strip() for part in entry.split(";") for t in part.split(",") if t.strip()}


def meaning(label: Label, glossary: Sequence[tuple[str, str]], dims: Iterable[str] = ()) -> str | None:
    """The glossary's line for this label, or None when it has none."""
    entries = dict(glossary)
    text = label.text.strip()
    if not text:
        return None
    dims = tuple(dims)
    if text in set(dims) or text == "dims":
        # the dimensions' entry: its term starts with the first dimension ('thing …', 'd0 … d15')
        first = dims[0] if dims else "thing"
        key = next((k for k in entries if k.split()[0] == first), None)
        if key is not None:
            return entries[key]
    for pattern, key in _PATTERNS:
        if pattern.fullmatch(text) and key in entries:
            return entries[key]
    for key, line in glossary:
        if text in _terms(key):
            return line
    return None


def label_line(label: Label, glossary: Sequence[tuple[str, str]] = (), dims: Iterable[str] = ()) -> str:
    """The inspector's line for a label: what it is and what it means (one line)."""
    where = {
        ROW: f"row {label.index} of {label.table}",
        COLUMN: f"column {label.index} of {label.table}",
        CORNER: f"what the rows of {label.table} are",
    }[label.kind]
    head = f"{label.text.strip() or '(blank)'} · {where}"
    said = meaning(label, glossary, dims)
    return f"{head}: {said}" if said else f"{head} (a label: Enter edits nothing here)"
