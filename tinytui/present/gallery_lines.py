"""A gallery page as data: lines of words, shaded cells and pixels, each saying how it is inked.

The pages (gallery_day, gallery_pages) are laid out here to the width they are given: the column widths,
the numbers as shown, prose wrapped, heatmaps and pictures. The gallery widget only turns each piece's
ink into the theme's style (tinytui.tui.widgets.gallery.drawing). Every change since the comparison run
is marked with a glyph as well as an ink (▲ ▼ ◆).
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from tinytui.present.gallery_runs import marks_of
from tinytui.present.grid_spec import CHANGED, GLYPHS
from tinytui.present.label_fit import fit_label

CELL = 8  # a shaded cell: " −0.52▲ "
MAX_CELL = 12  # a heatmap's cells widen to this for its column names ("quantifier") to show whole
PROSE = 100  # prose wraps at this width at most, however wide the screen (the tables take all of it)
LABEL = 14  # the row label column
WHAT = 15  # the second label column of a strip ("after morning")
BAR = 24  # half an attribution bar (one side of zero)

# The inks of words: "" plain; "title" (the theme's primary, bold); "muted"; "heading" (muted, bold);
# "mark" (the colour of Words.mark, bold); any other is a theme variable's name ("tt-predicted", …).
TITLE, MUTED, HEADING, MARK = "title", "muted", "heading", "mark"


@dataclass(frozen=True)
class Words:
    """Text in one ink."""

    text: str
    ink: str = ""
    mark: str = ""  # the change a MARK ink shows: UP, DOWN or CHANGED


@dataclass(frozen=True)
class Cell:
    """A number on a shaded background: "diverging" on ±limit, or "heat" on 0 … 1."""

    text: str  # the number and its mark's glyph, padded to the cell
    value: float
    limit: float
    shade: str
    mark: str  # UP, DOWN, CHANGED or "" (unchanged): a marked cell is bold and underlined


@dataclass(frozen=True)
class Pixel:
    """One pixel of a painting's picture, two columns wide. Its colour is the model's numbers (data,
    the same in every theme), not a theme colour."""

    rgb: tuple[int, int, int]

    @property
    def text(self) -> str:
        return "  "


Piece = Words | Cell | Pixel
Line = tuple[Piece, ...]
BLANK: Line = ()


def plain(line: Line) -> str:
    return "".join(piece.text for piece in line)


def number(v: float, digits: int = 2) -> str:
    text = f"{abs(v):.{digits}f}"
    if float(text) == 0:
        return text
    return f"−{text}" if v < 0 else f"+{text}"


def shade_limit(*arrays: np.ndarray) -> float:
    m = max((float(np.max(np.abs(a), initial=0.0)) for a in arrays), default=0.0)
    return m if m > 0 and np.isfinite(m) else 1.0


def prose(text: str, width: int, ink: str = "", indent: str = "", mark: str = "") -> list[Line]:
    """text wrapped to the page (PROSE columns at most), every line in one ink."""
    lines = textwrap.wrap(
        text, width=max(30, min(PROSE, width)), initial_indent=indent, subsequent_indent=indent
    )
    return [(Words(line, ink, mark),) for line in lines] or [BLANK]


def picture_lines(rgb: np.ndarray | Sequence) -> list[Line]:
    """An (h, w, 3) picture in [0, 1] as h lines of two-column pixels."""
    lines: list[Line] = []
    for row in np.asarray(rgb, dtype=np.float64):
        line: list[Piece] = []
        for r, g, b in row:
            red, green, blue = (round(255 * min(1.0, max(0.0, float(c)))) for c in (r, g, b))
            line.append(Pixel((red, green, blue)))
        lines.append(tuple(line))
    return lines


def column_heads(cols: Sequence[str], cell: int = CELL) -> str:
    """Each column's name right-aligned over its cell's number (the mark and a space follow it); a name
    too long for the cell is cut with … ("quant…"), never to another word."""
    return "".join(f"{fit_label(c, cell - 2, '>')}  " for c in cols)


def cells_line(
    values: Iterable[float], marks: Iterable[str], limit: float, shade: str, cell: int = CELL
) -> Line:
    out: list[Piece] = []
    for v, m in zip(values, marks):
        shown = number(float(v)) if shade != "heat" else f"{float(v):.2f}"
        text = f"{shown:>6}{GLYPHS.get(m, ' ') if m else ' '}"
        out.append(Cell(f"{text:>{cell - 1}} ", float(v), limit, shade, m))
    return tuple(out)


def cell_width(cols: Sequence[str], room: int) -> int:
    """A cell wide enough for the column names to show whole, as far as room (the columns every cell
    together may take) allows; CELL at least, the names cut with … below that."""
    cell = max(CELL, min(MAX_CELL, max((len(c) + 2 for c in cols), default=CELL)))
    while cell > CELL and cell * len(cols) > room:
        cell -= 1
    return cell


def header_line(left: Sequence[str], cols: Sequence[str], cell: int = CELL) -> Line:
    return (
        Words("".join(f"{s:<{w}}" for s, w in zip(left, (LABEL, WHAT))), MUTED),
        Words(column_heads(cols, cell), HEADING),
    )


def matrix(
    title: str,
    rows: Sequence[str],
    cols: Sequence[str],
    values: np.ndarray,
    old: np.ndarray | None,
    shade: str = "diverging",
    blocked: np.ndarray | None = None,
    width: int = 0,  # the page's columns (0: the cells stay CELL wide)
) -> list[Line]:
    """A labelled heatmap: rows × cols cells, each shaded and showing its number and its mark."""
    values = np.asarray(values, dtype=np.float64)
    marks = marks_of(values, old)
    limit = 1.0 if shade == "heat" else shade_limit(values)
    cell = cell_width(cols, width - LABEL)  # the column names whole where the page has room
    out: list[Line] = [
        (Words(title, TITLE),),
        (Words(f"{'':<{LABEL}}", MUTED), Words(column_heads(cols, cell), HEADING)),
    ]
    for r, label in enumerate(rows):
        line: list[Piece] = [Words(fit_label(label, LABEL - 1) + " ", MUTED)]
        for c in range(values.shape[1]):
            if blocked is not None and blocked[r, c]:
                line.append(Words(f"{'×':>{cell - 2}}  ", "tt-masked"))
                continue
            line += cells_line([values[r, c]], [marks[r, c]], limit, shade, cell)
        out.append(tuple(line))
    scale = "0 … 1" if shade == "heat" else f"−{limit:.2f} … 0 … +{limit:.2f}"
    out.append((Words(f"{'':<{LABEL}}shade: {scale}", MUTED),))
    return out


def marked_note(count: int, what: str) -> Line:
    if not count:
        return BLANK
    text = f"▲▼ {count} {what} changed since the comparison run (c switches what it compares with)"
    return (Words(text, MARK, CHANGED),)
