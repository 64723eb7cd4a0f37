"""A step's tables drawn by one focusable widget on Textual's Line API (a ScrollView with render_line).

show_sections lays the step out once (tinytui.present.step_layout: a heading per section, a framed
block per table, side by side when they fit, heads under each other when they do not) and sets
virtual_size. render_line(y) draws the screen's line y from the blocks that have it: each block's line
comes from an LRUCache keyed by what it shows (the table, its line's version from LineVersions, where the
cursor is on it, the operand marks on it, focus), and the screen line from another keyed by the block
lines it is made of and the scroll, so a redraw that changed nothing draws nothing. A new spec bumps the
version of only the lines whose cells differ; the cursor, an operand mark or a typed value redraws only
its lines. Both caches are cleared in one place (_clear_caches), when the theme changes. What is asked
to be drawn again is rows of the view, compared once the handlers of a key are done (on_idle) with the
lines the terminal shows (those Textual was given last): a row that comes out the same is not sent again
(the gradients' overlay at step 9 asks for every row, and 6 of them change).
Scrolled past a table's top, its title and column header stay pinned at the top of the view; scrolled
sideways past its left edge, its row labels stay at the left edge (as DataTable's fixed rows and columns
do).

The cursor (table_cursor.TableCursor) is (table, row, column), row or column -1 on a label. Tab and
Shift+Tab go from table to table inside the view (past the last one, on to the next widget). Enter or e
edits a weight in its own cell (cell_editor.CellEditing: typed there, drawn by the view, Enter commits,
Esc cancels), or asks for a pick on a token. The lines themselves are step_lines' Painter's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tinytui.present.backward_tables import pane_sections
from tinytui.present.grid_spec import CellRef, GridSpec, Item, Section
from tinytui.present.step_layout import Box, LayoutKept, StepLayout, lay_out
from tinytui.present.step_words import SHORT_HEIGHT, step_words
from tinytui.present.view import View, ViewPart
from tinytui.tui.widgets.cell_editor import CellEdit, CellEditing
from tinytui.tui.widgets.line_styles import LineStyles
from tinytui.tui.widgets.line_versions import LineVersions
from tinytui.tui.widgets.looks import look_style
from tinytui.tui.widgets.prose_lines import heading_line, words_line, wrap_words
from tinytui.tui.widgets.screen_line import Line, cut_at_right, cut_to, extended, pin_labels, placed
from tinytui.tui.widgets.step_geometry import (
    header_pinned,
    labels_pinned,
    line_of,
    same_rows,
    window,
)
from tinytui.tui.widgets.step_lines import Painter
from tinytui.tui.widgets.step_looks import LOOKS
from tinytui.tui.widgets.step_pages import one_page, page_count, page_holding
from tinytui.tui.widgets.table_cursor import TableCursor
from tinytui.tui.widgets.virtual_size import set_virtual_size

PRESENTER_MARGIN = 3  # the presenter's room left of each table (and a line above it)
LINES_KEPT = 16384  # lines kept drawn (a big model's step has a few hundred; revisited steps hit)
LAYOUTS_KEPT = 64  # step layouts kept (every step of a model, both ways, and a few more)
WORDS_KEPT = 64  # steps' words kept wrapped
PROSE_KEPT = 512  # the words' and headings' lines kept drawn for the screen (a step has tens)
SHAPES_KEPT = 512  # tables' shapes kept, by what they are made of


class StepView(CellEditing, TableCursor, ViewPart, ScrollView, can_focus=True):
    """Every table of a step. Arrows move the cursor (onto the labels too); Tab goes to the next table;
    Enter or e edits a weight (or picks a token)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1, 0)", "Cell up", show=False, id="cell-up"),
        Binding("down", "move(1, 0)", "Cell down", show=False, id="cell-down"),
        Binding("left", "move(0, -1)", "Cell left", show=False, id="cell-left"),
        Binding("right", "move(0, 1)", "Cell right", show=False, id="cell-right"),
        Binding("tab", "table(1)", "Next table", show=False, id="next-table"),
        Binding("shift+tab", "table(-1)", "Previous table", show=False, id="previous-table"),
        # priority: the editor opens as the key arrives, before the keys typed after it reach the view
        # (e, 1, Enter sent at once: the 1 goes into the cell, the Enter commits it)
        Binding(
            "enter,e",
            "edit",
            "Edit",
            id="edit-cell",
            tooltip="Edit the weight under the cursor",
            priority=True,
        ),
        Binding("enter,e", "not_editable", "Not editable", show=False, system=True, id="edit-computed"),
        # while a cell is typed into (on_key takes these keys first; the footer shows them)
        Binding("enter", "commit", "Commit", id="edit-commit", tooltip="Try the typed value on the weight"),
        Binding("escape", "cancel_edit", "Cancel", id="edit-cancel", tooltip="Leave the weight as it was"),
    ]

    # the looks of the parts of its lines are step_looks.LOOKS, read once per theme (not component classes)
    DEFAULT_CSS = """
    StepView { height: 1fr; width: 1fr; overflow-y: scroll; }
    """

    class EditSubmitted(Message):
        def __init__(self, view: StepView, ref: CellRef, text: str) -> None:
            super().__init__()
            self.view, self.ref, self.text = view, ref, text

    class PickRequested(Message):
        def __init__(self, view: StepView, ref: CellRef) -> None:
            super().__init__()
            self.view, self.ref = view, ref

    def __init__(self, sections_of: Callable[[View], list[Section]] | None = None, **kwargs) -> None:
        """sections_of: what to show of a View (default: the step's words and tables, pane_sections)."""
        super().__init__(**kwargs)
        self._sections_of = sections_of
        self._view: View | None = None
        # the step's words: above the tables, one strip a line, and after them (compact)
        self.info_text = ""  # as plain text (tests)
        self._head: list[Strip] = []
        self._more: list[Strip] = []
        self._more_at = 0  # the line the words after the tables start after
        self._words_fit: tuple = ()  # (compact, width) the words were wrapped for
        self._shown_words: tuple = ()
        # the step's tables laid out
        self.page: int | None = None  # the presenter's page (None: every table)
        self.all_sections: list[Section] = []
        self.sections: list[Section] = []
        self.blocks = StepLayout((), (), 0, 0, ())
        self._structure: tuple = ()  # the page, the words' height, the tables' titles and keys
        self._laid_for = -1  # the width the tables were laid out for
        # the cursor (table, row, col) and the cells the focused value reads, per box
        self.table, self.row, self.col = 0, 0, 0
        self.lit: dict[int, frozenset] = {}
        self.editor: CellEdit | None = None  # the cell being typed into, if one is
        self._opened_with = ""  # the text the editor opened with (the cell as shown)
        self.error = ""  # why the session refused what the editor holds
        # drawing: one theme's painter, and what is kept between keys (all the view's, each bounded)
        self._painter: Painter | None = None
        self._base = Style()  # the view's own colours, under every line
        self._versions = LineVersions()  # what each table's line shows, as a number
        self._lines: LRUCache[tuple, list[Segment]] = LRUCache(LINES_KEPT)  # a table's line, by what it shows
        # a screen line, by the table lines it is made of, the scroll and the width
        self._screen_lines: LRUCache[tuple, Strip] = LRUCache(LINES_KEPT)
        # the words' and the headings' lines on screen, by (the words' strip or a heading, the width)
        self._prose_lines: LRUCache[tuple, tuple[Strip | None, Strip]] = LRUCache(PROSE_KEPT)
        self._words_wrapped: LRUCache[tuple, list[Strip]] = LRUCache(WORDS_KEPT)  # by text and width
        self._layouts: LRUCache[tuple, tuple[list[Item], StepLayout]] = LRUCache(LAYOUTS_KEPT)  # by specs
        self._layout_kept = LayoutKept(LRUCache(SHAPES_KEPT))  # the tables' sizes and splits (lay_out)
        self._last_key: tuple = ()  # the key of the table line drawn last
        self._frame: tuple | None = None  # while lines are drawn: (scroll offset, width, focus, full width)
        self._painting = False  # Textual is drawing a frame (its lines go to the terminal)
        # the rows of the view on the terminal, as drawn there last (one a row: as many as the view is high)
        self._on_screen: dict[int, Strip] = {}
        self._asked: set[int] = set()  # rows asked to be drawn again, compared when the keys are done
        # the rows found changed, as drawn to compare them, for the frame that draws them (and the frame
        # they were drawn in): nothing changed in between, since any change asks for rows again
        self._fresh: dict[int, Strip] = {}
        self._fresh_in: tuple | None = None
        self.lines_drawn = 0  # table lines drawn afresh (not from the cache): tests and benchmarks

    def on_mount(self) -> None:
        # the words' colours are resolved when they are laid out: a new theme lays them out again
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._theme_changed())

    def _theme_changed(self) -> None:
        self._painter = None
        if self._view is not None:
            if self._sections_of is None:
                self._words(self._view)
            self._structure = ()
            keep = (self._cursor_key(), self.row, self.col)
            self.show_sections(self.all_sections)
            self._refind_cursor(*keep)

    def _clear_caches(self, *, drawn: bool = True) -> None:
        """Forget what is kept between keys: the layouts (a new run: an old run's tables hold its trace)
        and, with drawn, every line drawn (a new theme: they hold the old one's colours)."""
        # each discarded, not cleared: LRUCache.clear() leaves its nodes, circular lists, to the cycle
        # collector, and with them every dropped layout's tables (12 MB a GPT-2 edit) until a full pass
        for key in list(self._layouts.keys()):
            self._layouts.discard(key)
        if drawn:
            self._fresh.clear()
            self._lines.clear()
            self._screen_lines.clear()
            self._prose_lines.clear()
            self._words_wrapped.clear()

    def _theme_painter(self) -> Painter:
        """The painter of the app's theme (a new theme clears what was drawn in the old one's)."""
        if self._painter is None or self._painter.styles.theme != self.app.theme:
            self._clear_caches()
            self._base = self.rich_style
            variables = self.app.theme_variables
            styles = LineStyles(
                lambda name: look_style(LOOKS[name.removeprefix("step-view--")], variables),
                self.app.theme,
                variables,
                self.app.console,
                self._base,
            )
            self._painter = Painter(styles)
        return self._painter

    # ---- data ---------------------------------------------------------------------------------
    def show(self, view: View) -> None:
        """Show the view's step: its words, then its tables (the step's own, or the walk's)."""
        old = self._view
        moved = old is not None and (view.here, view.mode.backward) != (old.here, old.mode.backward)
        if self.page is not None and moved:
            self.page = 0  # presenting: a new step opens on its first table
        if moved and self.editor is not None:
            self.close_editor(refocus=False)
        if old is None or view.trace is not old.trace:
            self._clear_caches(drawn=False)  # the layouts are kept for stepping through one run
        self._view = view
        if self._sections_of is not None:
            self.show_sections(self._sections_of(view))
            return
        if self.size:  # not laid out yet (mounting): wrapped at its width, with the tables (_fit_width)
            self._words(view)
        self.show_sections(pane_sections(view))

    def _words(self, view: View) -> None:
        compact = self.app.size.height < SHORT_HEIGHT
        width = max(self.scrollable_content_region.width - 2, 20)
        words = step_words(view, self._prose_style, compact, width)
        self.info_text = words.plain
        self._words_fit = (compact, width)
        self._head = self._wrap(words.head, width)
        self._more = self._wrap(words.more, width) if words.more is not None else []

    def _prose_style(self, name: str) -> Style:
        return self._theme_painter().styles.style(name)  # the painter's: read once per theme

    def _wrap(self, text: Text, width: int) -> list[Strip]:
        """The words as strips, width columns wide; kept by their text and styles (a step's words are
        the same on every change that leaves its facts alone)."""
        key = (text.plain, tuple(text.spans), width, self.app.theme)
        kept = self._words_wrapped.get(key)
        if kept is None:
            kept = self._words_wrapped[key] = wrap_words(text, width, self.app.console)
        return kept

    def show_sections(self, sections: list[Section]) -> None:
        """Show a step's sections: laid out anew when its tables or their sizes changed; otherwise
        only the lines whose cells differ are drawn again. Before the view has a size (the app shows
        the first step as it mounts, before Textual's first layout) nothing is laid out: the first
        frame lays the step out at the view's width (render_lines), not at a guess then again."""
        self.all_sections = sections
        if not self.size:
            return
        if self.page is not None:
            self.page, sections = one_page(sections, self.page)
        structure = (
            self.page,
            len(self._head),
            tuple((s.title, tuple(tuple(i.key for i in row) for row in s.rows)) for s in sections),
        )
        self.sections = sections
        cursor_key = self._cursor_key()
        old, new = self.blocks, self._lay_out_step(sections)
        top = self.scroll_offset.y  # lines off screen are drawn when they scroll in: none compared
        changed = self._versions.changed(new, top, top + self.scrollable_content_region.height)
        if structure == self._structure and same_rows(old, new) and self._more_at == new.height:
            self._redraw_changed(old, new, changed)
            self._refind_cursor(cursor_key, self.row, self.col)
        else:
            self._show_laid_out(new, structure, cursor_key)

    def _words_top(self) -> int:
        """The tables' first line: after the words and a blank line; not after compact words (the rest
        follows the tables): on a short screen that row is the step's first table's."""
        return len(self._head) + (1 if self._head and not self._more else 0)

    def _lay_out_step(self, sections: list[Section]) -> StepLayout:
        margin = PRESENTER_MARGIN if self.page is not None else 0
        self._laid_for = max(self.scrollable_content_region.width - 2, 20)
        return self._lay_out(
            sections, max(self.scrollable_content_region.width, 20), self._words_top(), margin
        )

    def _redraw_changed(self, old: StepLayout, new: StepLayout, changed: list[tuple[Box, list[int]]]) -> None:
        """The same tables on the same lines: draw again the lines whose cells changed, and every line of
        a table whose columns moved (a column one wider for a minus sign), but its borders when its frame
        stayed where it was (they draw its title and its key, which `changed` has when they differ)."""
        self.blocks = new
        moved = [
            (b, range(b.height) if (a.x, a.width) != (b.x, b.width) else range(1, b.height - 1))
            for a, b in zip(old.boxes, new.boxes)
            if (a.x, a.width, a.shape) != (b.x, b.width, b.shape)
        ]
        self._refresh_lines_at([*changed, *moved])
        if moved:
            self._set_virtual_size(Size(self._width_of(new), self.virtual_size.height))
        if self._shown_words != (self._head, self._more):
            self._shown_words = (self._head, self._more)
            self._refresh_rows(0, self._words_top())
            if self._more:
                self._refresh_rows(self._more_at, len(self._more) + 1)

    def _show_laid_out(self, new: StepLayout, structure: tuple, cursor_key: str | None) -> None:
        """Another step, or other tables: the whole view is drawn again (on the step's top, unless the
        same step's tables only moved)."""
        same_step = bool(self._structure) and structure[2] == self._structure[2]
        self._structure = structure
        self.blocks = new
        self.lit = {}
        self._shown_words = (self._head, self._more)
        if same_step:
            self._refind_cursor(cursor_key, self.row, self.col)
        else:
            self._refind_cursor(None, 0, 0)
            self.scroll_to(0, 0, animate=False, immediate=True)
        self._more_at = new.height
        height = new.height + (1 + len(self._more) if self._more else 0)
        self._set_virtual_size(Size(self._width_of(new), height), fresh=not same_step)
        self._refresh_content()  # the bars redraw themselves when their thumbs move

    def _width_of(self, layout: StepLayout) -> int:
        """The step's width to scroll over: its widest table or line of words."""
        return max([layout.width, *(s.cell_length for s in self._head), *(s.cell_length for s in self._more)])

    def _set_virtual_size(self, size: Size, *, fresh: bool = False) -> None:
        """The step's size, to scroll over: a layout only when a scrollbar comes or goes
        (widgets/virtual_size.py). Once a step was wider than the view the horizontal bar stays, so moving
        between wide and narrow steps lays nothing out, unless a fresh step (another step, or other
        tables) fits the width and not the height: the bar would hide its last row, which it gives back."""
        if size == self.virtual_size:
            return
        room = self.container_size
        wide = size.width > room.width
        if wide and self.styles.overflow_x == "auto":
            self.styles.overflow_x = "scroll"
        elif fresh and not wide and size.height > room.height and self.styles.overflow_x == "scroll":
            self.styles.overflow_x = "auto"
        set_virtual_size(self, size, self._overflows)

    def _overflows(self, size: Size) -> tuple[bool, bool]:
        """Whether a step this size is wider, and taller, than the room the view has, where that decides
        whether a bar is shown (the vertical bar is always there: a step shorter than the view shows its
        thumb whole; the horizontal one, once a step needed it: _set_virtual_size)."""
        room, styles = self.container_size, self.styles
        return (
            styles.overflow_x == "auto" and size.width > room.width,
            styles.overflow_y == "auto" and size.height > room.height,
        )

    def _lay_out(self, sections: list[Section], width: int, top: int, margin: int) -> StepLayout:
        """lay_out, kept for the last steps shown: a step shown again whose tables are the same specs
        (present keeps a table that did not change) is laid out as before."""
        items = [item for section in sections for row in section.rows for item in row]
        shape = tuple((s.title, s.role, tuple(len(row) for row in s.rows)) for s in sections)
        key = (width, top, margin, shape, tuple(id(item) for item in items))
        kept = self._layouts.get(key)
        if kept is not None and all(a is b for a, b in zip(kept[0], items)):
            return kept[1]
        layout = lay_out(sections, width, self._layout_kept, top, margin)
        self._layouts.discard(key)  # LRUCache.set keeps a value it has
        self._layouts[key] = (items, layout)  # the items held: their ids in the key stay theirs
        return layout

    # ---- the presenter's pages ----------------------------------------------------------------
    def page_count(self) -> int:
        return page_count(self.all_sections)

    def focused_page(self) -> int:
        """The page of the table the cursor is in."""
        box = self.cursor_box
        return page_holding(self.blocks, box.index) if box is not None else 0

    def show_page(self, page: int | None) -> None:
        """Show one page (its heading says which of how many), or every table again (None)."""
        self.page = page
        self._structure = ()
        self.show_sections(self.all_sections)
        self._refind_cursor(None, 0, 0)
        self.scroll_to(0, 0, animate=False, immediate=True)
        self._refresh_content()
        if page is not None:
            self.focus(scroll_visible=False)  # the arrows and the inspector work on the table on screen

    def on_resize(self, event: events.Resize) -> None:
        """A new width lays the step out again (the cursor stays, and in view); a new height alone
        (the inspector took a line) changes nothing but whether the words are compact."""
        self._fit_width()

    def _fit_width(self) -> None:
        """Lay the step out for the view's size if it was laid out for another (or not yet)."""
        if self._view is None:
            return
        fit = (self.app.size.height < SHORT_HEIGHT, max(self.scrollable_content_region.width - 2, 20))
        if fit == self._words_fit and self.blocks.width and self._laid_for == fit[1]:
            if self.has_focus:  # shorter (the status bar took lines after an edit): the cursor stays seen
                self.scroll_to_cursor()
            return
        self.styles.overflow_x = "auto"  # the horizontal bar again only for a step wider than the view
        self._structure = ()
        keep = (self._cursor_key(), self.row, self.col)
        if self._sections_of is None:
            self._words(self._view)
        self.show_sections(self.all_sections)
        self._refind_cursor(*keep)
        self.scroll_to_cursor()

    # ---- the operand marks --------------------------------------------------------------------
    def set_lit(self, lit: dict[int, frozenset]) -> None:
        """Mark these cells (per box); only the lines that gain or lose a mark are drawn again."""
        lit = {k: v for k, v in lit.items() if v}
        if lit == self.lit:
            return
        old, self.lit = self.lit, lit
        boxes, sy = self.blocks.boxes, self.scroll_offset.y  # the scroll read once, not once a line
        ys: set[int] = set()
        for index in (i for i in set(old) | set(lit) if i < len(boxes)):
            changed = old.get(index, frozenset()) ^ lit.get(index, frozenset())
            for line in {line_of(boxes[index], cell) for cell in changed}:
                ys.update(self._at(boxes[index], line, sy))
        self._refresh_at(ys)

    # ---- drawing ------------------------------------------------------------------------------
    def watch_scroll_x(self, old_value: float, new_value: float) -> None:
        """Scrolled sideways: every line of the step is drawn again, and the horizontal bar moves its
        thumb (its own redraw); ScrollView's would redraw the vertical bar's column with the lines."""
        if self.show_horizontal_scrollbar:
            self.horizontal_scrollbar.position = new_value
        if round(old_value) != round(new_value):
            self._refresh_content()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        """Scrolled up or down: every line of the step is drawn again, the vertical bar moves its thumb;
        ScrollView's would also send the horizontal bar again (some 180 segments at d_model 64)."""
        if self.show_vertical_scrollbar:
            self.vertical_scrollbar.position = new_value
        if round(old_value) != round(new_value):
            self._refresh_content()

    def _refresh_content(self) -> None:
        """Draw every line of the view again (those that show something else), and not its scrollbars
        (they redraw themselves when their thumbs move: widgets/virtual_size.py tells them the step's
        new size)."""
        self._ask_rows(0, self.scrollable_content_region.height)

    @property
    def active(self) -> bool:
        """Whether the keys act here: the view has the focus (its cell editor is drawn inside it)."""
        return self.has_focus if self._frame is None else self._frame[2]

    def render_lines(self, crop: Region) -> list[Strip]:
        """Textual draws a frame's lines through render_line: what each of them reads of the view (its
        scroll, its width, the focus, the theme's painter: Textual's reactives, some tens of look-ups
        each) is read once for them all. In a frame a line is as wide as Textual makes it (the content
        region, the vertical bar's column with it, which the bar draws over): it is not made again
        one column wider (a Strip more) for every line."""
        if self._laid_for < 0:  # the first frame: the step laid out at the width it is drawn at
            self._fit_width()
        self._theme_painter()
        self._frame, self._painting = self._frame_now(), True
        if self._fresh and self._fresh_in != self._frame:
            self._fresh.clear()
        try:
            return super().render_lines(crop)
        finally:
            self._frame, self._painting = None, False
            self._fresh.clear()

    def _frame_now(self) -> tuple:
        """What a frame's lines read of the view: (its scroll, its width, the focus, the lines' width)."""
        room = self.scrollable_content_region.width
        return self.scroll_offset, room, self.has_focus, max(self.content_region.width, room)

    def render_line(self, y: int) -> Strip:
        frame = self._frame
        if frame is None:  # a line asked for on its own (not in a frame Textual draws)
            self._theme_painter()
            width = self.scrollable_content_region.width
            return self._line(y, (self.scroll_offset, width, self.has_focus, width))
        if not self._painting:
            return self._line(y, frame)
        strip = self._fresh.pop(y, None)
        if strip is None:
            strip = self._line(y, frame)
        self._on_screen[y] = strip  # on its way to the terminal
        return strip

    def _line(self, y: int, frame: tuple) -> Strip:
        """Row y of the view in this frame."""
        (sx, sy), width, _, full = frame
        vy = sy + y
        if vy < len(self._head):
            return self._words_line(self._head[vy], width, full)
        if vy > self._more_at:
            i = vy - self._more_at - 1
            return self._words_line(self._more[i] if i < len(self._more) else Strip([]), width, full)
        heading = self.blocks.heading_at(vy)
        if heading is not None:  # a section's heading stays in place when the tables scroll sideways
            key = (heading.text, width, full)
            drawn = self._prose_lines.get(key)
            if drawn is None:
                style = self._painter.styles.style("heading")  # type: ignore[union-attr]
                line = heading_line(heading.text, style, width, self._base)
                drawn = self._prose_lines[key] = (None, line.extend_cell_length(full, self._base).simplify())
            return drawn[1]
        return self._tables_line(y, vy, sx, width, full)

    def _words_line(self, strip: Strip, width: int, full: int) -> Strip:
        """A line of the words on screen, kept while its strip is the words' (by the strip itself), its
        neighbours in equal styles one segment (Strip.simplify: once, as it is kept)."""
        key = (id(strip), width, full)
        drawn = self._prose_lines.get(key)
        if drawn is None or drawn[0] is not strip:
            line = words_line(strip, width, self._base).extend_cell_length(full, self._base).simplify()
            drawn = self._prose_lines[key] = (strip, line)
        return drawn[1]

    def _tables_line(self, y: int, vy: int, sx: int, width: int, full: int) -> Strip:
        """Screen line y (the step's line vy): its tables' lines side by side, scrolled to sx, kept by
        the lines it is made of; full: the strip's width (width, or with the vertical bar's column)."""
        sy = vy - y
        parts: list[tuple[int, Line]] = []
        keys: list[tuple] = []
        pinned: tuple[Box, list[Segment]] | None = None  # the table whose row labels stay at the left edge
        cut: tuple[Box, int] | None = None  # the table the view's right edge cuts, and its line here
        for box in self.blocks.at(vy):
            if box.x >= sx + width or box.x + box.width <= sx:
                continue  # off the screen, left or right of it: not drawn
            line = y if header_pinned(box, sy) and y < box.first_row else vy - box.y
            if box.x < sx + width < box.x + box.width:
                cut = (box, line)
            segments = self._box_line(box, line, window(box, sx, width))
            parts.append((box.x, (segments, box.width)))
            keys.append((box.x, self._last_key))
            if pinned is None and labels_pinned(box, line, sx):
                pinned = (box, segments)
        key = (tuple(keys), sx, width, full, pinned[0].index if pinned is not None else -1)
        screen_line = self._screen_lines.get(key)
        if screen_line is None:
            screen_line = self._screen_lines[key] = self._joined(parts, pinned, cut, sx, width, full)
        return screen_line

    def _joined(
        self,
        parts: list[tuple[int, Line]],
        pinned: tuple[Box, list[Segment]] | None,
        cut: tuple[Box, int] | None,
        sx: int,
        width: int,
        full: int,
    ) -> Strip:
        """A screen line from its tables' lines: the painter's segments are over the view's colours
        already, and the gaps between them are made so too (put together as segments: one Strip, full
        columns long)."""
        base = self._base
        line, start = placed(parts, base), sx  # start: the view's first cell in line
        if pinned is not None:
            line, start = pin_labels(cut_to(line, sx, width), *pinned, sx, width, base), 0
        if cut is not None:  # cut once, to what the right edge leaves (a wide table's every line)
            mark = self._painter.styles.style("label")  # type: ignore[union-attr]
            line = cut_at_right(line, *cut, sx, width, mark, base, start)
        else:
            line = cut_to(line, start, width)
        segments, length = extended(line, full, base)
        return Strip(segments, length)

    def _box_line(self, box: Box, line: int, cols: tuple[int, int] | None = None) -> list[Segment]:
        """Line `line` of a table's frame as segments, as long as the box is wide (cols: only those of
        its columns, as window gives them), kept by what it shows: the table's line and its version,
        and the marks on it."""
        item = box.item
        marks = self._marks_on(box, line)
        shape = (box.width, box.bar_width, box.short, box.shape)
        key = (item.key, self._versions.of(box, line), shape, line, *marks, cols)
        self._last_key = key
        segments = self._lines.get(key)
        if segments is None:
            self.lines_drawn += 1
            focused, cursor, lit, note, edit = marks
            painter = self._theme_painter()
            segments = self._lines[key] = painter.line(box, line, focused, cursor, lit, note, edit, cols)
        return segments

    def _marks_on(self, box: Box, line: int) -> tuple:
        """What is on a table's line besides its cells: (the focus, the cursor's (row, col) when it is on
        this line, the operand marks on it, the editor's note in the bottom border, what is typed)."""
        here = box.index == self.table
        focused = self.active and here
        on_line = line == box.first_row + self.row and line < box.height - 1
        cursor = (self.row, self.col) if focused and on_line else None
        note = self._note() if here and line == box.height - 1 else None
        return focused, cursor, self._lit_on(box, line), note, self._typed_on(box, cursor)

    def _lit_on(self, box: Box, line: int) -> frozenset:
        """The operand marks of a table on this line (a table's (row, col)s, or the bars' sources)."""
        lit = self.lit.get(box.index, frozenset())
        if lit and isinstance(box.item, GridSpec):
            r = line - box.first_row
            return frozenset(c for c in lit if c[0] == r)
        if lit and line != box.first_row - 1:
            return frozenset(s for s in lit if line_of(box, s) == line)
        return lit

    def _refresh_box_line(self, box: Box, line: int) -> None:
        self._refresh_at(self._at(box, line))

    def _at(self, box: Box, line: int, sy: int | None = None) -> tuple[int, ...]:
        """Where a box's line is in the view's virtual space: its place, and the top of the view too
        while the box's title and header are pinned there (sy: the scroll, when the caller has it)."""
        sy = self.scroll_offset.y if sy is None else sy
        if line < box.first_row and header_pinned(box, sy):
            return box.y + line, sy + line
        return (box.y + line,)

    def _refresh_lines_at(self, boxes_lines: Iterable[tuple[Box, Iterable[int]]]) -> None:
        """Draw again these lines of these boxes, where they are on screen: a box's lines off screen are
        not looked at one by one (a mask toggle at d_model 64 changes some 280 lines, 25 on screen)."""
        sy = self.scroll_offset.y
        bottom = sy + self.scrollable_content_region.height
        ys: list[int] = []
        for box, lines in boxes_lines:
            if box.y + box.height <= sy or box.y >= bottom:  # off screen, its header not pinned either
                continue
            ys.extend(at for line in lines for at in self._at(box, line, sy))
        self._refresh_at(ys)

    def _refresh_at(self, ys: Iterable[int]) -> None:
        """Draw these lines of the virtual space again, those on screen (a line off screen is drawn when
        it scrolls in: a scroll draws every line)."""
        top = self.scroll_offset.y
        height = self.scrollable_content_region.height
        self._ask(y - top for y in ys if top <= y < top + height)

    def _refresh_rows(self, start: int, count: int) -> None:
        """Draw lines start … start + count − 1 of the virtual space again, as far as they are on screen:
        the rows of the view they are on are compared, when the keys' handlers are done (on_idle), with
        what is on the terminal, and only those that differ are drawn."""
        self._ask_rows(start - self.scroll_offset.y, count)

    def _ask_rows(self, top: int, count: int) -> None:
        """Rows top … top + count − 1 of the view (0: its first on screen) to compare and draw again."""
        self._ask(range(max(top, 0), min(top + count, self.scrollable_content_region.height)))

    def _ask(self, rows: Iterable[int]) -> None:
        """Rows of the view to compare and draw again: something they show changed (so the lines drawn
        to compare before it are not what they show now)."""
        self._fresh.clear()
        before = len(self._asked)
        self._asked.update(rows)
        if len(self._asked) > before:
            self.check_idle()

    def on_idle(self) -> None:
        if self._asked:
            self._draw_asked()

    def _draw_asked(self) -> None:
        """Draw again the rows asked for whose lines are not what the terminal shows, runs of neighbours
        in one refresh, and only inside the view's content: not its scrollbars (ScrollView.refresh_lines
        takes the whole width, the vertical bar's column with it, and a line under the horizontal bar
        redraws the bar, some 180 segments at d_model 64). Compared once every change of the keys is
        made (a move of the cursor asks for its old row before it leaves it): a row drawn again that
        shows what it showed is work for Textual and the terminal, some 100 µs and 400 bytes a row."""
        rows, self._asked = sorted(self._asked), set()
        room = self.scrollable_content_region
        if self._laid_for >= 0 and self._on_screen:
            self._theme_painter()
            self._frame = frame = self._frame_now()
            try:
                lines = {y: self._line(y, frame) for y in rows}
            finally:
                self._frame = None
            rows = [y for y, strip in lines.items() if not self._shows(y, strip)]
            self._fresh, self._fresh_in = {y: lines[y] for y in rows}, frame
        start = end = None
        for y in rows:
            if start is not None and y == end:
                end += 1
                continue
            if start is not None:
                self.refresh(Region(0, start, room.width, end - start))
            start, end = y, y + 1
        if start is not None:
            self.refresh(Region(0, start, room.width, end - start))

    def _shows(self, y: int, strip: Strip) -> bool:
        """Whether row y of the view shows this line on the terminal already."""
        drawn = self._on_screen.get(y)
        return drawn is strip or drawn == strip

    def _refresh_box(self, box: Box) -> None:
        self._refresh_rows(box.y, box.height)
        sy = self.scroll_offset.y
        if header_pinned(box, sy):
            self._refresh_rows(sy, box.first_row)

    def box_text(self, box: Box) -> list[str]:
        """A table's lines as plain text, frame included, as drawn (unscrolled)."""
        self._theme_painter()
        return ["".join(s.text for s in self._box_line(box, i)) for i in range(box.height)]

    def text(self) -> str:
        """Every line as plain text, as drawn unscrolled (tests and copying)."""
        self._theme_painter()
        out = [_plain(strip).rstrip() for strip in self._head]
        out += [self._plain_line(vy) for vy in range(len(out), self.blocks.height)]
        if self._more:
            out.append("")
            out += [_plain(strip).rstrip() for strip in self._more]
        return "\n".join(out)

    def _plain_line(self, vy: int) -> str:
        heading = self.blocks.heading_at(vy)
        line = " " + heading.text if heading is not None else ""
        for box in self.blocks.at(vy):
            line = line.ljust(box.x) + _plain(self._box_line(box, vy - box.y))
        return line.rstrip()

    # ---- which keys act now (the cursor's and the editor's: TableCursor, CellEditing) -----------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("commit", "cancel_edit"):
            return self.editor is not None
        if self.editor is not None and action in ("edit", "not_editable", "table", "move"):
            return False  # typing: the editor's keys only
        if action == "table":  # past the last table, action_table hands the focus on
            return self.cursor_box is not None
        if action == "edit":
            return self.ref is not None
        if action == "not_editable":
            return self.ref is None
        return True


def _plain(segments: Iterable[Segment]) -> str:
    return "".join(segment.text for segment in segments)
