"""The lines of one table's frame (or of the bars) as strips, for the step view: the top border with
the title, the header lines, each row, the bottom border with the shading's key.

A line is drawn whole (every column of its table) and cut to the screen by the view. Styles come from
the view's component classes (theme variables in TCSS) and a cell's shade from themes.scale; every
mark also has a glyph (▲ ▼ ◆ * × ▸), so nothing is colour alone. Draws a spec; computes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual.cache import LRUCache
from textual.color import Color
from textual.strip import Strip

from tinytui.present.grid_layout import group_title
from tinytui.present.grid_spec import DOWN, EDITED, MASKED, PRECEDENCE, UP, GridSpec, LogitsSpec, glyph
from tinytui.present.step_layout import FRAME, Box
from tinytui.themes.scale import readable_on
from tinytui.tui.widgets.cell_editor import Shown, typed_pieces
from tinytui.tui.widgets.shading import levels, shade_at, shading_key

LIT = "▸"  # before a cell the focused value reads
WIDE_GROUP = 60  # columns: a group header wider than this starts its name at its left, not centred
_BLOCKS = " ▏▎▍▌▋▊▉█"
_MARK = MappingProxyType(
    {
        EDITED: "edited",
        UP: "changed-up",
        DOWN: "changed-down",
        "changed": "changed",
        MASKED: "masked",
    }
)
CELL_STYLES_KEPT = 16384  # cells' styles a painter keeps: every mark on every level of both shadings
_PLAIN = Style()  # a cell without a mark: no style of its own


class Painter:
    """Draws boxes' lines with one theme's styles (style(name) is the view's component style). Every
    style it gives is over ground, the view's own colours, so a line it draws is finished as it is."""

    def __init__(
        self,
        style: Callable[[str], Style],
        theme: str,
        variables: dict[str, str],
        console: Console,
        ground: Style,
    ) -> None:
        self._get = style
        self.console = console
        self.theme = theme
        self.variables = variables
        self.ground = ground
        self._styles: dict[str, Style] = {}  # over the ground
        self._components: dict[str, Style] = {}
        # a cell's style by (ground, marks, shade, level): shared by every table and every step it paints
        self._cell_styles: LRUCache[tuple, Style] = LRUCache(CELL_STYLES_KEPT)

    def style(self, name: str) -> Style:
        """A component's style over the ground."""
        got = self._styles.get(name)
        if got is None:
            got = self._styles[name] = self.ground + self._component(name)
        return got

    def _component(self, name: str) -> Style:
        got = self._components.get(name)
        if got is None:
            got = self._components[name] = self._get(f"step-view--{name}")
        return got

    def _cell_style(self, shade: str | None, marks: frozenset[str], at: float | None) -> Style:
        """A cell's style by its marks and its level on the shading (None: not shaded): the mark's own
        style, on the shade where the mark has no background, with text readable on whichever it has."""
        key = (self.ground, marks, shade, at)
        got = self._cell_styles.get(key)
        if got is not None:
            return got
        mark = next((m for m in PRECEDENCE if m in marks), None) if marks else None
        own = self._component(_MARK.get(mark, "changed")) if mark is not None else _PLAIN
        background, shaded = own.bgcolor, None
        if background is None and MASKED not in marks and at is not None and shade:
            shaded = shade_at(self.variables, shade, at)
            background = shaded.rich_color
        color = own.color
        if background is not None and color is None:
            on = shaded if shaded is not None else Color.from_rich_color(background)
            color = readable_on(on).rich_color
        under = self.ground if mark is None else self.ground + own
        got = under + Style(color=color, bgcolor=background)
        self._cell_styles[key] = got
        return got

    # ---- a box's lines ----------------------------------------------------------------------------
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
        role = "focus" if focused else f"border-{getattr(box.item, 'role', 'output')}"
        border = self.style(role)
        heavy = focused
        if i == 0:
            return self._top(box, border, heavy)
        if i == box.height - 1:
            return self._bottom(box, border, heavy, note)
        side = "┃" if heavy else "│"
        if isinstance(box.item, LogitsSpec):
            inner = self._bars_line(box, i - 1, lit)
        else:
            inner = self._table_line(box, i - 1, cursor, lit, edit, cols)
        pad = box.inner - sum(len(t) for t, _ in inner)
        segments = [Segment(side + " ", border), *(Segment(t, s) for t, s in inner)]
        if pad > 0:
            segments.append(Segment(" " * pad, self.ground))
        segments.append(Segment(" " + side, border))
        return Strip(segments, box.width)

    def _top(self, box: Box, border: Style, heavy: bool) -> Strip:
        h, a, b = ("━", "┏", "┓") if heavy else ("─", "╭", "╮")
        title = box.item.title
        if len(title) > box.width - 6:
            title = title[: max(box.width - 7, 0)] + "…"
        rest = box.width - 5 - len(title)
        title_style = self.style("title-focus" if heavy else f"title-{getattr(box.item, 'role', 'output')}")
        return Strip(
            [Segment(a + h + " ", border), Segment(title, title_style), Segment(" " + h * rest + b, border)],
            box.width,
        )

    def _bottom(self, box: Box, border: Style, heavy: bool, note: tuple[str, str] | None) -> Strip:
        h, a, b = ("━", "┗", "┛") if heavy else ("─", "╰", "╯")
        spec = box.item
        if note is not None:
            text = note[0][: max(box.width - 6, 0)]
            rest = box.width - 5 - len(text)
            return Strip(
                [
                    Segment(a + h + " ", border),
                    Segment(text, self.style(note[1])),
                    Segment(" " + h * rest + b, border),
                ],
                box.width,
            )
        key = None
        if isinstance(spec, GridSpec) and spec.shade in ("heat", "diverging") and spec.shaded:
            limit = 1.0 if spec.shade == "heat" else spec.limit
            key = shading_key(self.theme, self.variables, spec.shade, limit, box.width - 6)
        if key is None:
            return Strip([Segment(a + h * (box.width - 2) + b, border)], box.width)
        segments = [Segment(a + h + " ", border)]
        segments += [
            Segment(s.text, self.ground + s.style if s.style else self.ground)
            for s in key.render(self.console)
        ]
        rest = box.width - 5 - key.cell_len
        segments.append(Segment(" " + h * max(rest, 0) + b, border))
        return Strip(segments, box.width)

    def _table_line(
        self,
        box: Box,
        y: int,
        cursor: tuple[int, int] | None,
        lit: frozenset,
        edit: Shown | None = None,
        cols: tuple[int, int] | None = None,
    ) -> list:
        """Content line y of a table (group header, column header, or a row) as (text, style) pieces."""
        spec, shape = box.item, box.shape
        assert isinstance(spec, GridSpec) and shape is not None
        header, label = self.style("header"), self.style("label")
        on = self._component("cursor")  # added over a cell's own style
        out: list[tuple[str, Style]] = []
        if spec.groups and y == 0:
            out.append((" " * shape.label_w, self.ground))
            start = 0
            for name, span in spec.groups:
                if start in shape.starts:
                    out.append(("│", label))
                inner = sum(w + 2 for w in shape.widths[start : start + span])
                name = group_title(name, inner - 1)
                # a group may be wider than the view (one head shown alone; d_model 64's vector beside
                # the prompt's tokens): its name where its columns begin, not in the middle of them, off
                # the screen
                wide = len(spec.groups) == 1 or inner > WIDE_GROUP
                placed = (" " + name).ljust(inner) if wide else name.center(inner)
                out.append((placed if name else " " * inner, header))
                start += span
            return out
        first, end = cols if cols is not None else (0, len(shape.widths))
        skipped = 0  # columns left out (outside cols) since the last piece: one blank as wide as they are
        if y == shape.top - 1:
            here = cursor is not None and cursor[0] == -1
            corner_on = here and cursor[1] == -1
            out.append((spec.corner.ljust(shape.label_w), header + on if corner_on else header))
            for c, text in enumerate(shape.headers):
                if not first <= c < end:
                    skipped += len(text) + (c in shape.starts)
                    continue
                if skipped:
                    out.append((" " * skipped, self.ground))
                    skipped = 0
                if c in shape.starts:
                    out.append(("│", label))
                out.append((text, header + on if here and cursor[1] == c else header))
            if skipped:
                out.append((" " * skipped, self.ground))
            return out
        r = y - shape.top
        cursor_col = cursor[1] if cursor is not None and cursor[0] == r else None
        out.append((spec.rows[r].ljust(shape.label_w), label + on if cursor_col == -1 else label))
        widths, starts = shape.widths, shape.starts
        if first >= end:
            if shape.table_width > shape.label_w:
                out.append((" " * (shape.table_width - shape.label_w), self.ground))
            return out
        if first:  # the columns left of the window: one blank as wide as they are
            out.append((" " * (shape.xs[first] - shape.label_w - (first in starts)), self.ground))
        cells, marks = spec.cells[r], spec.marks[r]
        shade, narrow = spec.shade, shape.narrow
        at = levels(shade, spec.values[r][first:end], spec.limit) if shade else [None] * (end - first)
        lit_here = {c for row, c in lit if row == r} if lit else ()
        source, ground_bg = self._component("source"), self.ground.bgcolor
        for c in range(first, end):
            if c in starts:
                out.append(("│", label))
            mark = marks[c]
            style = self._cell_style(shade, mark, at[c - first])
            lead = " "
            if c in lit_here:
                style += source
                lead = LIT
            if c == cursor_col:
                if edit is not None:
                    out += typed_pieces(edit, self.ground, self.style("editing"), self._component("caret"))
                    continue
                style += on
            number = "" if narrow else cells[c].rjust(widths[c])
            if (
                c == 0
                and shade
                and not narrow
                and lead == " "
                and cursor_col != 0
                and style.bgcolor != ground_bg
            ):
                # the first shade starts after its lead: a row's label never runs into a shaded number
                out.append((lead, self.ground))
                out.append((number + glyph(mark), style))
                continue
            out.append((lead + (number or " " * widths[c]) + glyph(mark), style))
        if end < len(widths):  # the columns right of the window
            out.append((" " * (shape.table_width - shape.xs[end - 1] - widths[end - 1] - 2), self.ground))
        return out

    def _bars_line(self, box: Box, y: int, lit: frozenset) -> list:
        spec = box.item
        assert isinstance(spec, LogitsSpec)
        tok_w = max(len(r.token) for r in spec.rows)
        if y == 0:
            legend = "◀ target ★ predicted" if box.short else "p as a bar"
            return [(f"{'token':<{tok_w}}    logit    prob  {legend}", self.style("header"))]
        if y - 1 >= len(spec.rows):
            return [(spec.others, self.style("header"))]
        r = spec.rows[y - 1]
        tag = self.style("target") if r.target else self.style("predicted") if r.predicted else self.ground
        out = [(f"{r.token:<{tok_w}}", tag)]
        for text, marks, source in (
            (r.logit, r.logit_mark, r.logit_source),
            (r.prob, r.prob_mark, r.prob_source),
        ):
            if source is not None and source in lit:
                out.append((f"{LIT}{text:>7}{glyph(marks)}", self.style("source")))
            else:
                style = (
                    self.style("changed-up")
                    if UP in marks
                    else self.style("changed-down")
                    if DOWN in marks
                    else self.ground
                )
                out.append((f" {text:>7}{glyph(marks)}", style))
        out.append((" ", self.ground))
        out.append((_bar(r.p, box.bar_width), self.style("predicted" if r.predicted else "bar")))
        if r.target:
            out.append((" ◀" if box.short else " ◀ target", self.style("target")))
        if r.predicted:
            out.append((" ★" if box.short else " ★ predicted", self.style("predicted")))
        return out


def _bar(p: float, width: int) -> str:
    eighths = round(max(0.0, min(1.0, p)) * width * 8)
    full, part = divmod(eighths, 8)
    return ("█" * full + (_BLOCKS[part] if part else "")).ljust(width)


def label_width(box: Box) -> int:
    """Columns of the frame's left side and the row labels: what stays pinned when scrolled sideways."""
    return FRAME + (box.shape.label_w if box.shape is not None else 0)
