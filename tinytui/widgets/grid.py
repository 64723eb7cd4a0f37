"""A labelled matrix with a cell cursor, shading, change marks and an in-place cell editor.

It draws a GridSpec and nothing else. Styles come from COMPONENT_CLASSES (theme variables in TCSS) and
shading from themes.scale; every mark also has a glyph (▲ ▼ ◆ * ×) so nothing is colour alone.

A table in a scrolling pane keeps its labels in view: scrolled sideways, the row labels are drawn at
the pane's left edge over the cells that went under it; scrolled down, the column header is drawn at
the pane's top. Only the columns on screen are drawn, and each drawn line is kept until its cells, the
theme or that window change. The cursor can sit on a label (left of column 0, above row 0): the
inspector then explains the label.
"""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Offset, Region, Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from tinytui.widgets.cells import GLYPHS, CellRef, GridSpec, Source
from tinytui.widgets.grid_draw import ALL, LIT, WHOLE, GridDrawing, Window
from tinytui.widgets.grid_labels import COLUMN, CORNER, ROW, Label
from tinytui.widgets.grid_layout import Shape, can_be_narrow
from tinytui.widgets.grid_style import shading_key
from tinytui.widgets.lean import SettledSize, SharedComponentStyles


class Grid(SharedComponentStyles, SettledSize, GridDrawing, Widget, can_focus=True):
    """One table of numbers. Arrows move the cursor (onto the labels too); Enter or e edits a weight
    (or picks a token)."""

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
        """The cursor moved (or the grid took focus); label is the label it is on, or None on a cell."""

        def __init__(self, grid: Grid) -> None:
            super().__init__()
            self.grid = grid
            self.label = grid.label

    def __init__(self, spec: GridSpec, **kwargs) -> None:
        super().__init__(**kwargs)
        self.spec = spec
        self.row, self.col = 0, 0  # -1: on the labels (col -1 the row labels, row -1 the column header)
        self.editing = False
        self.buffer = ""
        self.fresh = False  # the editor still shows the old value: the first key typed replaces it
        self.error = ""
        self.add_class(spec.role)
        self.border_title = spec.title
        self.legend_text: Text | None = None  # the shading's key, once mounted
        self._shape: Shape | None = None  # label width, column widths, rule positions: see shape()
        self._lines: dict[int, Strip] = {}  # each drawn content line, until its cells or the window change
        self._bodies: dict[int, tuple[int, int, Strip]] = {}  # a row's cells, kept across scrolls (grid_draw)
        self._epoch: tuple = ()  # (theme, base style, focus): the cached lines were drawn with it
        self._styles: dict[str, Style] = {}  # component styles, for this epoch
        self.lit: frozenset[tuple[int, int]] = frozenset()  # cells the focused value reads (the overlay)
        self._where: tuple[GridSpec, dict[Source, tuple[int, int]]] | None = None  # source -> cell
        self._scroller: Widget | None = None  # the scrolling pane the table sits in (#main), if any
        self._origin: Offset | None = None  # where this table's content starts in that pane's content
        self._win = WHOLE  # what of the table the cached lines show (see Window)
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
            self._shape, self._lines, self._bodies = None, {}, {}
            return
        before = self._shape
        self._shape = None
        self.show_legend()  # its room is the new table's width
        if before is None or self.shape() != before:
            self._redraw(layout=True)
            return
        if (old.shade, old.limit, old.corner, old.cols, old.groups) != (
            spec.shade,
            spec.limit,
            spec.corner,
            spec.cols,
            spec.groups,
        ):
            self._redraw()
            return
        for r in range(rows):
            if (
                old.rows[r] != spec.rows[r]
                or old.cells[r] != spec.cells[r]
                or old.marks[r] != spec.marks[r]
                or old.values[r] != spec.values[r]
            ):
                self._refresh_row(r)

    def reset(self, spec: GridSpec) -> None:
        """Show a different table in this widget (a pooled widget reused for another step)."""
        self.editing, self.buffer, self.fresh, self.error = False, "", False, ""
        self.row, self.col = 0, 0
        self.lit = frozenset()
        self.set_spec(spec)

    @property
    def on_cell(self) -> bool:
        """Whether the cursor is on a cell (not on a label) of a table that has cells."""
        rows, cols = self.spec.shape
        return 0 <= self.row < rows and 0 <= self.col < cols

    @property
    def ref(self) -> CellRef | None:
        return self.spec.refs[self.row][self.col] if self.on_cell else None

    @property
    def detail(self) -> str:
        """The inspector line for the cell under the cursor (a label's is the why controller's)."""
        return self.spec.details[self.row][self.col] if self.on_cell else ""

    @property
    def label(self) -> Label | None:
        """The label under the cursor: a row label, a column label or the corner; None on a cell."""
        rows, cols = self.spec.shape
        if not rows or not cols or self.on_cell:
            return None
        title = self.spec.title
        if self.row < 0 and self.col < 0:
            return Label(CORNER, self.spec.corner, 0, title)
        if self.col < 0:
            return Label(ROW, self.spec.rows[self.row], self.row, title)
        return Label(COLUMN, self.spec.cols[self.col], self.col, title)

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
        for r in changed:
            if 0 <= r < len(self.spec.rows):
                self._refresh_row(r)

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
        self._scroller = next((n for n in self.ancestors if isinstance(n, Widget) and _scrolls(n)), None)
        if self._scroller is not None:
            # a scroll moves the labels: watched as it is set, so they move in the same frame
            self.watch(self._scroller, "scroll_x", self._update_view, init=False)
            self.watch(self._scroller, "scroll_y", self._update_view, init=False)
            self.screen.screen_layout_refresh_signal.subscribe(self, self._laid_out, immediate=True)

    def _theme_changed(self) -> None:
        self._lines, self._bodies = {}, {}
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
        return shading_key(self.app.theme, self.app.theme_variables, spec.shade, limit, room)

    def show_legend(self) -> None:
        key = self.legend()
        if key != self.legend_text:
            self.legend_text = key  # what the border shows (tests read it)
            self.border_subtitle = key

    # ---- layout --------------------------------------------------------------------------------
    def shape(self) -> Shape:
        """Where everything sits; worked out once per spec (and per editor width, and per room when
        the table is a heatmap too wide for it)."""
        if self._shape is None:
            editing = self.col if self.editing else -1
            shape = Shape.of(self.spec, editing, len(self.buffer) + 1, self._room())
            self._shape = replace(shape, footer=tuple(self._footer_lines()))
        return self._shape

    def _room(self) -> int | None:
        """Content columns the pane shows, or None outside a pane (or before it is laid out)."""
        pane = self._scroller
        if pane is None or not self.is_mounted:
            return None
        width = pane.scrollable_content_region.width
        return width - self.styles.gutter.width - self.styles.margin.width if width > 0 else None

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
        """Where a cell sits inside the widget's content area (col -1: its row label; row -1: the
        column header)."""
        shape = self.shape()
        if col < 0:
            return Region(0, shape.top + row, shape.label_w, 1)
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
        self._redraw(layout=True)

    def _redraw(self, layout: bool = False) -> None:
        """Every line again (the table's columns or size changed)."""
        self._lines, self._bodies = {}, {}
        self._win = self._window()
        self.refresh(layout=layout)

    def _refresh_row(self, row: int) -> None:
        """Draw a row again (row -1: the column header, in its place and where it is pinned)."""
        top = self.shape().top
        lines = {top + row}
        if row < 0 and self._win.hy:
            lines.add(self._win.hy + top - 1)
        for y in lines:
            self._refresh_line(y)

    def _refresh_line(self, y: int, cells: bool = True) -> None:
        """Draw line y again; cells=False: only where it is shown changed (its kept cells stay)."""
        self._lines.pop(y, None)
        if cells:
            self._bodies.pop(y, None)
        self.refresh(Region(0, y, max(self.size.width, 1), 1))

    # ---- what of the table is on screen ---------------------------------------------------------
    def _laid_out(self, _screen: object = None) -> None:
        """After any layout: where the table now sits in its pane, and whether its room changed."""
        if not self.is_mounted or self._scroller is None:
            return
        self._origin = self._find_origin(self._scroller)
        shape = self._shape
        if shape is not None:
            room = self._room()
            wide = room is not None and shape.natural > room
            # (a heatmap of few positions pans instead: asking again would lay it out on every frame)
            if wide != shape.narrow and (shape.narrow or can_be_narrow(self.spec)):
                self._shape = None  # a heatmap that now fits, or no longer does
                self.show_legend()
                self._redraw(layout=True)
                return
        self._update_view()

    def _find_origin(self, pane: Widget) -> Offset | None:
        """The content's top left in the pane's content (scroll-independent), as Textual placed it."""
        at = self.virtual_region.offset + self.styles.gutter.top_left
        node = self.parent
        while isinstance(node, Widget) and node is not pane:
            at += node.virtual_region.offset + node.styles.gutter.top_left
            node = node.parent
        return at if node is pane else None

    def _window(self) -> Window:
        """What of the table the pane shows now: where the labels go, how far right to draw."""
        pane, origin = self._scroller, self._origin
        if pane is None or origin is None or self._shape is None:
            return WHOLE
        shape = self._shape
        sx, sy = pane.scroll_offset
        left, above = sx - origin.x, sy - origin.y  # the pane's first column and line, in ours
        ox = min(max(left, 0), max(shape.table_width - shape.label_w, 0))
        hy = min(max(above, 0), max(shape.rows - 1, 0))
        x1 = max(left + pane.scrollable_content_region.width, 0)
        return Window(ox, hy, ALL if x1 >= shape.table_width else x1)

    @property
    def window(self) -> Window:
        """What of the table is drawn: where the row labels and the header are pinned (tests read it)."""
        return self._win

    def _update_view(self) -> None:
        """The pane scrolled (or moved the table): draw again only what that changes."""
        if not self.is_mounted or self._shape is None:
            return
        old, new = self._win, self._window()
        if new == old:
            return
        self._win = new
        if (new.ox, new.x1) != (old.ox, old.x1):
            self._lines = {}  # the row labels moved over other cells: every line, from its kept cells
            self.refresh()
            return
        top = self._shape.top  # only the header moved: the lines it left and the lines it covers
        for y in {*range(old.hy, old.hy + top), *range(new.hy, new.hy + top)}:
            self._refresh_line(y, cells=False)

    # ---- cursor --------------------------------------------------------------------------------
    def action_move(self, dr: int, dc: int) -> None:
        """One cell over; left of column 0 is the row label, above row 0 the column label."""
        rows, cols = self.spec.shape
        if not rows or not cols:
            return
        self.move_to(min(max(self.row + dr, -1), rows - 1), min(max(self.col + dc, -1), cols - 1))

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
        """Scroll the pane so the cursor's cell shows clear of the pinned labels and header; on the
        first column or row, so the table's edge (border and title) shows too. A pinned label under
        the cursor is in view already: the pane stays where it is."""
        shape, win, gutter = self.shape(), self._win, self.styles.gutter
        if self.col < 0 and win.ox:
            x, right = win.ox, win.ox + shape.label_w
        elif self.col <= 0:
            x, right = -gutter.left, shape.label_w + (shape.widths[0] + 2 if self.col == 0 else 0)
        else:
            x, right = shape.xs[self.col] - shape.label_w, shape.xs[self.col] + shape.widths[self.col] + 2
        if self.row < 0 and win.hy:
            y, bottom = win.hy, win.hy + shape.top
        elif self.row <= 0:
            y, bottom = -gutter.top, shape.top + max(self.row, 0) + 1
        else:
            y, bottom = self.row, shape.top + self.row + 1
        region = Region(x, y, right - x, bottom - y)
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

    def at(self, x: int, y: int) -> tuple[int, int] | None:
        """The (row, col) drawn at content offset (x, y), labels included (-1), or None."""
        shape, win = self.shape(), self._win
        line = y - win.hy if win.hy and win.hy <= y < win.hy + shape.top else y
        r = line - shape.top
        if not -1 <= r < len(self.spec.rows):
            return None
        if win.ox <= x < win.ox + shape.label_w:
            return r, -1
        for c in shape.columns_in(x, x + 1):
            if shape.xs[c] <= x < shape.xs[c] + shape.widths[c] + 2:
                return r, c
        return None

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or (hit := self.at(offset.x, offset.y)) is None:
            return
        self.move_to(*hit)
        if event.chain >= 2 and self.on_cell:
            self.action_edit()

    # ---- editing -------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # the footer offers "Edit" only on a cell that can be edited (a weight, a prompt token)
        if action == "edit":
            return self.ref is not None
        if action == "not_editable":
            return self.ref is None
        return True

    def action_not_editable(self) -> None:
        if self.label is not None:
            message = "A label has nothing to edit: the arrows go back to the numbers."
        else:
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
            # nothing to draw yet: the app draws the edit's outcome (the new tables, or the refusal)
            self._commit()
            return
        if key == "escape":
            self.cancel_edit()
        elif key == "backspace":
            self.buffer = "" if self.fresh else self.buffer[:-1]
        elif key in ("ctrl+u", "delete"):
            self.buffer = ""
        elif event.is_printable and event.character:
            self.buffer = (event.character if self.fresh else self.buffer + event.character)[:40]
        else:
            return
        self.fresh = False
        self.error = "" if key == "escape" else self.error
        self._relayout()

    def on_paste(self, event: events.Paste) -> None:
        if self.editing:
            event.stop()
            self.buffer = (("" if self.fresh else self.buffer) + event.text.strip())[:40]
            self.fresh = False
            self._relayout()


__all__ = ["GLYPHS", "LIT", "Grid"]


def _scrolls(widget: Widget) -> bool:
    """Whether a widget is a scrolling pane (its overflow scrolls either way)."""
    return widget.styles.overflow_x in ("auto", "scroll") or widget.styles.overflow_y in ("auto", "scroll")
