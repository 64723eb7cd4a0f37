"""A labelled matrix with a cell cursor, shading, change marks and an in-place cell editor.

It draws a GridSpec and nothing else. Styles come from COMPONENT_CLASSES (theme variables in TCSS) and
shading from themes.scale; every mark also has a glyph (▲ ▼ ◆ * ×) so nothing is colour alone.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.color import Color, Lab, lab_to_rgb, rgb_to_lab
from textual.geometry import Region, Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from tinytui.themes import legend
from tinytui.themes.scale import readable_on
from tinytui.widgets.cells import (
    DOWN,
    EDITED,
    GLYPHS,
    MASKED,
    PRECEDENCE,
    UP,
    CellRef,
    GridSpec,
    Source,
    glyph,
)

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
_STYLE_CACHE: dict[tuple, Style] = {}
_PLAIN = Style()


@lru_cache(maxsize=64)
def _lab(value: str) -> tuple[Color, Lab]:
    colour = Color.parse(value)
    return colour, rgb_to_lab(colour)


def _mix(a: str, b: str, t: float) -> Color:
    """themes.scale.mix with each end parsed and converted to L*a*b* once (the same numbers)."""
    (ca, la), (cb, lb) = _lab(a), _lab(b)
    if t <= 0:
        return ca
    if t >= 1:
        return cb
    return lab_to_rgb(Lab(*(x + (y - x) * t for x, y in zip(la, lb)))).clamped


def shade(variables: dict[str, str], kind: str, value: float, limit: float) -> Color:
    """The background of a shaded cell: themes.scale.heat or .diverging, computed the same way."""
    if kind == "heat":
        return _mix(variables["tt-heat-low"], variables["tt-heat-high"], min(1.0, max(0.0, float(value))))
    if limit <= 0:
        return Color.parse(variables["tt-zero"])
    v = max(-1.0, min(1.0, float(value) / limit))
    return _mix(variables["tt-zero"], variables["tt-positive" if v >= 0 else "tt-negative"], abs(v))


@lru_cache(maxsize=256)
def _legend_cached(theme: str, shade: str, limit: float, room: int, variables: tuple) -> Text | None:
    values = dict(variables)
    key = None
    for cells in (10, 8, 6, 4, 2):
        key = legend(values, shade, limit=limit, width=cells)
        if key.cell_len <= room:
            return key
    return key


def _legend(theme: str, variables: dict[str, str], shade: str, limit: float, room: int) -> Text | None:
    wanted = ("tt-heat-low", "tt-heat-high", "tt-zero", "tt-positive", "tt-negative")
    key = _legend_cached(theme, shade, limit, room, tuple((k, variables[k]) for k in wanted))
    return key.copy() if key is not None else None


@dataclass(frozen=True)
class Shape:
    """Where a table's parts sit: the label column's width, each column's width and x, the columns
    a rule is drawn before (a second head), the header lines above the rows, the footer below."""

    label_w: int
    widths: tuple[int, ...]
    xs: tuple[int, ...]
    starts: frozenset[int]
    top: int  # content lines above the first row (the group header, the column header)
    table_width: int
    rows: int
    footer: tuple[str, ...] = ()

    @classmethod
    def of(cls, spec: GridSpec, editing_col: int, editor_width: int) -> Shape:
        label_w = max([len(spec.corner), *(len(r) for r in spec.rows)], default=0)
        widths = []
        for c, col in enumerate(spec.cols):
            w = max([len(col), *(len(row[c]) for row in spec.cells)], default=0)
            if c == editing_col:
                w = max(w, editor_width)
            widths.append(w)
        # a header group wider than its columns widens the last of them
        start = 0
        starts, at = set(), 0
        for label, span in spec.groups:
            inner = sum(widths[start : start + span]) + 2 * span
            if span and len(label) + 1 > inner:
                widths[start + span - 1] += len(label) + 1 - inner
            start += span
            if at:
                starts.add(at)  # columns that open a new group: a rule is drawn before them
            at += span
        xs, x = [], label_w
        for c, w in enumerate(widths):
            if c in starts:
                x += 1
            xs.append(x)
            x += w + 2
        top = 1 + bool(spec.groups)
        return cls(label_w, tuple(widths), tuple(xs), frozenset(starts), top, x, len(spec.rows))


class Grid(Widget, can_focus=True):
    """One table of numbers. Arrows move the cursor; Enter or e edits a weight (or picks a token)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1, 0)", "Cell up", show=False, id="cell-up"),
        Binding("down", "move(1, 0)", "Cell down", show=False, id="cell-down"),
        Binding("left", "move(0, -1)", "Cell left", show=False, id="cell-left"),
        Binding("right", "move(0, 1)", "Cell right", show=False, id="cell-right"),
        Binding(
            "enter,e",
            "edit",
            "Edit",
            id="edit-cell",
            tooltip="Edit the weight under the cursor (Enter commits, Esc cancels), or pick a token",
        ),
        # on a computed cell "Edit" is hidden (check_action); the same keys then say why instead
        Binding("enter,e", "not_editable", "Not editable", show=False, system=True, id="edit-computed"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "grid--header",
        "grid--label",
        "grid--cursor",
        "grid--changed-up",
        "grid--changed-down",
        "grid--changed",
        "grid--edited",
        "grid--masked",
        "grid--editor",
        "grid--hint",
        "grid--error",
        "grid--source",
    }

    DEFAULT_CSS = """
    Grid {
        width: auto;
        height: auto;
        padding: 0 1;
        border: round $panel-lighten-2;
        border-title-color: $foreground-muted;
        border-title-align: left;
    }
    Grid.output { border: round $primary; border-title-color: $primary; border-title-style: bold; }
    Grid.param { border: round $secondary; border-title-color: $secondary; }
    Grid:focus { border: heavy $accent; border-title-color: $accent; }
    Grid > .grid--header { color: $foreground-muted; text-style: bold; }
    Grid > .grid--label { color: $foreground-muted; }
    Grid > .grid--cursor { text-style: reverse bold; }
    Grid > .grid--changed-up { background: $tt-changed-up; text-style: bold underline; }
    Grid > .grid--changed-down { background: $tt-changed-down; text-style: bold underline; }
    Grid > .grid--changed { text-style: bold underline; }
    Grid > .grid--edited { background: $tt-edited; text-style: bold italic; }
    Grid > .grid--masked { color: $tt-masked; text-style: dim; }
    Grid > .grid--editor { background: $boost; color: $foreground; text-style: bold underline; }
    Grid > .grid--hint { color: $foreground-muted; text-style: italic; }
    Grid > .grid--error { color: $error; text-style: bold; }
    Grid > .grid--source { background: $tt-current-step; color: $foreground; text-style: bold underline; }
    """

    class EditSubmitted(Message):
        """The user committed text in the cell editor; the app tries it on the session."""

        def __init__(self, grid: Grid, ref: CellRef, text: str) -> None:
            super().__init__()
            self.grid, self.ref, self.text = grid, ref, text

    class PickRequested(Message):
        """Enter on a cell whose value is chosen from a list (a prompt token)."""

        def __init__(self, grid: Grid, ref: CellRef) -> None:
            super().__init__()
            self.grid, self.ref = grid, ref

    class CursorMoved(Message):
        def __init__(self, grid: Grid) -> None:
            super().__init__()
            self.grid = grid

    def __init__(self, spec: GridSpec, **kwargs) -> None:
        super().__init__(**kwargs)
        self.spec = spec
        self.row, self.col = 0, 0
        self.editing = False
        self.buffer = ""
        self.fresh = False  # the editor still shows the old value: the first key typed replaces it
        self.error = ""
        self.add_class(spec.role)
        self.border_title = spec.title
        self.legend_text: Text | None = None  # the shading's key, once mounted
        self._shape: Shape | None = None  # label width, column widths, rule positions: see shape()
        self._lines: dict[int, Strip] = {}  # each drawn content line, until its cells change
        self._epoch: tuple = ()  # (theme, base style, focus): the cached lines were drawn with it
        self._styles: dict[str, Style] = {}  # component styles, for this epoch
        self.lit: frozenset[tuple[int, int]] = frozenset()  # cells the focused value reads (the overlay)
        self._where: tuple[GridSpec, dict[Source, tuple[int, int]]] | None = None  # source -> cell
        self.restyled = 0  # cells whose style was worked out afresh (a miss in the cell cache)
        self.lines_drawn = 0  # content lines built afresh (not served from the line cache)

    # ---- data ----------------------------------------------------------------------------------
    def set_spec(self, spec: GridSpec) -> None:
        """Show new data. Only the lines whose cells differ are drawn again; a layout only when the
        table's size changes."""
        old, self.spec = self.spec, spec
        if spec.role != old.role:
            self.remove_class(old.role)
            self.add_class(spec.role)
        if self.border_title != spec.title:
            self.border_title = spec.title
        rows, cols = spec.shape
        self.row, self.col = min(self.row, max(rows - 1, 0)), min(self.col, max(cols - 1, 0))
        self.lit = frozenset((r, c) for r, c in self.lit if r < rows and c < cols)
        if self.has_focus:
            self.refresh_bindings()  # the cell under the cursor may have become (un)editable
        if not self.is_mounted:
            self._shape, self._lines = None, {}
            return
        before = self._shape
        self._shape = None
        self.show_legend()  # its room is the new table's width
        if before is None or self.shape() != before:
            self._lines = {}
            self.refresh(layout=True)
            return
        if (old.shade, old.limit, old.corner, old.cols, old.groups) != (
            spec.shade,
            spec.limit,
            spec.corner,
            spec.cols,
            spec.groups,
        ):
            self._lines = {}
            self.refresh()
            return
        top = self.shape().top
        for r in range(rows):
            if (
                old.rows[r] != spec.rows[r]
                or old.cells[r] != spec.cells[r]
                or old.marks[r] != spec.marks[r]
                or old.values[r] != spec.values[r]
            ):
                self._refresh_row(r, top)

    def reset(self, spec: GridSpec) -> None:
        """Show a different table in this widget (a pooled widget reused for another step)."""
        self.editing, self.buffer, self.fresh, self.error = False, "", False, ""
        self.row, self.col = 0, 0
        self.lit = frozenset()
        self.set_spec(spec)

    @property
    def ref(self) -> CellRef | None:
        if not self.spec.rows or not self.spec.cols:
            return None
        return self.spec.refs[self.row][self.col]

    @property
    def detail(self) -> str:
        """The inspector line for the cell under the cursor."""
        if not self.spec.rows or not self.spec.cols:
            return ""
        return self.spec.details[self.row][self.col]

    @property
    def source(self) -> Source | None:
        """The run's cell under the cursor, (canonical name, full index), or None (a label, a token)."""
        return self.source_at(self.row, self.col)

    def source_at(self, row: int, col: int) -> Source | None:
        sources = self.spec.sources
        if not sources or not 0 <= row < len(sources) or not 0 <= col < len(sources[row]):
            return None
        return sources[row][col]

    def find(self, source: Source) -> tuple[int, int] | None:
        """Where this grid shows a run's cell (row, col), or None; the lookup is built once per spec."""
        if self._where is None or self._where[0] is not self.spec:
            where: dict[Source, tuple[int, int]] = {}
            for r, row in enumerate(self.spec.sources):
                for c, src in enumerate(row):
                    if src is not None:
                        where.setdefault(src, (r, c))
            self._where = (self.spec, where)
        return self._where[1].get(source)

    def set_lit(self, cells: frozenset[tuple[int, int]]) -> None:
        """Light these cells (the focused value's operands); only rows that gain or lose one are drawn."""
        if cells == self.lit:
            return
        changed = {r for r, _ in cells ^ self.lit}
        self.lit = cells
        if not self.is_mounted or self._shape is None:
            return
        top = self.shape().top
        for r in changed:
            if 0 <= r < len(self.spec.rows):
                self._refresh_row(r, top)

    def cell_classes(self, row: int, col: int) -> frozenset[str]:
        """The highlight classes of one cell (component classes without the "grid--" prefix)."""
        return self.spec.marks[row][col]

    def text(self) -> str:
        """The grid as plain text, as it is drawn (used by tests and for copying)."""
        return self.render().plain

    # ---- the shading's key, in the bottom border -----------------------------------------------
    def on_mount(self) -> None:
        self.show_legend()
        # the key's shades come from the theme: draw it again once a new theme's variables are in
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._theme_changed())

    def _theme_changed(self) -> None:
        self._lines = {}
        self.show_legend()
        self.refresh()

    def legend(self) -> Text | None:
        """The key to this grid's shading: 0 … 1 for heat, −limit … 0 … +limit for signed values.

        As many shaded cells as fit under the table (the numbers at the ends always show)."""
        spec = self.spec
        if spec.shade not in ("heat", "diverging") or not spec.shaded:
            return None
        room = self.get_content_width(Size(0, 0), Size(0, 0))
        limit = 1.0 if spec.shade == "heat" else spec.limit
        return _legend(self.app.theme, self.app.theme_variables, spec.shade, limit, room)

    def show_legend(self) -> None:
        key = self.legend()
        if key != self.legend_text:
            self.legend_text = key  # what the border shows (tests read it)
            self.border_subtitle = key

    # ---- layout --------------------------------------------------------------------------------
    def shape(self) -> Shape:
        """Where everything sits; worked out once per spec (and per editor width)."""
        if self._shape is None:
            self._shape = Shape.of(self.spec, self.col if self.editing else -1, len(self.buffer) + 1)
            self._shape = replace(self._shape, footer=tuple(self._footer_lines()))
        return self._shape

    def _widths(self) -> tuple[int, list[int]]:
        shape = self.shape()
        return shape.label_w, list(shape.widths)

    def natural_width(self) -> int:
        """Columns the grid needs, border and padding included."""
        return self.get_content_width(Size(0, 0), Size(0, 0)) + 4

    def get_content_width(self, container: Size, viewport: Size) -> int:
        shape = self.shape()
        return max(shape.table_width, len(self.spec.title) + 2, *(len(x) for x in shape.footer))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        shape = self.shape()
        return shape.top + len(self.spec.rows) + len(shape.footer)

    def _footer_lines(self) -> list[str]:
        if not self.editing:
            return []
        ref = self.ref
        lines = [f"{ref.label if ref else ''}: Enter commits · Esc cancels"]
        if self.error:
            lines.append(f"✗ {self.error}")
        return lines

    def cell_region(self, row: int, col: int) -> Region:
        """Where a cell sits inside the widget's content area."""
        shape = self.shape()
        return Region(shape.xs[col], shape.top + row, shape.widths[col] + 2, 1)

    def _relayout(self) -> None:
        """The editor changed what the table needs (its width, its footer): measure again."""
        before = self._shape
        self._shape = None
        after = self.shape()
        if before is not None and replace(before, footer=()) == replace(after, footer=()):
            if after.footer != before.footer:
                # only the lines under the table came or went: the rows above them stay drawn
                below = after.top + after.rows
                self._lines = {y: line for y, line in self._lines.items() if y < below}
                self.refresh(layout=True)
            self._refresh_row(self.row)
            return
        self._lines = {}
        self.refresh(layout=True)

    def _refresh_row(self, row: int, top: int | None = None) -> None:
        y = (self.shape().top if top is None else top) + row
        self._lines.pop(y, None)
        self.refresh(Region(0, y, max(self.size.width, 1), 1))

    # ---- drawing -------------------------------------------------------------------------------
    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            style = self._styles[name] = self.get_component_rich_style(name, partial=True)
        return style

    def _check_epoch(self) -> None:
        epoch = (self.app.theme, self.visual_style)
        if epoch != self._epoch:
            self._epoch, self._lines, self._styles = epoch, {}, {}

    def _cell_style(self, r: int, c: int) -> Style:
        spec = self.spec
        return self._styled(spec.marks[r][c], spec.values[r][c] if spec.shade else None)

    def _styled(self, marks: frozenset[str], value: float | None) -> Style:
        """A cell's style from its marks and shade; cached per theme (a Lab mix is not cheap)."""
        spec = self.spec
        key = (self.app.theme, marks, value, spec.shade, spec.limit)
        style = _STYLE_CACHE.get(key)
        if style is not None:
            return style
        self.restyled += 1
        for mark in PRECEDENCE:
            if mark in marks:
                style = self._style(_MARK_CLASS.get(mark, "grid--changed"))
                break
        else:
            style = Style()
        if not style.bgcolor and mark_free_shading(marks) and value is not None and spec.shade:
            variables = self.app.theme_variables
            bg = shade(variables, spec.shade, value, spec.limit)
            style = Style(bgcolor=bg.rich_color) + style
        if style.bgcolor and not style.color:
            style += Style(color=readable_on(Color.from_rich_color(style.bgcolor)).rich_color)
        if len(_STYLE_CACHE) > 100_000:
            _STYLE_CACHE.clear()
        _STYLE_CACHE[key] = style
        return style

    def render_line(self, y: int) -> Strip:
        self._check_epoch()
        line = self._lines.get(y)
        if line is None:
            self.lines_drawn += 1
            base = self.visual_style.rich_style
            # as Textual draws Text: each styled piece its own segment, unstyled runs as one; the
            # widget's colours under them, and where each starts (the offset a mouse selection reads)
            runs: list[list] = []
            x = 0
            for text, style in self._pieces(y):
                if not style and runs and not runs[-1][1]:
                    runs[-1][0] += text
                else:
                    runs.append([text, style, x])
                x += len(text)
            line = Strip([Segment(t, base + st + Style.from_meta({"offset": (at, y)})) for t, st, at in runs])
            self._lines[y] = line
        return line

    def _pieces(self, y: int) -> list[tuple[str, Style]]:
        """Content line y as (text, style) pieces: the group header, the column header, a row, or the
        footer. The widget's own colours go under them when drawn."""
        spec, shape = self.spec, self.shape()
        out: list[tuple[str, Style]] = []
        header, label_style = self._style("grid--header"), self._style("grid--label")
        widths, starts = shape.widths, shape.starts
        if spec.groups and y == 0:
            out.append((" " * shape.label_w, _PLAIN))
            start = 0
            for label, span in spec.groups:
                if start in starts:
                    out.append(("│", label_style))
                inner = sum(w + 2 for w in widths[start : start + span])
                out.append((label.center(inner) if label else " " * inner, header))
                start += span
        elif y == shape.top - 1:
            out.append((spec.corner.ljust(shape.label_w), header))
            for c, (col, w) in enumerate(zip(spec.cols, widths)):
                if c in starts:
                    out.append(("│", label_style))
                out.append((" " + col.rjust(w) + " ", header))
        elif 0 <= (r := y - shape.top) < len(spec.rows):
            out.append((spec.rows[r].ljust(shape.label_w), label_style))
            for c, w in enumerate(widths):
                if c in starts:
                    out.append(("│", label_style))
                out.append(self._cell(r, c, w))
        elif 0 <= (i := y - shape.top - len(spec.rows)) < len(shape.footer):
            out.append((shape.footer[i], self._style("grid--error" if i else "grid--hint")))
        return out

    def render(self) -> Text:
        """The whole table as Rich Text (for text() and copying; the screen is drawn by render_line)."""
        self._check_epoch()
        out = Text(no_wrap=True, overflow="ignore", end="")
        for y in range(self.get_content_height(Size(0, 0), Size(0, 0), 0)):
            if y:
                out.append("\n")
            for text, style in self._pieces(y):
                out.append(text, style)
        return out

    def _cell(self, r: int, c: int, w: int) -> tuple[str, Style]:
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
        return lead + self.spec.cells[r][c].rjust(w) + glyph(self.spec.marks[r][c]), style

    # ---- cursor --------------------------------------------------------------------------------
    def action_move(self, dr: int, dc: int) -> None:
        rows, cols = self.spec.shape
        self.move_to(min(max(self.row + dr, 0), rows - 1), min(max(self.col + dc, 0), cols - 1))

    def move_to(self, row: int, col: int) -> None:
        old = self.row
        self.row, self.col = row, col
        if self.editing or self._shape is None:
            self._shape = None
            self.refresh(layout=True)
        else:
            self._refresh_row(old)
            self._refresh_row(row)
        self._scroll_to_cursor()
        self.refresh_bindings()  # "Edit" in the footer: shown on a weight, hidden on a computed cell
        self.post_message(self.CursorMoved(self))

    def scroll_to_cursor(self) -> None:
        """Scroll the tables so the cursor's cell is in view (after something else took room)."""
        if self.is_mounted:
            self._scroll_to_cursor()

    def _scroll_to_cursor(self) -> None:
        region = self.cell_region(self.row, self.col)
        gutter = self.styles.gutter
        region = region.translate(self.virtual_region.offset).translate((gutter.left, gutter.top))
        parent = self.parent
        # walk up like Widget.scroll_to_widget, but for one cell rather than the whole grid
        while isinstance(parent, Widget):
            if parent.is_scrollable and (parent.allow_horizontal_scroll or parent.allow_vertical_scroll):
                parent.scroll_to_region(region, animate=False, immediate=True)
                return
            region = region.translate(parent.virtual_region.offset).translate(parent.styles.gutter.top_left)
            parent = parent.parent

    def on_focus(self) -> None:
        self._refresh_row(self.row)
        self.refresh_bindings()
        self.post_message(self.CursorMoved(self))

    def on_blur(self) -> None:
        if self.editing:
            self.cancel_edit()
        self._refresh_row(self.row)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        shape = self.shape()
        r = offset.y - shape.top
        if not 0 <= r < len(self.spec.rows):
            return
        for c in range(len(self.spec.cols)):
            if self.cell_region(r, c).contains(offset.x, offset.y):
                self.move_to(r, c)
                if event.chain >= 2:
                    self.action_edit()
                return

    # ---- editing -------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # the footer offers "Edit" only on a cell that can be edited (a weight, a prompt token)
        if action == "edit":
            return self.ref is not None
        if action == "not_editable":
            return self.ref is None
        return True

    def action_not_editable(self) -> None:
        message = (
            "This value is computed from the weights. Edit a weight instead: the tables under "
            "“Weights it uses”, or ctrl+p → Edit parameter…"
        )
        refuse = getattr(self.app, "refuse", None)  # the app's one refusal notice, replaced not stacked
        if refuse is not None:
            refuse(message, title="Not editable", severity="warning")
        else:
            self.app.notify(message, title="Not editable", severity="warning")

    def action_edit(self) -> None:
        ref = self.ref
        if ref is None:
            self.action_not_editable()
            return
        if ref.kind != "param":
            self.post_message(self.PickRequested(self, ref))
            return
        self.editing, self.fresh, self.error = True, True, ""
        self.buffer = self.spec.cells[self.row][self.col]
        self._relayout()

    def cancel_edit(self) -> None:
        self.editing, self.error, self.buffer = False, "", ""
        self._relayout()

    def edit_refused(self, message: str) -> None:
        """The session said no: keep the editor open with the reason under the table."""
        self.error = message
        self._relayout()

    def _commit(self) -> None:
        ref = self.ref
        if ref is None:
            return
        if self.fresh:  # nothing typed: the value stays as it was
            self.cancel_edit()
            return
        self.post_message(self.EditSubmitted(self, ref, self.buffer))

    async def on_key(self, event: events.Key) -> None:
        if not self.editing:
            return
        # While the editor is open every key belongs to it, so digits and letters never move steps.
        event.stop()
        event.prevent_default()
        key = event.key
        if key == "enter":
            self._commit()
        elif key == "escape":
            self.cancel_edit()
        elif key == "backspace":
            self.buffer = "" if self.fresh else self.buffer[:-1]
        elif key in ("ctrl+u", "delete"):
            self.buffer = ""
        elif event.is_printable and event.character:
            self.buffer = (event.character if self.fresh else self.buffer + event.character)[:40]
        else:
            return
        if key != "enter":
            self.fresh = False
            self.error = "" if key == "escape" else self.error
        self._relayout()

    def on_paste(self, event: events.Paste) -> None:
        if self.editing:
            event.stop()
            self.buffer = (("" if self.fresh else self.buffer) + event.text.strip())[:40]
            self.fresh = False
            self._relayout()


def mark_free_shading(marks: frozenset[str]) -> bool:
    """Masked cells are drawn flat: their value is not part of the softmax."""
    return MASKED not in marks


__all__ = ["GLYPHS", "Grid"]
