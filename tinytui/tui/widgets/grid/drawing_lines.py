"""How a Grid draws its lines: cell styles (cached across grids), the pieces of each content line, and
the lines themselves for the part of the table its pane shows.

A row's cells are drawn once into a strip (a band of columns a little wider than the pane shows) and
kept until that row changes; each drawn line is that strip cropped to the columns in view, with the row
label laid over the pane's left edge. So scrolling sideways crops kept strips instead of drawing cells
again. A cell partly under the labels or past the pane's edge is left blank, so no number ever shows
with digits missing. Header lines (few) are drawn whole each time.

GridDrawing is a mixin of Grid: it reads the grid's spec, shape(), cursor, lit cells and window.
"""

from __future__ import annotations

from typing import NamedTuple

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.color import Color
from textual.geometry import Size
from textual.strip import Strip

from tinytui.present.grid_layout import group_title
from tinytui.present.grid_spec import DOWN, EDITED, MASKED, PRECEDENCE, UP, glyph
from tinytui.themes.scale import readable_on
from tinytui.tui.widgets.grid.style import level, shade_at

LIT = "▸"  # drawn before a lit cell's number (a cell the focused value reads): a cue that is not colour

_MARK_CLASS = {
    EDITED: "grid--edited",
    UP: "grid--changed-up",
    DOWN: "grid--changed-down",
    "changed": "grid--changed",
    MASKED: "grid--masked",
}

# A cell's style by (theme, marks, shade value, shade, limit): shared by every grid, so a redraw that
# changes nothing works out no colour, and a table shown again (a step revisited) costs no Lab mixing.
STYLE_CACHE: dict[tuple, Style] = {}
_PLAIN = Style()
ALL = 1 << 30  # "every column": a window not cut on the right

Piece = tuple[str, Style]  # text and its style
Placed = tuple[int, str, Style]  # a piece and the content column it starts at


class Window(NamedTuple):
    """What of a table the drawn lines show, in content columns and lines: the row labels at column
    ox (0: their own place), the header lines from line hy (0: their own place), and the columns up
    to x1 (those further right are off screen)."""

    ox: int
    hy: int
    x1: int


WHOLE = Window(0, 0, ALL)


