"""What a Grid's cursor is on, and moving it: by the arrows, by a click, by taking or losing the focus.

The cursor can sit on a label (left of column 0, above row 0): the inspector then explains the label.
GridCursor is a mixin of Grid: it reads the grid's spec, shape() and window (grid_view), closes the
editor when the grid loses the focus and opens it on a double click (grid_editor), and posts CursorMoved.
"""

from __future__ import annotations

from textual import events

from tinytui.present.grid_labels import COLUMN, CORNER, ROW, Label
from tinytui.present.grid_spec import CellRef, Source


class GridCursor:
    """Grid's cursor: the cell or label under it, the keys and clicks that move it."""

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

    # ---- moving it -----------------------------------------------------------------------------
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
