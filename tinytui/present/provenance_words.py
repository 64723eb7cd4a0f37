"""The inspector's words: for a cell with a provenance, formula = filled = result, then what the cell's
own line adds (was …, Δ …) and what f follows, fitted to the lines the inspector has; for a cell without
one, its own line; with no cell to explain, the keys that move and edit (KEYS_HINT).

Pure text (no Textual): the widget says how wide it is and how many lines it has.
"""

from __future__ import annotations

import textwrap
from typing import Protocol


class Explained(Protocol):
    """Why a cell has its value, as the inspector reads it (tinytui.lesson.why.why.Why is one)."""

    @property
    def formula(self) -> str: ...  # the rule in symbols, as it ran

    @property
    def filled(self) -> str: ...  # the same with the operands' numbers in

    @property
    def result(self) -> str: ...  # the value as the app shows it

    @property
    def ending(self) -> str: ...  # what follows filled: "= result" or "≈ result (…)"


KEYS_HINT = "Tab: next table · arrows: cursor · Enter: edit a weight · ?: all keys"


def inspector_text(detail: str | None, why: Explained | None, hint: str, width: int, lines: int) -> str:
    """What the inspector says: the cell's provenance (provenance_text) when it has one, else the cell's
    own line, else the keys."""
    if why is not None:
        return provenance_text(why, detail or "", hint, width, lines)
    return fitted(detail or KEYS_HINT, width, lines)


def fitted(text: str, width: int, lines: int) -> str:
    """A cell's own line as the inspector shows it: as it is when it fits in `lines` lines of width,
    else cut to them with "…", so a reader can tell there is more (the cell's line then reads in full
    in a wider window)."""
    width = max(width, 10)
    wrapped = _wrap(text, width)
    if len(wrapped) <= lines or "\n" in text:
        return text
    kept = wrapped[:lines]
    last = kept[-1]
    if len(last) + 2 > width:  # room for " …", taken at a space: no number cut in two
        space = last.rfind(" ", 0, width - 1)
        last = last[:space] if space > 0 else last[: width - 2]
    kept[-1] = last.rstrip() + " …"
    return "\n".join(kept)


def provenance_text(why: Explained, detail: str, hint: str, width: int, lines: int) -> str:
    """formula = filled = result (was …), wrapped to width in at most `lines` lines: `filled` is cut
    with "…" until it fits, then the whole; the follow hint goes where a line is left."""
    width = max(width, 10)
    tail = f" {why.ending}{_extra(detail)}"

    def main(filled: str | None) -> str:
        return why.formula + (f" = {filled}" if filled is not None else "") + tail

    filled: str | None = why.filled if why.filled != why.result else None
    text = main(filled)
    while filled is not None and len(_wrap(text, width)) > lines:
        filled = _shorter(filled)
        text = main(filled)
    wrapped = _wrap(text, width)
    if len(wrapped) > lines:
        wrapped = _wrap(text[: lines * width - lines * 4] + "…", width)[:lines]
    if hint:
        joined = _wrap(text + "   · " + hint, width)
        if len(joined) <= len(wrapped):  # on the formula's last line, when it fits there
            wrapped = joined
        elif len(wrapped) < lines:
            wrapped.append(hint if len(hint) <= width else hint[: width - 1] + "…")
    return "\n".join(wrapped)


def _shorter(filled: str) -> str | None:
    """filled cut by a sixth (at least 8 characters) at a space, so no number is cut in two ("0.24…"
    would read as another number), and "…" put for what is left out; None when nothing is left."""
    body = filled.removesuffix(" …")
    cut = len(body) - max(8, len(body) // 6)
    at = body.rfind(" ", 0, cut + 1) if cut > 0 else -1
    return body[:at].rstrip() + " …" if at > 0 else None


def _extra(detail: str) -> str:
    """What the cell's own line adds to the formula: '(was …, Δ …)', '(model file …)', '· Enter to edit'."""
    at = [i for i in (detail.find("  ("), detail.find("  ·")) if i >= 0]
    return detail[min(at) :] if at else ""


def _wrap(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width, break_long_words=True, break_on_hyphens=False) or [""]
