"""How the gallery's pages draw: the theme's ink, the column widths, numbers, prose, heatmaps and pictures.

No Textual widgets here (Rich Text and Textual's Color only). Shades come from themes.scale (theme
variables); the one exception is a painting's own RGB picture, whose colours are the model's numbers
(data, the same in every theme), made in picture_lines() alone. Every change since the comparison run
is marked with a glyph as well as a style (▲ ▼ ◆).
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence

import numpy as np
from rich.color import Color as RichColor
from rich.style import Style
from rich.text import Text
from textual.color import Color

from tinytui.present.gallery_runs import marks_of
from tinytui.present.grid_spec import CHANGED, DOWN, GLYPHS, UP
from tinytui.present.label_fit import fit_label
from tinytui.themes.scale import diverging, heat, readable_on

CELL = 8  # a shaded cell: " −0.52▲ "
MAX_CELL = 12  # a heatmap's cells widen to this for its column names ("quantifier") to show whole
PROSE = 100  # prose wraps at this width at most, however wide the screen (the tables take all of it)
LABEL = 14  # the row label column
WHAT = 15  # the second label column of a strip ("after morning")
BAR = 24  # half an attribution bar (one side of zero)


class Ink:
    """Styles from the theme's variables (the same ones the grids use), cached per value."""

    def __init__(self, variables: Mapping[str, str]) -> None:
        self.v = variables
        self._cache: dict[tuple, Style] = {}

    def var(self, name: str, fallback: str = "foreground") -> Style:
        value = self.v.get(name) or self.v.get(fallback)
        return Style(color=Color.parse(value).rich_color) if value else Style()

    @property
    def muted(self) -> Style:
        return self.var("foreground-muted")

    @property
    def title(self) -> Style:
        return self.var("primary") + Style(bold=True)

    def cell(self, value: float, limit: float, shade: str, mark: str) -> Style:
        key = (round(float(value), 6), round(limit, 6), shade, mark)
        style = self._cache.get(key)
        if style is None:
            bg = heat(self.v, value) if shade == "heat" else diverging(self.v, value, limit)
            style = Style(bgcolor=bg.rich_color, color=readable_on(bg).rich_color)
            if mark:
                style += Style(bold=True, underline=True)
            self._cache[key] = style
        return style

    def mark(self, mark: str) -> Style:
        name = {UP: "tt-changed-up", DOWN: "tt-changed-down"}.get(mark, "accent")
        return self.var(name) + Style(bold=True)


def number(v: float, digits: int = 2) -> str:
    text = f"{abs(v):.{digits}f}"
    if float(text) == 0:
        return text
    return f"−{text}" if v < 0 else f"+{text}"


def shade_limit(*arrays: np.ndarray) -> float:
    m = max((float(np.max(np.abs(a), initial=0.0)) for a in arrays), default=0.0)
    return m if m > 0 and np.isfinite(m) else 1.0


def prose(text: str, width: int, style: Style | None = None, indent: str = "") -> Text:
    lines = textwrap.wrap(
        text, width=max(30, min(PROSE, width)), initial_indent=indent, subsequent_indent=indent
    )
    return Text("\n".join(lines), style=style or Style())


def picture_lines(rgb: np.ndarray) -> list[Text]:
    """An (h, w, 3) picture in [0, 1] as h lines of two-column pixels. Its colours are the model's
    values (data), not theme colours: they are the same in every theme."""
    lines = []
    for row in np.asarray(rgb, dtype=np.float64):
        line = Text()
        for r, g, b in row:
            red, green, blue = (round(255 * min(1.0, max(0.0, float(c)))) for c in (r, g, b))
            line.append("  ", Style(bgcolor=RichColor.from_rgb(red, green, blue)))
        lines.append(line)
    return lines


def span(text: str, style: Style | str = "") -> Text:
    """A piece of a line in its own style (Text(text, style) would style the whole line)."""
    out = Text()
    out.append(text, style)
    return out


def column_heads(cols: Sequence[str], cell: int = CELL) -> str:
    """Each column's name right-aligned over its cell's number (the mark and a space follow it); a name
    too long for the cell is cut with … ("quant…"), never to another word."""
    return "".join(f"{fit_label(c, cell - 2, '>')}  " for c in cols)


def cells_line(
    ink: Ink, values: Sequence[float], marks: Sequence[str], limit: float, shade: str, cell: int = CELL
) -> Text:
    line = Text()
    for v, m in zip(values, marks):
        shown = number(float(v)) if shade != "heat" else f"{float(v):.2f}"
        text = f"{shown:>6}{GLYPHS.get(m, ' ') if m else ' '}"
        line.append(f"{text:>{cell - 1}} ", ink.cell(float(v), limit, shade, m))
    return line


def cell_width(cols: Sequence[str], room: int) -> int:
    """A cell wide enough for the column names to show whole, as far as room (the columns every cell
    together may take) allows; CELL at least, the names cut with … below that."""
    cell = max(CELL, min(MAX_CELL, max((len(c) + 2 for c in cols), default=CELL)))
    while cell > CELL and cell * len(cols) > room:
        cell -= 1
    return cell


def header_line(ink: Ink, left: Sequence[str], cols: Sequence[str], cell: int = CELL) -> Text:
    line = span("".join(f"{s:<{w}}" for s, w in zip(left, (LABEL, WHAT))), ink.muted)
    line.append(column_heads(cols, cell), ink.muted + Style(bold=True))
    return line


def matrix(
    ink: Ink,
    title: str,
    rows: Sequence[str],
    cols: Sequence[str],
    values: np.ndarray,
    old: np.ndarray | None,
    shade: str = "diverging",
    blocked: np.ndarray | None = None,
    width: int = 0,  # the page's columns (0: the cells stay CELL wide)
) -> list[Text]:
    """A labelled heatmap: rows × cols cells, each shaded and showing its number and its mark."""
    values = np.asarray(values, dtype=np.float64)
    marks = marks_of(values, old)
    limit = 1.0 if shade == "heat" else shade_limit(values)
    cell = cell_width(cols, width - LABEL)  # the column names whole where the page has room
    out = [Text(title, ink.title)]
    head = span(f"{'':<{LABEL}}", ink.muted)
    head.append(column_heads(cols, cell), ink.muted + Style(bold=True))
    out.append(head)
    for r, label in enumerate(rows):
        line = span(fit_label(label, LABEL - 1) + " ", ink.muted)
        for c in range(values.shape[1]):
            if blocked is not None and blocked[r, c]:
                line.append(f"{'×':>{cell - 2}}  ", ink.var("tt-masked"))
                continue
            line.append_text(cells_line(ink, [values[r, c]], [marks[r, c]], limit, shade, cell))
        out.append(line)
    scale = "0 … 1" if shade == "heat" else f"−{limit:.2f} … 0 … +{limit:.2f}"
    out.append(Text(f"{'':<{LABEL}}shade: {scale}", ink.muted))
    return out


def marked_note(ink: Ink, count: int, what: str) -> Text:
    if not count:
        return Text("")
    return Text(f"▲▼ {count} {what} changed since the comparison run (c switches what it compares with)",
                ink.mark(CHANGED))  # fmt: skip
