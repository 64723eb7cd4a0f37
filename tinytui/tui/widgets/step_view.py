"""A step's tables drawn by one focusable widget on Textual's Line API (a ScrollView with render_line).

show_sections lays the step out once (tinytui.present.step_layout: a heading per section, a framed
block per table, side by side when they fit, heads under each other when they do not) and sets
virtual_size. render_line(y) draws the screen's line y from the blocks that have it: each block's line
comes from a cache keyed by (block, that line's version, line, where the cursor is on it, the operand
marks on it, focus), so a redraw that changed nothing draws nothing. A new spec bumps the version of
only the lines whose cells differ; the cursor, an operand mark or a typed value redraws only its lines
(refresh_lines). Scrolled past a table's top, its title and column header stay pinned at the top of
the view; scrolled sideways past its left edge, its row labels stay at the left edge (as DataTable's
fixed rows and columns do).

The cursor is (table, row, column), row or column -1 on a label. Tab and Shift+Tab go from table to
table inside the view (past the last one, on to the next widget). Enter or e edits a weight in its
own cell (typed there, drawn by the view: Enter commits, Esc cancels), or asks for a pick on a token.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Hashable, Iterable
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size, Spacing
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tinytui.present.backward_tables import pane_sections
from tinytui.present.grid_labels import COLUMN, CORNER, ROW, Label
from tinytui.present.grid_spec import CellRef, GridSpec, Item, KeptBySpec, LogitsSpec, Section, Source
from tinytui.present.step_layout import FRAME, Box, LayoutKept, StepLayout, lay_out
from tinytui.present.step_words import SHORT_HEIGHT, step_words
from tinytui.present.view import View, ViewPart
from tinytui.tui.widgets.cell_editor import CellEdit, editor_detail, editor_note
from tinytui.tui.widgets.line_styles import LineStyles
from tinytui.tui.widgets.step_lines import Painter, label_width
from tinytui.tui.widgets.virtual_size import set_virtual_size

PRESENTER_MARGIN = 3  # the presenter's room left of each table (and a line above it)
_LINES_KEPT = 16384  # lines kept drawn (a big model's step has a few hundred; revisited steps hit)
_LAYOUTS_KEPT = 64  # step layouts kept (every step of a model, both ways, and a few more)
_WORDS_KEPT = 64  # steps' words kept wrapped
_SHAPES_KEPT = 512  # tables' shapes kept, by what they are made of


class StepView(ViewPart, ScrollView, can_focus=True):
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

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        f"step-view--{n}"
        for n in [
            "heading",
            "header",
            "label",
            "cursor",
            "changed-up",
            "changed-down",
            "changed",
            "edited",
            "masked",
            "source",
            "focus",
            "border-output",
            "border-param",
            "border-input",
            "border-info",
            "title-output",
            "title-param",
            "title-input",
            "title-info",
            "title-focus",
            "bar",
            "target",
            "predicted",
            "title",
            "formula",
            "fact",
            "hint",
            "error",
            "editing",
            "caret",
        ]
    }

    DEFAULT_CSS = """
    StepView { height: 1fr; width: 1fr; overflow-y: scroll; }
    StepView > .step-view--heading { color: $foreground-muted; text-style: bold; }
    StepView > .step-view--header { color: $foreground-muted; text-style: bold; }
    StepView > .step-view--label { color: $foreground-muted; }
    StepView > .step-view--cursor { text-style: reverse bold; }
    StepView > .step-view--changed-up { background: $tt-changed-up; text-style: bold underline; }
    StepView > .step-view--changed-down { background: $tt-changed-down; text-style: bold underline; }
    StepView > .step-view--changed { text-style: bold underline; }
    StepView > .step-view--edited { background: $tt-edited; text-style: bold italic; }
    StepView > .step-view--masked { color: $tt-masked; text-style: dim; }
    StepView > .step-view--source {
        background: $tt-current-step; color: $foreground; text-style: bold underline;
    }
    StepView > .step-view--focus { color: $accent; }
    StepView > .step-view--border-output { color: $primary; }
    StepView > .step-view--border-param { color: $secondary; }
    StepView > .step-view--border-input { color: $panel-lighten-2; }
    StepView > .step-view--border-info { color: $panel-lighten-2; }
    StepView > .step-view--title-output { color: $primary; text-style: bold; }
    StepView > .step-view--title-param { color: $secondary; }
    StepView > .step-view--title-input { color: $foreground-muted; }
    StepView > .step-view--title-info { color: $foreground-muted; }
    StepView > .step-view--title-focus { color: $accent; text-style: bold; }
    StepView > .step-view--bar { color: $primary; }
    StepView > .step-view--target { color: $tt-target; text-style: bold; }
    StepView > .step-view--predicted { color: $tt-predicted; text-style: bold; }
    StepView > .step-view--hint { color: $foreground-muted; text-style: italic; }
    StepView > .step-view--error { color: $error; text-style: bold; }
    StepView > .step-view--editing { background: $panel-lighten-2; color: $foreground; text-style: bold; }
    StepView > .step-view--caret { text-style: reverse; }
    StepView > .step-view--title { color: $primary; text-style: bold; }
    StepView > .step-view--formula { color: $accent; text-style: italic; }
    StepView > .step-view--fact { color: $foreground; text-style: bold; }
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
        self.info_text = ""  # the step's words as plain text (tests)
        self._head: list[Strip] = []  # the step's words above the tables, one strip a line
        self._more: list[Strip] = []  # and after them (compact)
        self._more_at = 0
        self._words_fit: tuple = ()  # (compact, width) the words were wrapped for
        self._laid_for = -1  # the width the tables were laid out for
        self._shown_words: tuple = ()
        self.page: int | None = None  # the presenter's page (None: every table)
        self.all_sections: list[Section] = []
        self.sections: list[Section] = []
        self.blocks = StepLayout((), (), 0, 0, ())
        self.table, self.row, self.col = 0, 0, 0
        self.lit: dict[int, frozenset] = {}  # box -> the cells (or the bars' sources) the focused value reads
        # (table's key, line) -> that line's version: what a table's line shows (_version), or a count
        self._versions: dict[tuple[str, int], int] = {}
        self._version_of: dict[Hashable, int] = {}  # what a line shows -> its version (_version)
        self._next_version = 1  # 0: a table's lines as first shown
        self._shown_by_spec: KeptBySpec[tuple[tuple[int, int], tuple[Hashable, ...]]] = KeptBySpec(256)
        self._seen: dict[str, Item] = {}  # table's key -> the spec it showed last
        # what is kept between keys, each bounded (the least recently used go first), all of it the view's
        self._drawn: LRUCache[tuple, Strip] = LRUCache(_LINES_KEPT)  # a table's line, by what it shows
        self._composed: LRUCache[tuple, Strip] = LRUCache(_LINES_KEPT)  # a screen line, by its table lines
        self._wrapped: LRUCache[tuple, list[Strip]] = LRUCache(_WORDS_KEPT)  # the words, by text and width
        self._layouts: LRUCache[tuple, tuple[list[Item], StepLayout]] = LRUCache(_LAYOUTS_KEPT)  # by specs
        self._layout_kept = LayoutKept(LRUCache(_SHAPES_KEPT))  # the tables' sizes and splits (lay_out)
        self._last_key: tuple = ()
        self._base = Style()
        self._painter: Painter | None = None
        self._epoch: tuple = ()
        self._structure: tuple = ()
        self.editor: CellEdit | None = None  # the cell being typed into, if one is
        self._opened_with = ""  # the text the editor opened with (the cell as shown)
        self.error = ""  # why the session refused what the editor holds
        self.lines_drawn = 0  # block lines drawn afresh (not from the cache): tests and benchmarks

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

    # ---- data ---------------------------------------------------------------------------------
    def show(self, view: View) -> None:
        """Show the view's step: its words, then its tables (the step's own, or the walk's)."""
        moved = self._view is not None and (view.here, view.mode.backward) != (
            self._view.here,
            self._view.mode.backward,
        )
        if self.page is not None and moved:
            self.page = 0  # presenting: a new step opens on its first table
        if moved and self.editor is not None:
            self.close_editor(refocus=False)
        if self._view is None or view.trace is not self._view.trace:
            self._layouts.clear()  # kept for stepping through one run: an old run's tables hold its trace
        self._view = view
        if self._sections_of is not None:
            self.show_sections(self._sections_of(view))
            return
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
        return self._check_epoch().styles.style(name)  # the painter's: read once per theme

    def _wrap(self, text: Text, width: int) -> list[Strip]:
        """The words as strips, width columns wide; kept by their text and styles (a step's words are
        the same on every change that leaves its facts alone)."""
        key = (text.plain, tuple(text.spans), width, self.app.theme)
        kept = self._wrapped.get(key)
        if kept is not None:
            return kept
        out = self._wrapped[key] = self._wrap_now(text, width)
        return out

    def _wrap_now(self, text: Text, width: int) -> list[Strip]:
        console = self.app.console
        out = []
        for line in text.wrap(console, width, no_wrap=False):
            line.rstrip()
            out.append(Strip([Segment(" "), *line.render(console)], line.cell_len + 1))
        while out and not out[-1].text.strip():
            out.pop()
        return out

    def show_sections(self, sections: list[Section]) -> None:
        """Show a step's sections: laid out anew when its tables or their sizes changed; otherwise
        only the lines whose cells differ are drawn again."""
        self.all_sections = sections
        if self.page is not None:
            sections = self._page_sections(sections)
        old = self.blocks
        structure = (
            self.page,
            len(self._head),
            tuple((s.title, tuple(tuple(i.key for i in row) for row in s.rows)) for s in sections),
        )
        self.sections = sections
        cursor_key = self._cursor_key()
        # a blank line under the words; not under compact ones (the rest follows the tables): on a short
        # screen that row is the step's first table's
        top = len(self._head) + (1 if self._head and not self._more else 0)
        margin = PRESENTER_MARGIN if self.page is not None else 0
        self._laid_for = max(self.scrollable_content_region.width - 2, 20)
        new = self._lay_out(sections, max(self.scrollable_content_region.width, 20), top, margin)
        changed = [(b, self._bump_changed(b)) for b in new.boxes if self._seen.get(b.item.key) is not b.item]
        if structure == self._structure and _same_rows(old, new) and self._more_at == new.height:
            # the same tables on the same lines: draw again the lines whose cells changed, and every line
            # of a table whose columns moved (a column one wider for a minus sign)
            self.blocks = new
            moved = [
                b for a, b in zip(old.boxes, new.boxes) if (a.x, a.width, a.shape) != (b.x, b.width, b.shape)
            ]
            changed += [(box, range(box.height)) for box in moved]
            self._refresh_at(at for box, lines in changed for line in lines for at in self._at(box, line))
            if moved:
                self._set_virtual_size(Size(self._width_of(new), self.virtual_size.height))
            if self._shown_words != (self._head, self._more):
                self._shown_words = (self._head, self._more)
                self.refresh_lines(0, top)
                if self._more:
                    self.refresh_lines(self._more_at, len(self._more) + 1)
            self._refind_cursor(cursor_key, self.row, self.col)
            return
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
        self._set_virtual_size(Size(self._width_of(new), height))
        self.refresh()

    def _width_of(self, layout: StepLayout) -> int:
        """The step's width to scroll over: its widest table or line of words."""
        return max([layout.width, *(s.cell_length for s in self._head), *(s.cell_length for s in self._more)])

    def _set_virtual_size(self, size: Size) -> None:
        """The step's size, to scroll over: a layout only when a scrollbar comes or goes
        (widgets/virtual_size.py)."""
        if size == self.virtual_size:
            return
        if size.width > self.container_size.width and self.styles.overflow_x == "auto":
            # a step wider than the view: the horizontal bar stays from now on (until a resize), so
            # moving between wide and narrow steps neither lays the screen out nor moves it by a line
            self.styles.overflow_x = "scroll"
        set_virtual_size(self, size, self._overflows)

    def _overflows(self, size: Size) -> tuple[bool, bool]:
        """Whether a step this size is wider, and taller, than the room the view has, where that decides
        whether a bar is shown (the vertical bar is always there: a step shorter than the view shows its
        thumb whole; the horizontal one, once a step needed it)."""
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
    def _page_sections(self, sections: list[Section]) -> list[Section]:
        pages = [(s, row) for s, section in enumerate(sections) for row in (section.rows or ((),))]
        if not pages:
            return sections
        self.page = min(max(self.page or 0, 0), len(pages) - 1)
        s, row = pages[self.page]
        n = len(pages)
        more = " · n: the next" if self.page + 1 < n else " · n: the next step"
        section = sections[s]
        title = f"{section.title} · table {self.page + 1} of {n}{more}"
        return [Section(title, section.role, (row,) if row else ())]

    def page_count(self) -> int:
        return sum(max(len(s.rows), 1) for s in self.all_sections)

    def focused_page(self) -> int:
        """The page of the table the cursor is in."""
        box = self.cursor_box
        if box is None:
            return 0
        for i, (_, members) in enumerate(self.blocks.pages):
            if box.index in members:
                return i
        return 0

    def show_page(self, page: int | None) -> None:
        """Show one page (its heading says which of how many), or every table again (None)."""
        self.page = page
        self._structure = ()
        self.show_sections(self.all_sections)
        self._refind_cursor(None, 0, 0)
        self.scroll_to(0, 0, animate=False, immediate=True)
        self.refresh()
        if page is not None:
            self.focus(scroll_visible=False)  # the arrows and the inspector work on the table on screen

    def find(self, source: Source) -> tuple[int, int, int] | None:
        """Where the view shows a run's cell: (table, row, col), the first table that has it."""
        for box in self.blocks.boxes:
            if isinstance(box.item, GridSpec):
                at = box.item.where.get(source)
                if at is not None:
                    return box.index, *at
        return None

    def _first_table(self) -> int:
        return next((b.index for b in self.blocks.boxes if isinstance(b.item, GridSpec)), 0)

    def _bump_changed(self, b: Box) -> list[int]:
        """A table shows a new spec: the lines whose cells differ from the spec it showed last get a new
        version, what they now show (so a value toggled back, or an undo, finds its lines drawn). Lines
        are cached by the table's key, so a table shown again unchanged (a step revisited) draws
        nothing anew. Returns the lines to draw again."""
        new = b.item
        old = self._seen.get(new.key)
        self._seen[new.key] = new
        if old is None:
            return []
        if isinstance(old, GridSpec) and isinstance(new, GridSpec):
            lines = []
            now, before = self._lines_shown(new, b), self._lines_shown(old, b)
            for line, (shows, showed) in enumerate(zip(now, before)):  # a frame that moved moves every line
                if shows is not showed and shows != showed:
                    self._versions[(new.key, line)] = self._version(shows)
                    lines.append(line)
            return lines
        lines = list(range(b.height)) if old != new else []
        for line in lines:  # the bars: a new version each time they change
            key = (new.key, line)
            self._versions[key] = self._versions.get(key, 0) + 1
        return lines

    def _lines_shown(self, spec: GridSpec, box: Box) -> tuple[Hashable, ...]:
        """What each line of a table shows (_line_shows), kept for the spec: a switch toggled back and
        forth compares the same two specs' lines again."""
        geometry = (box.first_row, box.height)
        kept = self._shown_by_spec.get(spec)
        if kept is not None and kept[0] == geometry:
            return kept[1]
        shown = tuple(_line_shows(spec, box, line) for line in range(box.height))
        self._shown_by_spec.put(spec, (geometry, shown))
        return shown

    def _version(self, shows: Hashable) -> int:
        """A small number for what a line shows, the same for the same content: a drawn line's key hashes
        it, not the whole row of numbers and marks. Numbers are never given twice, so a line shown long
        ago (its number forgotten) is drawn again, never taken for another."""
        version = self._version_of.get(shows)
        if version is None:
            if len(self._version_of) >= _LINES_KEPT:
                self._version_of.clear()
            version = self._version_of[shows] = self._next_version
            self._next_version += 1
        return version

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

    def on_resize(self, event: events.Resize) -> None:
        """A new width lays the step out again (the cursor stays, and in view); a new height alone
        (the inspector took a line) changes nothing but whether the words are compact."""
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

    # ---- what the cursor is on ----------------------------------------------------------------
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
        return self.spec.details[self.row][self.col] if self.on_cell else ""  # type: ignore[union-attr]

    @property
    def label(self) -> Label | None:
        spec = self.spec
        if spec is None or self.on_cell or not spec.rows or not spec.cols:
            return None
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

    # ---- the operand marks --------------------------------------------------------------------
    def set_lit(self, lit: dict[int, frozenset]) -> None:
        """Mark these cells (per box); only the lines that gain or lose a mark are drawn again."""
        lit = {k: v for k, v in lit.items() if v}
        if lit == self.lit:
            return
        old, self.lit = self.lit, lit
        ys: set[int] = set()
        for index in set(old) | set(lit):
            box = self.blocks.boxes[index] if index < len(self.blocks.boxes) else None
            if box is None:
                continue
            changed = old.get(index, frozenset()) ^ lit.get(index, frozenset())
            for line in {self._line_of(box, cell) for cell in changed}:
                ys.update(self._at(box, line))
        self._refresh_at(ys)

    def _line_of(self, box: Box, cell) -> int:
        if isinstance(box.item, LogitsSpec):
            for i, r in enumerate(box.item.rows):
                if cell in (r.logit_source, r.prob_source):
                    return box.first_row + i
            return 0
        return box.first_row + cell[0]

    # ---- drawing ------------------------------------------------------------------------------
    def _check_epoch(self) -> Painter:
        epoch = self.app.theme
        if epoch != self._epoch or self._painter is None:
            self._epoch = epoch
            self._base = self.rich_style  # the view's own colours, under every line
            self._drawn.clear()  # the lines drawn were drawn in the old theme's colours
            self._composed.clear()
            self._painter = Painter(
                LineStyles(
                    lambda name: self.get_component_rich_style(name, partial=True),
                    self.app.theme,
                    self.app.theme_variables,
                    self.app.console,
                    self._base,
                )
            )
        return self._painter

    @property
    def active(self) -> bool:
        """Whether the keys act here: the view has the focus (its cell editor is drawn inside it)."""
        return self.has_focus

    def _box_line(self, box: Box, line: int, cols: tuple[int, int] | None = None) -> Strip:
        """Line `line` of a table's frame (cols: only those of its columns, as _window gives them)."""
        focused = self.active and box.index == self.table
        cursor = None
        if focused and box.first_row - 1 <= line < box.height - 1:
            r = line - box.first_row
            if r == self.row:
                cursor = (self.row, self.col)
        lit = self.lit.get(box.index, frozenset())
        if lit and isinstance(box.item, GridSpec):
            r = line - box.first_row
            lit = frozenset(c for c in lit if c[0] == r)
        elif lit and line != box.first_row - 1:
            lit = frozenset(s for s in lit if self._line_of(box, s) == line)
        note = self._note() if line == box.height - 1 and box.index == self.table else None
        edit = None
        if cursor is not None and self.editor is not None and box.shape is not None and self.col >= 0:
            edit = self.editor.shown(box.shape.widths[self.col] + 1)  # the number's place and its mark's
        item = box.item
        version = self._versions.get((item.key, line), 0)
        shape = (box.width, box.bar_width, box.short, box.shape)
        key = (item.key, version, shape, line, cursor, lit, focused, note, edit, cols)
        self._last_key = key
        strip = self._drawn.get(key)
        if strip is None:
            self.lines_drawn += 1
            painter = self._painter
            assert painter is not None
            strip = self._drawn[key] = painter.line(box, line, focused, cursor, lit, note, edit, cols)
        return strip

    @staticmethod
    def _window(box: Box, sx: int, width: int) -> tuple[int, int] | None:
        """The columns of a table wider than the view worth drawing when it is scrolled to sx: those in
        the view and half a view past its right edge, from the half-view step at or before sx, so a
        scroll by a few columns finds its lines drawn (at d_model 64, W_O's lines are 586 columns and
        the view shows 90). None: all."""
        shape = box.shape
        if shape is None or box.width <= width:
            return None
        half = max(width // 2, 1)
        low = sx // half * half
        inside = shape.columns_in(low - box.x - FRAME, low + 3 * half - box.x - FRAME)
        if len(inside) == len(shape.widths):
            return None
        return inside.start, inside.stop

    def _note(self) -> tuple[str, str] | None:
        """What the editor says in its table's bottom border, while a cell is typed into."""
        if self.editor is None:
            return None
        ref = self.ref
        return editor_note(self.error, ref.label if ref else "")

    def render_line(self, y: int) -> Strip:
        painter = self._check_epoch()
        sx, sy = self.scroll_offset
        width = self.scrollable_content_region.width
        vy = sy + y
        base = self._base
        if vy < len(self._head) or vy > self._more_at:
            prose = self._head if vy < len(self._head) else self._more
            i = vy if vy < len(self._head) else vy - self._more_at - 1
            strip = prose[i] if 0 <= i < len(prose) else Strip([])
            # the words stay where they are when the tables scroll sideways
            return strip.crop(0, width).extend_cell_length(width).apply_style(base)
        heading = self.blocks.heading_at(vy)
        if heading is not None:  # a section's heading stays in place too
            line = Strip(
                [Segment(" " + heading.text, painter.styles.style("heading"))], len(heading.text) + 1
            )
            return line.crop(0, width).extend_cell_length(width).apply_style(base)
        parts: list[tuple[int, Strip]] = []
        keys: list[tuple] = []
        pinned: Box | None = None
        cut: tuple[Box, int] | None = None  # the table the view's right edge cuts, and its line here
        for box in self.blocks.at(vy):
            line = vy - box.y
            if self._pinned(box, sy) and y < box.first_row:
                line = y  # the title and the column header stay at the view's top
            if box.x < sx + width < box.x + box.width:
                cut = (box, line)
            parts.append((box.x, self._box_line(box, line, self._window(box, sx, width))))
            keys.append((box.x, self._last_key))
            inside = 0 < line < box.height - 1  # a border line has no labels: it is not pinned
            if pinned is None and inside and box.x < sx < box.x + box.width - label_width(box) - 1:
                pinned = box
        # the whole line, kept by what it is made of (a layout redraws every line of the screen)
        key = (tuple(keys), sx, width, pinned.index if pinned is not None else -1)
        composed = self._composed.get(key)
        if composed is not None:
            return composed
        # the painter's strips are over the view's colours already: the gaps between them are too
        if len(parts) == 1 and parts[0][0] == 0:
            line_strip = parts[0][1]
        else:
            segments: list[Strip] = []
            at = 0
            for x, strip in parts:
                if x > at:
                    segments.append(Strip([Segment(" " * (x - at), base)], x - at))
                segments.append(strip)
                at = x + strip.cell_length
            line_strip = Strip.join(segments) if segments else Strip([])
        line_strip = line_strip.crop(sx, sx + width)
        if pinned is not None:
            strip = parts[[b.index for b in self.blocks.at(vy)].index(pinned.index)][1]
            label = strip.crop(0, label_width(pinned))
            rest = line_strip.crop(label.cell_length, width)
            gap = min(_cut_by_labels(pinned, sx), rest.cell_length)
            if gap:  # the column the labels' edge cuts is left blank: no piece of a number beside them
                rest = Strip.join([Strip.blank(gap, base), rest.crop(gap, rest.cell_length)])
            line_strip = Strip.join([label, rest])
        if cut is not None:
            line_strip = _cut_at_right(line_strip, *cut, sx, width, painter.styles.style("label"), base)
        composed = line_strip.extend_cell_length(width, base)
        self._composed[key] = composed
        return composed

    def _pinned(self, box: Box, sy: int) -> bool:
        """Whether the view's top is inside box's rows (its title and header then stay at the top)."""
        return box.y < sy and sy + box.first_row < box.y + box.height - 1

    def _refresh_box_line(self, box: Box, line: int) -> None:
        self._refresh_at(self._at(box, line))

    def _at(self, box: Box, line: int) -> tuple[int, ...]:
        """Where a box's line is in the view's virtual space: its place, and the top of the view too
        while the box's title and header are pinned there."""
        sy = self.scroll_offset.y
        if line < box.first_row and self._pinned(box, sy):
            return box.y + line, sy + line
        return (box.y + line,)

    def _refresh_at(self, ys: Iterable[int]) -> None:
        """Draw these lines of the virtual space again: those on screen, a run of neighbours in one
        refresh (a line off screen is drawn when it scrolls in: a scroll draws every line)."""
        top = self.scroll_offset.y
        bottom = top + self.size.height
        start = end = None
        for y in sorted(y for y in set(ys) if top <= y < bottom):
            if start is not None and y == end:
                end += 1
                continue
            if start is not None:
                self.refresh_lines(start, end - start)
            start, end = y, y + 1
        if start is not None:
            self.refresh_lines(start, end - start)

    def _refresh_box(self, box: Box) -> None:
        self.refresh_lines(box.y, box.height)
        sy = self.scroll_offset.y
        if self._pinned(box, sy):
            self.refresh_lines(sy, box.first_row)

    def box_text(self, box: Box) -> list[str]:
        """A table's lines as plain text, frame included, as drawn (unscrolled)."""
        self._check_epoch()
        return ["".join(s.text for s in self._box_line(box, i)) for i in range(box.height)]

    def text(self) -> str:
        """Every line as plain text, as drawn unscrolled (tests and copying)."""
        self._check_epoch()
        out = ["".join(seg.text for seg in strip).rstrip() for strip in self._head]
        for vy in range(len(out), self.blocks.height):
            line = ""
            heading = self.blocks.heading_at(vy)
            if heading is not None:
                line = " " + heading.text
            for box in self.blocks.at(vy):
                strip = self._box_line(box, vy - box.y)
                line = line.ljust(box.x) + "".join(s.text for s in strip)
            out.append(line.rstrip())
        if self._more:
            out.append("")
            out += ["".join(seg.text for seg in strip).rstrip() for strip in self._more]
        return "\n".join(out)

    # ---- the cursor ---------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("commit", "cancel_edit"):
            return self.editor is not None
        if self.editor is not None and action in ("edit", "not_editable", "table", "move"):
            return False  # typing: the editor's keys only
        if action == "table":
            return self._next_table(int(parameters[0])) is not None  # type: ignore[call-overload]
        if action == "edit":
            return self.ref is not None
        if action == "not_editable":
            return self.ref is None
        return True

    def _next_table(self, step: int) -> int | None:
        boxes = self.blocks.boxes
        i = self.table + step
        while i in range(len(boxes)):
            if isinstance(boxes[i].item, GridSpec):
                return i
            i += step
        return None

    def action_table(self, step: int) -> None:
        nxt = self._next_table(step)
        if nxt is not None:
            self.move_to(0, 0, table=nxt)

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
        if box is None:
            return None
        shape = box.shape
        y = box.y + box.first_row + self.row
        if shape is None:
            return Region(box.x, box.y, box.width, box.height)
        if self.col < 0:
            return Region(box.x + FRAME, y, shape.label_w, 1)
        return Region(box.x + FRAME + shape.xs[self.col], y, shape.widths[self.col] + 2, 1)

    def scroll_to_cursor(self) -> None:
        box, cell = self.cursor_box, self.cell_region()
        if box is None or cell is None:
            return
        left = box.x if self.col <= 0 else cell.x
        top = box.y if self.row <= 0 else cell.y
        region = Region(left, top, cell.right - left, cell.bottom - top)
        # room at the right edge: a column after the cursor's (where a cut table's › goes), or the frame
        # after the last column, so the cursor's cell is never the one the edge cuts
        last = box.shape is None or self.col == len(box.shape.widths) - 1
        right = FRAME if last else 1
        top_room, left_room = box.first_row if self.row > 0 else 0, label_width(box) if self.col > 0 else 0
        spacing = Spacing(top_room, right, 0, left_room)
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
        x, y = offset.x + self.scroll_offset.x, offset.y + self.scroll_offset.y
        for box in self.blocks.at(y):
            if not box.x <= x < box.x + box.width or box.shape is None:
                continue
            r = y - box.y - box.first_row
            if not -1 <= r < box.shape.rows:
                return
            inner = x - box.x - FRAME
            col = -1 if inner < box.shape.label_w else None
            for c in box.shape.columns_in(inner, inner + 1):
                col = c
            if col is not None:
                self.move_to(r, col, table=box.index)
                if event.chain >= 2 and self.on_cell:
                    self.action_edit()
            return

    # ---- the editor ---------------------------------------------------------------------------
    def action_not_editable(self) -> None:
        if self.label is not None:
            message = "A label has nothing to edit: the arrows go back to the numbers."
        else:
            message = (
                "This value is computed from the weights. Edit a weight instead: the tables under "
                "“Weights it uses”, or ctrl+p → Edit parameter…"
            )
        refuse = getattr(self.app, "refuse", None)
        if refuse is not None:
            refuse(message, title="Not editable", severity="warning")
        else:
            self.app.notify(message, title="Not editable", severity="warning")

    @property
    def editing(self) -> bool:
        return self.editor is not None

    def check_consume_key(self, key: str, character: str | None) -> bool:
        """While a cell is typed into, a printable key is text (q, n or m type, they do not act)."""
        return self.editor is not None and character is not None and character.isprintable()

    def action_edit(self) -> None:
        ref = self.ref
        if ref is None:
            self.action_not_editable()
            return
        if ref.kind != "param":
            self.post_message(self.PickRequested(self, ref))
            return
        self.open_editor(self.spec.cells[self.row][self.col].strip())  # type: ignore[union-attr]

    def open_editor(self, value: str) -> None:
        """Type into the cell under the cursor, in its own place: its value is selected (the first key
        typed replaces it); Enter commits, Esc cancels."""
        self.error = ""
        self.editor = CellEdit(value, len(value))
        self._opened_with = value
        self._refresh_cursor_line()
        self._refresh_bottom()
        self.refresh_bindings()
        self._cursor_moved()  # the inspector says how to finish

    def close_editor(self, refocus: bool = True) -> None:
        editor, self.editor = self.editor, None
        self.error = ""
        if editor is not None:
            self._refresh_cursor_line()
            self._refresh_bottom()
            self.refresh_bindings()
            self._cursor_moved()
        if refocus and not self.has_focus:
            self.focus()

    def _refresh_cursor_line(self) -> None:
        box = self.cursor_box
        if box is not None:
            self._refresh_box_line(box, box.first_row + self.row)

    def _refresh_bottom(self) -> None:
        box = self.cursor_box
        if box is not None:
            self._refresh_box_line(box, box.height - 1)

    def cancel_edit(self) -> None:
        self.close_editor()

    def action_cancel_edit(self) -> None:
        self.close_editor()

    def action_commit(self) -> None:
        if self.editor is not None:
            self.submit(self.editor.text)

    def edit_refused(self, message: str) -> None:
        """The session said no: the editor stays open, the reason in its table's bottom border."""
        self.error = message
        self._refresh_bottom()

    def submit(self, text: str) -> None:
        """The editor's Enter: the app tries the text on the session (edit_refused says no). The text as
        the editor opened with it changes nothing: the cell shows its value to four places, and Enter on
        it must not round the weight (nor make an entry to undo)."""
        if text == self._opened_with:
            self.close_editor()
            return
        ref = self.ref
        if ref is not None:
            self.post_message(self.EditSubmitted(self, ref, text))

    def on_key(self, event: events.Key) -> None:
        """While a cell is typed into, the keys edit it: characters, Backspace, Delete, the arrows along
        the text, Home and End (ctrl+a, ctrl+e), ctrl+u and ctrl+k; Enter commits and Esc cancels.
        Other keys do nothing meanwhile."""
        editor = self.editor
        if editor is None:
            return
        event.stop()
        event.prevent_default()
        if event.key == "enter":
            self.submit(editor.text)
        elif event.key == "escape":
            self.close_editor()
        elif editor.take(event.key, event.character):
            self._typed_into()

    def _typed_into(self) -> None:
        """The editor's text or caret changed: its line is drawn again (and a refusal's reason goes:
        what was refused is being corrected)."""
        if self.error:
            self.error = ""
            self._refresh_bottom()
        self._refresh_cursor_line()

    def on_paste(self, event: events.Paste) -> None:
        if self.editor is not None:
            event.stop()
            self.editor.typed(" ".join(event.text.split()))  # one line: a pasted newline is a space
            self._refresh_cursor_line()


def _cut_by_labels(box: Box, sx: int) -> int:
    """Columns from the pinned labels' right edge to the first of the table's columns that begins at or
    after it, when the view is scrolled to sx: the part of a column the labels cut into."""
    shape = box.shape
    if shape is None:
        return 0
    edge = sx + label_width(box) - box.x - FRAME  # in the table's own columns
    i = bisect_left(shape.xs, edge)
    start = shape.xs[i] if i < len(shape.xs) else shape.table_width
    return max(start - edge, 0)


def _cut_at_right(strip: Strip, box: Box, line: int, sx: int, width: int, mark: Style, base: Style) -> Strip:
    """A screen line across a table the view's right edge cuts: its last column is a dim › (the table
    goes on to the right), and inside the frame the column the edge cuts is left blank, so no piece of a
    number (a lone 0) is read as a value."""
    keep = width - 1  # the view's columns kept as drawn
    shape = box.shape
    if shape is not None and 0 < line < box.height - 1:
        inner = sx + width - box.x - FRAME  # the edge, in the table's own columns
        cols = shape.columns_in(inner - 1, inner)
        if cols and shape.xs[cols.start] + shape.widths[cols.start] + 2 > inner:
            keep = min(keep, max(box.x + FRAME + shape.xs[cols.start] - sx, 0))
    strip = strip.extend_cell_length(width, base)
    return Strip.join(
        [strip.crop(0, keep), Strip.blank(width - 1 - keep, base), Strip([Segment("›", mark)], 1)]
    )


def _same_rows(a: StepLayout, b: StepLayout) -> bool:
    """Whether two layouts put the same blocks on the same lines (their widths may differ)."""
    if len(a.boxes) != len(b.boxes) or a.headings != b.headings:
        return False
    return all(
        (x.index, x.item.key, x.y, x.height) == (y.index, y.item.key, y.y, y.height)
        for x, y in zip(a.boxes, b.boxes)
    )


def item_key(item: Item) -> str:
    return item.key


def _frame_of(spec: GridSpec) -> tuple:
    """What every line of a table depends on: a change of it draws the whole table again."""
    return (spec.title, spec.shade, spec.limit, spec.corner, spec.cols, spec.groups, len(spec.rows))


def _line_shows(spec: GridSpec, box: Box, line: int) -> Hashable:
    """What a table's line shows, as a key its strip is kept by: the table's frame and, for a row, its
    label, its numbers (or texts), marks and values."""
    r = line - box.first_row
    if not 0 <= r < len(spec.rows):
        return _frame_of(spec)
    numbers = spec.cells.basis  # a row written from numbers reads as they do: no text written to compare
    row = tuple(numbers[r]) if numbers is not None else tuple(spec.cells[r])
    return _frame_of(spec), spec.rows[r], row, spec.marks[r], tuple(spec.values[r])
