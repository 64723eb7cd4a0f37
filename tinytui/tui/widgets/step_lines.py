"""A box's line in the step view as segments: the frame (the top border with the title, the sides, the
bottom border with the shading's key or the editor's note) around what is inside it, a table's line
(grid_lines) or the bars' (bar_lines).

A line is drawn whole (every column of its table) and cut to the screen by the view. Styles come from
the view's component classes (theme variables in TCSS) through LineStyles, a cell's shade from
themes.scale; every mark also has a glyph (▲ ▼ ◆ * × ▸), so nothing is colour alone. Draws a spec;
computes nothing.

A line is a list of segments as long as its box is wide, neighbours in one style made one segment:
Textual's work on a line it draws (its own Strips, filters, the compositor's cuts, the terminal's
escape codes) grows with its segments, and the line is made into one Strip by the view only when it is
put on the screen (a Strip keeps seven caches of its own).
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style

from tinytui.present.grid_spec import GridSpec, LogitsSpec
from tinytui.present.step_layout import Box
from tinytui.tui.widgets.bar_lines import bars_line
from tinytui.tui.widgets.cell_editor import Shown
from tinytui.tui.widgets.grid_lines import grid_line
from tinytui.tui.widgets.line_styles import LineStyles


class Painter:
    """Draws boxes' lines with one theme's styles (LineStyles): every piece is over the view's own
    colours, so a line it draws is finished as it is."""

    def __init__(self, styles: LineStyles) -> None:
        self.styles = styles

    def line(
        self,
        box: Box,
        i: int,
        focused: bool,
        cursor: tuple[int, int] | None,
        lit: frozenset,
        note: tuple[str, str] | None = None,
        edit: Shown | None = None,
        cols: tuple[int, int] | None = None,
    ) -> list[Segment]:
        """Line i of box's frame; cursor is (row, col) when the cursor is in this table (and shown);
        note (text, "hint" or "error") takes the key's place in the bottom border (the editor's); edit
        (what is typed, the caret's column or None, all selected) is drawn in the cursor's cell; cols
        (first, end): only those columns of a table wider than the view are drawn, the others are blank
        of their width (the line is as long either way)."""
        styles = self.styles
        border = styles.style("focus" if focused else f"border-{getattr(box.item, 'role', 'output')}")
        if i == 0:
            return self._top(box, border, focused)
        if i == box.height - 1:
            return self._bottom(box, border, focused, note)
        if isinstance(box.item, LogitsSpec):
            inner = bars_line(styles, box, i - 1, lit)
        else:
            inner = grid_line(styles, box, i - 1, cursor, lit, edit, cols)
        side = "┃" if focused else "│"
        pad = box.inner - sum(len(t) for t, _ in inner)
        tail = [(" " * pad, styles.ground)] if pad > 0 else []
        return joined([(side + " ", border), *inner, *tail, (" " + side, border)])

    def _top(self, box: Box, border: Style, heavy: bool) -> list[Segment]:
        h, a, b = ("━", "┏", "┓") if heavy else ("─", "╭", "╮")
        title = box.item.title
        if len(title) > box.width - 6:
            title = title[: max(box.width - 7, 0)] + "…"
        rest = box.width - 5 - len(title)
        title_style = self.styles.style(
            "title-focus" if heavy else f"title-{getattr(box.item, 'role', 'output')}"
        )
        return joined([(a + h + " ", border), (title, title_style), (" " + h * rest + b, border)])

    def _bottom(self, box: Box, border: Style, heavy: bool, note: tuple[str, str] | None) -> list[Segment]:
        """The bottom border: the editor's note, or the shading's key, in it."""
        h, a, b = ("━", "┗", "┛") if heavy else ("─", "╰", "╯")
        inside: list[tuple[str, Style]]
        if note is not None:
            inside = [(note[0][: max(box.width - 6, 0)], self.styles.style(note[1]))]
        else:
            inside = [(segment.text, segment.style) for segment in self._key(box) or ()]  # type: ignore[misc]
        if not inside:
            return [Segment(a + h * (box.width - 2) + b, border)]
        rest = box.width - 5 - sum(cell_len(text) for text, _ in inside)
        return joined([(a + h + " ", border), *inside, (" " + h * max(rest, 0) + b, border)])

    def _key(self, box: Box) -> list[Segment] | None:
        """The shading's key of a shaded table, as wide as its bottom border has room for."""
        spec = box.item
        if not isinstance(spec, GridSpec) or spec.shade not in ("heat", "diverging") or not spec.shaded:
            return None
        limit = 1.0 if spec.shade == "heat" else spec.limit
        return self.styles.shading_key(spec.shade, limit, box.width - 6)


def joined(pieces: Iterable[tuple[str, Style | None]]) -> list[Segment]:
    """(text, style) pieces as segments, neighbours in the same style (the same object: LineStyles
    makes each style once) made one, empty ones left out: the screen is the same, with fewer segments
    for Textual to carry."""
    out: list[Segment] = []
    text, style = "", None
    for piece_text, piece_style in pieces:
        if piece_style is style:
            text += piece_text
            continue
        if text:
            out.append(Segment(text, style))
        text, style = piece_text, piece_style
    if text:
        out.append(Segment(text, style))
    return out
