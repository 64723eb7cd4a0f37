"""A labelled matrix with a cell cursor, shading, change marks and an in-place cell editor.

It draws a GridSpec and nothing else. Styles come from COMPONENT_CLASSES (theme variables in TCSS) and
shading from themes.scale; every mark also has a glyph (▲ ▼ ◆ * ×) so nothing is colour alone.

This module holds the widget itself: its keys, styles and messages, its state, taking in new data and
the shading's key in its bottom border. The rest is in mixins, one module each: drawing its lines
(grid_draw), where it sits and what of it its scrolling pane shows (grid_view), the cursor
(grid_cursor) and the cell editor (grid_editor).
"""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.geometry import Offset, Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from tinytui.present.grid_layout import Shape
from tinytui.present.grid_spec import CellRef, GridSpec, Source
from tinytui.tui.widgets.grid.cell_editor import GridEditor
from tinytui.tui.widgets.grid.cursor import GridCursor
from tinytui.tui.widgets.grid.drawing_lines import WHOLE, GridDrawing
from tinytui.tui.widgets.grid.placement import GridView
from tinytui.tui.widgets.grid.style import shading_key
from tinytui.tui.widgets.lean import SettledSize, SharedComponentStyles


# The mixins come before Widget: Textual calls a handler (on_key, on_click, on_focus, ...) of every class
# in the order of the MRO, so each of theirs still runs before Widget's own, as when they were Grid's.
class Grid(
    SharedComponentStyles, SettledSize, GridDrawing, GridView, GridCursor, GridEditor, Widget, can_focus=True
):
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

    def source_at(self, row: int, col: int) -> Source | None:
        sources = self.spec.sources
        if not sources or not 0 <= row < len(sources) or not 0 <= col < len(sources[row]):
            return None
        return sources[row][col]

    def find(self, source: Source) -> tuple[int, int] | None:
        """Where this grid shows a run's cell (row, col), or None (the spec's lookup, made once)."""
        return self.spec.where.get(source)

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
        self._follow_pane()

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
