"""The step view's cursor: which table, row and column it is on (row or column -1 on a label), what is
there (the spec, the weight's reference, the run's cell, the inspector's words), and how it moves: the
arrows, Tab and Shift+Tab from table to table, a click. Mixed into StepView, whose layout (blocks) it
reads and whose lines it refreshes; the bindings that call it are StepView's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.geometry import Region

from tinytui.present.grid_spec import CellRef, GridSpec, Source
from tinytui.present.step_layout import Box, StepLayout
from tinytui.tui.widgets.cell_editor import CellEdit, editor_detail
from tinytui.tui.widgets.step_geometry import cell_at, cell_region, cursor_view

if TYPE_CHECKING:  # a label's: imported when the cursor is on one
    from tinytui.present.grid_labels import Label


class TableCursor:
    """The cursor of a view that shows tables laid out in blocks (StepView)."""

    blocks: StepLayout
    table: int
    row: int
    col: int
    editor: CellEdit | None

    @property
    def cursor_box(self) -> Box | None:
        """The table the cursor is in, or None when the step shows none."""
        boxes = self.blocks.boxes
        return boxes[self.table] if 0 <= self.table < len(boxes) else None

    def _cursor_key(self) -> str | None:
        box = self.cursor_box
        return box.item.key if box is not None else None

    def _refind_cursor(self, key: str | None, row: int, col: int) -> None:
        """Put the cursor in the layout just taken: in the table of this key at (row, col), kept inside
        it, or on the step's first table when no table has the key. Every change of self.blocks ends
        here, so self.table is always an index into the tables shown (0 when there are none)."""
        boxes = self.blocks.boxes
        found = next((b.index for b in boxes if key is not None and b.item.key == key), None)
        if found is None:
            self.table, self.row, self.col = self._first_table(), 0, 0
        else:
            self.table, self.row, self.col = found, row, col
        item = self.cursor_box.item if self.cursor_box is not None else None
        if isinstance(item, GridSpec):
            rows, cols = item.shape
            self.row, self.col = max(min(self.row, rows - 1), -1), max(min(self.col, cols - 1), -1)
        else:
            self.row, self.col = 0, 0

    def _first_table(self) -> int:
        return next((b.index for b in self.blocks.boxes if isinstance(b.item, GridSpec)), 0)

    def find(self, source: Source) -> tuple[int, int, int] | None:
        """Where the view shows a run's cell: (table, row, col), the first table that has it."""
        for box in self.blocks.boxes:
            if isinstance(box.item, GridSpec):
                at = box.item.where.get(source)
                if at is not None:
                    return box.index, *at
        return None

    @property
    def spec(self) -> GridSpec | None:
        box = self.cursor_box
        item = box.item if box is not None else None
        return item if isinstance(item, GridSpec) else None

    @property
    def on_cell(self) -> bool:
        spec = self.spec
        return spec is not None and 0 <= self.row < spec.shape[0] and 0 <= self.col < spec.shape[1]

    @property
    def ref(self) -> CellRef | None:
        return self.spec.refs[self.row][self.col] if self.on_cell else None  # type: ignore[union-attr]

    @property
    def source(self) -> Source | None:
        spec = self.spec
        if not self.on_cell or spec is None or not spec.sources:
            return None
        return spec.sources[self.row][self.col]

    @property
    def detail(self) -> str:
        ref = self.ref
        if self.editor is not None and ref is not None:  # the inspector says how to finish
            return editor_detail(ref.label)
        if not self.on_cell:
            return ""
        # the cell's line alone, not its row's (a d_model 64 weight's row has 64 of them)
        return self.spec.details.part(self.row, self.col, self.col + 1)[0]  # type: ignore[union-attr]

    @property
    def label(self) -> Label | None:
        spec = self.spec
        if spec is None or self.on_cell or not spec.rows or not spec.cols:
            return None
        from tinytui.present.grid_labels import COLUMN, CORNER, ROW, Label

        if self.row < 0 and self.col < 0:
            return Label(CORNER, spec.corner, 0, spec.title)
        if self.col < 0:
            return Label(ROW, spec.rows[self.row], self.row, spec.title)
        return Label(COLUMN, spec.cols[self.col], self.col, spec.title)

    def cell_classes(self, row: int, col: int) -> frozenset[str]:
        """The marks of a cell of the cursor's table."""
        spec = self.spec
        return spec.marks[row][col] if spec is not None else frozenset()

    def tables(self) -> list[GridSpec]:
        return [b.item for b in self.blocks.boxes if isinstance(b.item, GridSpec)]

    def box_of(self, key: str) -> Box | None:
        return next((b for b in self.blocks.boxes if b.item.key == key), None)

    def _next_table(self, step: int) -> int | None:
        boxes = self.blocks.boxes
        i = self.table + step
        while i in range(len(boxes)):
            if isinstance(boxes[i].item, GridSpec):
                return i
            i += step
        return None

    def action_table(self, direction: int) -> None:
        nxt = self._next_table(direction)
        if nxt is not None:
            self.move_to(0, 0, table=nxt)
            return
        # past the last table (before the first, going back): the focus moves on, and the cursor waits
        # on the first table (the last) so that the next Tab into the view goes round them all again
        ends = [b.index for b in self.blocks.boxes if isinstance(b.item, GridSpec)]
        old = self.cursor_box
        if ends:  # a page of bars alone (the presenter's step 14) has no table to wait on
            self.table, self.row, self.col = (ends[0] if direction > 0 else ends[-1]), 0, 0
        if old is not None:
            self._refresh_box(old)
        if direction > 0:
            self.screen.focus_next()
        else:
            self.screen.focus_previous()

    def action_move(self, dr: int, dc: int) -> None:
        spec = self.spec
        if spec is None or not spec.rows or not spec.cols:
            return
        rows, cols = spec.shape
        self.move_to(min(max(self.row + dr, -1), rows - 1), min(max(self.col + dc, -1), cols - 1))

    def move_to(self, row: int, col: int, table: int | None = None) -> None:
        if self.editor is not None:  # a click on another cell while typing: the typing is dropped
            self.close_editor(refocus=False)
        old = self.cursor_box
        old_line = self.row
        if table is not None and table != self.table and 0 <= table < len(self.blocks.boxes):
            self.table = table
            if old is not None:
                self._refresh_box(old)
            self._refresh_box(self.blocks.boxes[table])
        elif old is not None:
            self._refresh_box_line(old, old.first_row + old_line)
        self.row, self.col = row, col
        box = self.cursor_box
        if box is not None:
            self._refresh_box_line(box, box.first_row + row)
            self.scroll_to_cursor()
        self.refresh_bindings()
        self._cursor_moved()

    def cell_region(self) -> Region | None:
        """The cursor's cell (or label) in the view's virtual space; None when the step has no table."""
        box = self.cursor_box
        return cell_region(box, self.row, self.col) if box is not None else None

    def scroll_to_cursor(self) -> None:
        box = self.cursor_box
        if box is None:
            return
        region, spacing = cursor_view(box, self.row, self.col)
        self.scroll_to_region(region, spacing=spacing, animate=False, immediate=True)

    def _cursor_moved(self) -> None:
        """The cursor moved (or the view took the focus): the app's inspector is told at once
        (TinyTuiApp.cursor_moved), so it is drawn in the frame that draws the cursor; a posted message
        would reach it a frame later."""
        moved = getattr(self.app, "cursor_moved", None)
        if moved is not None:
            moved(self)

    def on_focus(self) -> None:
        if self.cursor_box is not None:
            self._refresh_box(self.cursor_box)
            self.scroll_to_cursor()  # back by Tab, the cursor may wait on a table out of view
        self.refresh_bindings()
        self._cursor_moved()

    def on_blur(self) -> None:
        if self.editor is not None:  # a click elsewhere: what was typed is dropped, as Esc would
            self.close_editor(refocus=False)
        if self.cursor_box is not None:
            self._refresh_box(self.cursor_box)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        at = cell_at(self.blocks, offset.x + self.scroll_offset.x, offset.y + self.scroll_offset.y)
        if at is None:
            return
        box, row, col = at
        self.move_to(row, col, table=box.index)
        if event.chain >= 2 and self.on_cell:
            self.action_edit()
