"""How the gallery's pages are inked: each piece of a line (present.gallery_lines) in the theme's style.

The pages come laid out from present/; this module only chooses styles. Shades come from themes.scale
(theme variables); the one exception is a painting's own RGB picture, whose colours are the model's
numbers (data, the same in every theme).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.color import Color as RichColor
from rich.style import Style
from rich.text import Text
from textual.color import Color

from tinytui.present.gallery_lines import HEADING, MARK, MUTED, TITLE, Cell, Line, Piece, Pixel
from tinytui.present.grid_spec import DOWN, UP
from tinytui.themes.scale import diverging, heat, readable_on


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

    def style(self, piece: Piece) -> Style:
        if isinstance(piece, Cell):
            return self.cell(piece.value, piece.limit, piece.shade, piece.mark)
        if isinstance(piece, Pixel):
            return Style(bgcolor=RichColor.from_rgb(*piece.rgb))
        if not piece.ink:
            return Style()
        if piece.ink == TITLE:
            return self.title
        if piece.ink == MUTED:
            return self.muted
        if piece.ink == HEADING:
            return self.muted + Style(bold=True)
        if piece.ink == MARK:
            return self.mark(piece.mark)
        return self.var(piece.ink)  # a theme variable's name


def drawn_line(line: Line, ink: Ink) -> Text:
    out = Text()
    for piece in line:
        out.append(piece.text, ink.style(piece))
    return out


def drawn(lines: Sequence[Line], ink: Ink) -> Text:
    """A page's lines as one Text, a line each, for TextLines.set_text."""
    return Text("\n", no_wrap=True, overflow="ignore", end="").join(drawn_line(line, ink) for line in lines)
