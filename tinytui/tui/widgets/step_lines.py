"""A box's line in the step view as a strip: the frame (the top border with the title, the sides, the
bottom border with the shading's key or the editor's note) around what is inside it, a table's line
(grid_lines) or the bars' (bar_lines).

A line is drawn whole (every column of its table) and cut to the screen by the view. Styles come from
the view's component classes (theme variables in TCSS) through LineStyles, a cell's shade from
themes.scale; every mark also has a glyph (▲ ▼ ◆ * × ▸), so nothing is colour alone. Draws a spec;
computes nothing.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

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
    ) -> Strip:
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
        segments = [Segment(side + " ", border), *(Segment(t, s) for t, s in inner)]
        pad = box.inner - sum(len(t) for t, _ in inner)
        if pad > 0:
            segments.append(Segment(" " * pad, styles.ground))
        segments.append(Segment(" " + side, border))
        return Strip(segments, box.width)

    def _top(self, box: Box, border: Style, heavy: bool) -> Strip:
        h, a, b = ("━", "┏", "┓") if heavy else ("─", "╭", "╮")
        title = box.item.title
        if len(title) > box.width - 6:
            title = title[: max(box.width - 7, 0)] + "…"
        rest = box.width - 5 - len(title)
        title_style = self.styles.style(
            "title-focus" if heavy else f"title-{getattr(box.item, 'role', 'output')}"
        )
        return Strip(
            [Segment(a + h + " ", border), Segment(title, title_style), Segment(" " + h * rest + b, border)],
            box.width,
        )

    def _bottom(self, box: Box, border: Style, heavy: bool, note: tuple[str, str] | None) -> Strip:
        """The bottom border: the editor's note, or the shading's key, in it."""
        h, a, b = ("━", "┗", "┛") if heavy else ("─", "╰", "╯")
        if note is not None:
            text = note[0][: max(box.width - 6, 0)]
            inside = [Segment(text, self.styles.style(note[1]))]
        else:
            inside = self._key(box)
        if not inside:
            return Strip([Segment(a + h * (box.width - 2) + b, border)], box.width)
        rest = box.width - 5 - Segment.get_line_length(inside)
        return Strip(
            [Segment(a + h + " ", border), *inside, Segment(" " + h * max(rest, 0) + b, border)], box.width
        )

    def _key(self, box: Box) -> list[Segment] | None:
        """The shading's key of a shaded table, as wide as its bottom border has room for."""
        spec = box.item
        if not isinstance(spec, GridSpec) or spec.shade not in ("heat", "diverging") or not spec.shaded:
            return None
        limit = 1.0 if spec.shade == "heat" else spec.limit
        return self.styles.shading_key(spec.shade, limit, box.width - 6)
