"""Where a Grid's table sits and what of it is drawn: its shape and size, which lines to draw again,
the window of it its scrolling pane shows, and scrolling that pane to the cursor's cell.

A table in a scrolling pane keeps its labels in view: scrolled sideways, the row labels are drawn at
the pane's left edge over the cells that went under it; scrolled down, the column header is drawn at
the pane's top. Only the columns on screen are drawn, and each drawn line is kept until its cells, the
theme or that window change (grid_draw draws them). GridView is a mixin of Grid: it reads the grid's
spec, cursor and editor and keeps the grid's shape, line caches and window.
"""

from __future__ import annotations

from dataclasses import replace

from textual.geometry import Offset, Region, Size
from textual.widget import Widget

from tinytui.present.grid_layout import Shape, can_be_narrow
from tinytui.tui.widgets.grid.drawing_lines import ALL, WHOLE, Window


class GridView:
    """Grid's geometry: its shape, the lines it draws again, its pane's window, the cursor kept in view."""

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
    def _follow_pane(self) -> None:
        """Find the scrolling pane the table sits in (#main), if any, and follow its scrolls and layouts."""
        self._scroller = next((n for n in self.ancestors if isinstance(n, Widget) and _scrolls(n)), None)
        if self._scroller is not None:
            # a scroll moves the labels: watched as it is set, so they move in the same frame
            self.watch(self._scroller, "scroll_x", self._update_view, init=False)
            self.watch(self._scroller, "scroll_y", self._update_view, init=False)
            self.screen.screen_layout_refresh_signal.subscribe(self, self._laid_out, immediate=True)

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

    # ---- the cursor's cell in view -------------------------------------------------------------
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


def _scrolls(widget: Widget) -> bool:
    """Whether a widget is a scrolling pane (its overflow scrolls either way)."""
    return widget.styles.overflow_x in ("auto", "scroll") or widget.styles.overflow_y in ("auto", "scroll")
