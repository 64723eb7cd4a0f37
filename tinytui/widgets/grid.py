"""A labelled matrix with a cell cursor, shading, change marks and an in-place cell editor.

It draws a GridSpec and nothing else. Styles come from COMPONENT_CLASSES (theme variables in TCSS) and
shading from themes.scale; every mark also has a glyph (▲ ▼ ◆ * ×) so nothing is colour alone.
"""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.color import Color
from textual.geometry import Region, Size
from textual.message import Message
from textual.widget import Widget

from tinytui.themes import legend
from tinytui.themes.scale import diverging, heat, readable_on
from tinytui.widgets.cells import (
    DOWN,
    EDITED,
    GLYPHS,
    MASKED,
    PRECEDENCE,
    UP,
    CellRef,
    GridSpec,
    glyph,
)

_MARK_CLASS = {
    EDITED: "grid--edited",
    UP: "grid--changed-up",
    DOWN: "grid--changed-down",
    "changed": "grid--changed",
    MASKED: "grid--masked",
}


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

    # ---- data ----------------------------------------------------------------------------------
    def set_spec(self, spec: GridSpec) -> None:
        self.spec = spec
        self.border_title = spec.title
        self.show_legend()
        rows, cols = spec.shape
        self.row, self.col = min(self.row, max(rows - 1, 0)), min(self.col, max(cols - 1, 0))
        self.refresh(layout=True)

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
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.show_legend())

    def legend(self) -> Text | None:
        """The key to this grid's shading: 0 … 1 for heat, −limit … 0 … +limit for signed values.

        As many shaded cells as fit under the table (the numbers at the ends always show)."""
        spec = self.spec
        shaded = any(v is not None for row in spec.values for v in row)
        if spec.shade not in ("heat", "diverging") or not shaded:
            return None
        room = self.get_content_width(Size(0, 0), Size(0, 0))
        limit = 1.0 if spec.shade == "heat" else spec.limit
        variables = self.app.theme_variables
        for cells in (10, 8, 6, 4, 2):
            key = legend(variables, spec.shade, limit=limit, width=cells)
            if key.cell_len <= room:
                return key
        return key

    def show_legend(self) -> None:
        self.legend_text = self.legend()  # what the border shows (tests read it)
        self.border_subtitle = self.legend_text

    # ---- layout --------------------------------------------------------------------------------
    def _widths(self) -> tuple[int, list[int]]:
        spec = self.spec
        label_w = max([len(spec.corner), *(len(r) for r in spec.rows)], default=0)
        widths = []
        for c, col in enumerate(spec.cols):
            w = max([len(col), *(len(row[c]) for row in spec.cells)], default=0)
            if self.editing and c == self.col:
                w = max(w, len(self.buffer) + 1)
            widths.append(w)
        # a header group wider than its columns widens the last of them
        start = 0
        for label, span in spec.groups:
            inner = sum(widths[start : start + span]) + 2 * span
            if span and len(label) + 1 > inner:
                widths[start + span - 1] += len(label) + 1 - inner
            start += span
        return label_w, widths

    def _group_starts(self) -> set[int]:
        """Columns that open a new group (a second head): a rule is drawn before them."""
        starts, at = set(), 0
        for _, span in self.spec.groups:
            if at:
                starts.add(at)
            at += span
        return starts

    def natural_width(self) -> int:
        """Columns the grid needs, border and padding included."""
        return self.get_content_width(Size(0, 0), Size(0, 0)) + 4

    def get_content_width(self, container: Size, viewport: Size) -> int:
        label_w, widths = self._widths()
        table = label_w + sum(w + 2 for w in widths) + len(self._group_starts())
        return max(table, len(self.spec.title) + 2, *(len(x) for x in self._footer_lines()))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return (1 if self.spec.groups else 0) + 1 + len(self.spec.rows) + len(self._footer_lines())

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
        label_w, widths = self._widths()
        x = label_w + sum(w + 2 for w in widths[:col]) + sum(1 for s in self._group_starts() if s <= col)
        y = (1 if self.spec.groups else 0) + 1 + row
        return Region(x, y, widths[col] + 2, 1)

    # ---- drawing -------------------------------------------------------------------------------
    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(name, partial=True)

    def _cell_style(self, r: int, c: int) -> Style:
        spec = self.spec
        marks = spec.marks[r][c]
        for mark in PRECEDENCE:
            if mark in marks:
                style = self._style(_MARK_CLASS.get(mark, "grid--changed"))
                break
        else:
            style = Style()
        if not style.bgcolor and mark_free_shading(marks):
            value = spec.values[r][c]
            if value is not None and spec.shade:
                variables = self.app.theme_variables
                if spec.shade == "heat":
                    bg = heat(variables, value)
                else:
                    bg = diverging(variables, value, spec.limit)
                style = Style(bgcolor=bg.rich_color) + style
        if style.bgcolor and not style.color:
            style += Style(color=readable_on(Color.from_rich_color(style.bgcolor)).rich_color)
        return style

    def render(self) -> Text:
        spec = self.spec
        label_w, widths = self._widths()
        out = Text(no_wrap=True, overflow="ignore", end="")
        header, label_style = self._style("grid--header"), self._style("grid--label")
        starts = self._group_starts()
        if spec.groups:
            out.append(" " * label_w)
            start = 0
            for label, span in spec.groups:
                if start in starts:
                    out.append("│", label_style)
                inner = sum(w + 2 for w in widths[start : start + span])
                out.append(label.center(inner) if label else " " * inner, header)
                start += span
            out.append("\n")
        out.append(spec.corner.ljust(label_w), header)
        for c, (col, w) in enumerate(zip(spec.cols, widths)):
            if c in starts:
                out.append("│", label_style)
            out.append(" " + col.rjust(w) + " ", header)
        for r, row_label in enumerate(spec.rows):
            out.append("\n")
            out.append(row_label.ljust(label_w), label_style)
            for c, w in enumerate(widths):
                if c in starts:
                    out.append("│", label_style)
                out.append_text(self._cell(r, c, w))
        for i, line in enumerate(self._footer_lines()):
            out.append("\n")
            out.append(line, self._style("grid--error" if i else "grid--hint"))
        return out

    def _cell(self, r: int, c: int, w: int) -> Text:
        here = (r, c) == (self.row, self.col)
        if self.editing and here:
            shown = self.buffer + "▏"
            return Text(" " + shown.rjust(w) + " ", style=self._style("grid--editor"))
        style = self._cell_style(r, c)
        if here and self.has_focus:
            style += self._style("grid--cursor")
        return Text(" " + self.spec.cells[r][c].rjust(w) + glyph(self.spec.marks[r][c]), style=style)

    # ---- cursor --------------------------------------------------------------------------------
    def action_move(self, dr: int, dc: int) -> None:
        rows, cols = self.spec.shape
        self.move_to(min(max(self.row + dr, 0), rows - 1), min(max(self.col + dc, 0), cols - 1))

    def move_to(self, row: int, col: int) -> None:
        self.row, self.col = row, col
        self.refresh()
        self._scroll_to_cursor()
        self.post_message(self.CursorMoved(self))

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
        self.refresh()
        self.post_message(self.CursorMoved(self))

    def on_blur(self) -> None:
        if self.editing:
            self.cancel_edit()
        self.refresh()

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        for r in range(len(self.spec.rows)):
            for c in range(len(self.spec.cols)):
                if self.cell_region(r, c).contains(offset.x, offset.y):
                    self.move_to(r, c)
                    if event.chain >= 2:
                        self.action_edit()
                    return

    # ---- editing -------------------------------------------------------------------------------
    def action_edit(self) -> None:
        ref = self.ref
        if ref is None:
            self.app.notify(
                "This value is computed from the weights. Edit a weight instead: the tables under "
                "“Weights it uses”, or ctrl+p → Edit parameter…",
                title="Not editable",
                severity="warning",
            )
            return
        if ref.kind != "param":
            self.post_message(self.PickRequested(self, ref))
            return
        self.editing, self.fresh, self.error = True, True, ""
        self.buffer = self.spec.cells[self.row][self.col]
        self.refresh(layout=True)

    def cancel_edit(self) -> None:
        self.editing, self.error, self.buffer = False, "", ""
        self.refresh(layout=True)

    def edit_refused(self, message: str) -> None:
        """The session said no: keep the editor open with the reason under the table."""
        self.error = message
        self.refresh(layout=True)

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
        self.refresh(layout=True)

    def on_paste(self, event: events.Paste) -> None:
        if self.editing:
            event.stop()
            self.buffer = (("" if self.fresh else self.buffer) + event.text.strip())[:40]
            self.fresh = False
            self.refresh(layout=True)


def mark_free_shading(marks: frozenset[str]) -> bool:
    """Masked cells are drawn flat: their value is not part of the softmax."""
    return MASKED not in marks


__all__ = ["GLYPHS", "Grid"]