class GridDrawing:
    """Grid's drawing: render_line for the screen, render for text(), each cell's style."""

    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            style = self._styles[name] = self.get_component_rich_style(name, partial=True)
        return style

    def _check_epoch(self) -> None:
        epoch = (self.app.theme, self.visual_style)
        if epoch != self._epoch:
            self._epoch, self._lines, self._bodies, self._styles = epoch, {}, {}, {}

    def _cell_style(self, r: int, c: int) -> Style:
        spec = self.spec
        return self._styled(spec.marks[r][c], spec.values[r][c] if spec.shade else None)

    def _styled(self, marks: frozenset[str], value: float | None) -> Style:
        """A cell's style from its marks and shade; cached per theme and shading level (a Lab mix is
        not cheap, and an edit that moves a table's largest value moves every cell's shade)."""
        spec = self.spec
        at = level(spec.shade, value, spec.limit) if value is not None and spec.shade else None
        theme = self._epoch[0] if self._epoch else self.app.theme  # the line's (render_line checked it)
        key = (theme, marks, spec.shade, at)
        style = STYLE_CACHE.get(key)
        if style is not None:
            return style
        self.restyled += 1
        for mark in PRECEDENCE:
            if mark in marks:
                style = self._style(_MARK_CLASS.get(mark, "grid--changed"))
                break
        else:
            style = Style()
        if not style.bgcolor and mark_free_shading(marks) and at is not None:
            bg = shade_at(self.app.theme_variables, spec.shade, at)
            style = Style(bgcolor=bg.rich_color) + style
        if style.bgcolor and not style.color:
            style += Style(color=readable_on(Color.from_rich_color(style.bgcolor)).rich_color)
        if len(STYLE_CACHE) > 100_000:
            STYLE_CACHE.clear()
        STYLE_CACHE[key] = style
        return style

    # ---- lines for the screen ----------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        self._check_epoch()
        line = self._lines.get(y)
        if line is None:
            line = self._lines[y] = self._draw_line(y)
        return line

    def _strip(self, runs: list[list], y: int) -> Strip:
        """Runs as segments: as Textual draws Text, each styled piece its own segment, the widget's
        colours under them, and where each starts (the offset a mouse selection reads)."""
        base = self.visual_style.rich_style
        return Strip([Segment(t, base + st + Style.from_meta({"offset": (at, y)})) for t, st, at in runs])

    def _draw_line(self, y: int) -> Strip:
        """Line y as the window shows it: a row from its kept strip, anything else drawn whole."""
        shape, win = self.shape(), self._win
        r = y - shape.top
        pinned_header = win.hy and win.hy <= y < win.hy + shape.top
        if pinned_header or not 0 <= r < shape.rows:
            self.lines_drawn += 1
            return self._strip(self._runs(y), y)
        left = win.ox + shape.label_w  # the cells shown start right of the labels
        cols = shape.columns_in(left, win.x1)
        xs, widths = shape.xs, shape.widths
        first, last = cols.start, cols.stop - 1
        if cols and xs[first] < left:  # partly under the labels: left blank
            first += 1
        if cols and _end(shape, last) > win.x1:  # partly past the pane's edge: left blank
            last -= 1
        base = self.visual_style.rich_style
        label = self._label_piece(r)
        parts = []
        if win.ox:
            parts.append(Strip([Segment(" " * win.ox, base)]))
        parts.append(self._strip([[label[0], label[1], win.ox]], y))
        if first <= last:
            a = xs[first] - (1 if first in shape.starts and xs[first] - 1 >= left else 0)
            b = xs[last] + widths[last] + 2
            if a > left:
                parts.append(Strip([Segment(" " * (a - left), base)]))
            parts.append(self._body(y, r, a, b).crop(a, b))
        return Strip.join(parts)

    def _body(self, y: int, r: int, a: int, b: int) -> Strip:
        """Row r's cells as a strip from column 0 covering at least [a, b): kept, or drawn for a band
        one width wider each side (so the next scroll steps reuse it)."""
        kept = self._bodies.get(y)
        if kept is not None and kept[0] <= a and b <= kept[1]:
            return kept[2]
        self.lines_drawn += 1
        shape = self.shape()
        span = b - a
        _, pieces = self._parts(y, max(a - span, shape.label_w), b + span)
        lo = pieces[0][0] if pieces else a
        runs: list[list] = []
        for x, text, style in pieces:
            if not style and runs and not runs[-1][1]:  # unstyled runs joined, as Textual draws Text
                runs[-1][0] += text
            else:
                runs.append([text, style, x])
        hi = pieces[-1][0] + len(pieces[-1][1]) if pieces else b
        strip = self._strip([[" " * lo, _PLAIN, 0], *runs] if lo else runs, y)  # from column 0
        self._bodies[y] = (lo, hi, strip)
        return strip

    def _label_piece(self, r: int) -> Piece:
        """Row r's label, reversed when the cursor is on it."""
        shape = self.shape()
        style = self._style("grid--label")
        if self.has_focus and not self.editing and (self.row, self.col) == (r, -1):
            style = style + self._style("grid--cursor")
        return self.spec.rows[r].ljust(shape.label_w), style

    # ---- lines as pieces -----------------------------------------------------------------------------
    def _runs(self, y: int, win: Window | None = None) -> list[list]:
        """Content line y as drawn in a window: [text, style, x] runs from column 0, unstyled ones
        joined. The row label (or the corner) goes at win.ox, over the cells under it; the header
        lines are drawn from line win.hy; columns from win.x1 on are left out. A cell partly under
        the labels or past the window's edge is left blank; titles and axis ticks are cut instead
        (a word cut in two is blanked)."""
        win = self._win if win is None else win
        shape = self.shape()
        line = y - win.hy if win.hy and win.hy <= y < win.hy + shape.top else y
        label, pieces = self._parts(line, win.ox + shape.label_w, win.x1)
        cuttable = (line == 0 and bool(self.spec.groups)) or (line == shape.top - 1 and shape.narrow)
        runs: list[list] = []
        at = 0

        def put(text: str, style: Style, x: int) -> None:
            nonlocal at
            if x > at:
                put(" " * (x - at), _PLAIN, at)
            if not style and runs and not runs[-1][1]:
                runs[-1][0] += text
            else:
                runs.append([text, style, x])
            at = x + len(text)

        if label is not None:
            put(label[0], label[1], win.ox)
        else:  # the editor's lines under the table: where the pane's left edge is, like the labels
            pieces = [(x + win.ox, text, style) for x, text, style in pieces]
        for x, text, style in pieces:
            if label is not None and (x < at or x + len(text) > win.x1):  # (a footer is not windowed)
                if not cuttable:
                    continue
                text, x = _clip(text, x, at, win.x1)
            if text:
                put(text, style, x)
        return runs

    def _parts(self, y: int, x0: int, x1: int) -> tuple[Piece | None, list[Placed]]:
        """Content line y (in the table's own places) as its label piece and (x, text, style) pieces
        for the columns in [x0, x1): the group header, the column header, a row, or the footer."""
        spec, shape = self.spec, self.shape()
        header, label_style = self._style("grid--header"), self._style("grid--label")
        widths, starts, xs = shape.widths, shape.starts, shape.xs
        cursor = self._style("grid--cursor") if self.has_focus and not self.editing else None
        cols = shape.columns_in(x0, x1)
        out: list[Placed] = []
        if spec.groups and y == 0:
            start = 0
            for label, span in spec.groups:
                if start in starts:
                    out.append((xs[start] - 1, "│", label_style))
                inner = sum(w + 2 for w in widths[start : start + span])
                label = group_title(label, inner - 1)  # narrow blocks: cut, not its columns widened
                if span and xs[start] < x1 and xs[start] + inner > x0:
                    out.append((xs[start], label.center(inner) if label else " " * inner, header))
                start += span
            return (" " * shape.label_w, _PLAIN), out
        if y == shape.top - 1:
            for c in cols:
                if c in starts:
                    out.append((xs[c] - 1, "│", label_style))
                on = cursor is not None and (self.row, self.col) == (-1, c)
                style = header + cursor if on else header
                if shape.narrow and out and out[-1][2] == style and c not in starts:
                    # an axis label spans narrow columns: one piece, so it is drawn as one word
                    x, text, _ = out.pop()
                    out.append((x, text + shape.headers[c], style))
                else:
                    out.append((xs[c], shape.headers[c], style))
            on = cursor is not None and (self.row, self.col) == (-1, -1)
            return (spec.corner.ljust(shape.label_w), header + cursor if on else header), out
        if 0 <= (r := y - shape.top) < len(spec.rows):
            for c in cols:
                if c in starts:
                    out.append((xs[c] - 1, "│", label_style))
                out.append((xs[c], *self._cell(r, c, widths[c], shape.narrow)))
            return self._label_piece(r), out
        if 0 <= (i := y - shape.top - len(spec.rows)) < len(shape.footer):
            out.append((0, shape.footer[i], self._style("grid--error" if i else "grid--hint")))
        return None, out

    def render(self) -> Text:
        """The whole table as Rich Text (for text() and copying; the screen is drawn by render_line)."""
        self._check_epoch()
        out = Text(no_wrap=True, overflow="ignore", end="")
        for y in range(self.get_content_height(Size(0, 0), Size(0, 0), 0)):
            if y:
                out.append("\n")
            for text, style, _ in self._runs(y, WHOLE):
                out.append(text, style)
        return out

    def _cell(self, r: int, c: int, w: int, narrow: bool = False) -> Piece:
        here = (r, c) == (self.row, self.col)
        if self.editing and here:
            shown = self.buffer + "▏"
            return " " + shown.rjust(w) + " ", self._style("grid--editor")
        style = self._cell_style(r, c)
        lead = " "
        if (r, c) in self.lit:
            style += self._style("grid--source")
            lead = LIT
        if here and self.has_focus:
            style += self._style("grid--cursor")
        text = "" if narrow else self.spec.cells[r][c]  # a narrow block: its shade says the value
        return lead + text.rjust(w) + glyph(self.spec.marks[r][c]), style


def _end(shape, c: int) -> int:
    """The content column right after column c's cell."""
    return shape.xs[c] + shape.widths[c] + 2


def mark_free_shading(marks: frozenset[str]) -> bool:
    """Masked cells are drawn flat: their value is not part of the softmax."""
    return MASKED not in marks


def _clip(text: str, x: int, lo: int, hi: int) -> tuple[str, int]:
    """The part of text (starting at column x) inside columns [lo, hi), a word cut at either edge
    blanked, and where that part starts."""
    left, right = max(lo - x, 0), max(min(hi - x, len(text)), 0)
    part = text[left:right] if right > left else ""
    if part and left and text[left - 1] != " ":
        cut = part.find(" ")
        cut = len(part) if cut < 0 else cut
        part = " " * cut + part[cut:]
    if part and right < len(text) and text[right] != " ":
        cut = part.rfind(" ") + 1
        part = part[:cut] + " " * (len(part) - cut)
    return part, x + left
