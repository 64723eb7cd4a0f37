"""A label in a fixed number of columns: whole, or visibly cut with "…", never cut into another word.

A token cut to the columns it is given can read as another token ("1:wood" for 1:woodchuck, when wood
is the target); cut with an ellipsis it cannot."""

from __future__ import annotations

ELLIPSIS = "…"


def fit_label(label: str, width: int, align: str = "<") -> str:
    """label in exactly width columns: padded (align "<" or ">") when it fits, else its first width − 1
    characters and "…"."""
    if width <= 0:
        return ""
    if len(label) > width:
        return label[: width - 1] + ELLIPSIS
    return f"{label:{align}{width}}"
