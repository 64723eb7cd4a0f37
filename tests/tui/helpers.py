"""Small readers for what the app shows, so tests assert on screen content rather than internals."""

from tinytui.present.grid_spec import GridSpec, LogitsSpec
from tinytui.tui.widgets.status_bar import StatusBar
from tinytui.tui.widgets.step_list import StepList
from tinytui.tui.widgets.step_view import StepView

W_O = "param:blocks.0.W_O"  # the key of W_O's table (step 9)


def view(app) -> StepView:
    return app.query_one(StepView)


class Table:
    """One table of the step view, read the way the screen shows it: its spec, the cursor when it is
    in this table, its lines as drawn."""

    def __init__(self, app, key: str) -> None:
        self.app, self.key = app, key

    @property
    def view(self) -> StepView:
        return view(self.app)

    @property
    def box(self):
        """The table's block; a table of heads too wide for the view is one block per head (its keys
        end #0, #1, …): then the first head's."""
        box = self.view.box_of(self.key) or self.view.box_of(f"{self.key}#0")
        assert box is not None, f"no table {self.key} on screen"
        return box

    @property
    def index(self) -> int:
        return self.box.index

    @property
    def spec(self) -> GridSpec:
        return self.box.item

    @property
    def here(self) -> bool:
        return self.view.table == self.index

    @property
    def row(self) -> int:
        assert self.here
        return self.view.row

    @property
    def col(self) -> int:
        assert self.here
        return self.view.col

    @property
    def has_focus(self) -> bool:
        return self.view.has_focus and self.here

    @property
    def editing(self) -> bool:
        return self.here and self.view.editing

    @property
    def lit(self) -> frozenset:
        return self.view.lit.get(self.index, frozenset())

    @property
    def label(self):
        return self.view.label if self.here else None

    @property
    def source(self):
        return self.view.source if self.here else None

    @property
    def ref(self):
        return self.view.ref if self.here else None

    @property
    def detail(self):
        return self.view.detail if self.here else ""

    def focus(self) -> None:
        self.view.focus()
        if not self.here:
            self.view.move_to(0, 0, table=self.index)

    def move_to(self, row: int, col: int) -> None:
        self.view.move_to(row, col, table=self.index)

    @property
    def error(self) -> str:
        return self.view.error if self.here else ""

    @property
    def buffer(self) -> str:
        editor = self.view.editor
        return editor.text if self.here and editor is not None else ""

    def cell_style(self, row: int, col: int):
        """The style the cell (row, col) is drawn in (the segment under its number)."""
        from tinytui.present.step_layout import FRAME

        box, shape = self.box, self.box.shape
        strip = self.view._box_line(box, box.first_row + row)
        x = FRAME + shape.xs[col] + 1
        at = 0
        for segment in strip:
            if at <= x < at + len(segment.text):
                return segment.style
            at += len(segment.text)
        raise AssertionError("no segment under the cell")

    @property
    def legend_text(self):
        """The shading's key as drawn in the bottom border (a Text with its colours), or None."""
        from rich.style import Style
        from rich.text import Text

        strip = list(self.view._box_line(self.box, self.box.height - 1))
        inner = strip[1:-1]  # between the border's corner pieces
        if not inner:
            return None
        key = Text()
        ground = self.view.rich_style.bgcolor  # under every segment of the line, the key's too
        for segment in inner:
            style = segment.style
            if style is not None and style.bgcolor == ground:
                style = Style(color=style.color, bold=style.bold)
            key.append(segment.text, style)
        return key

    def shape(self):
        return self.box.shape

    def cell_classes(self, row: int, col: int) -> frozenset[str]:
        return self.spec.marks[row][col]

    @property
    def legend(self) -> str:
        """The shading's key in the bottom border, as drawn ("" when it has none)."""
        bottom = self.frame()[-1]
        return bottom[3:].rstrip("─╯┛ ").strip()

    def find(self, source):
        return self.spec.where.get(source)

    def text(self) -> str:
        """The table's lines inside its frame (title excluded), as drawn, then its bottom border's
        words (the key, or the editor's keys or refusal)."""
        box = self.box
        lines = self.view.box_text(box)
        inner = [line[2:-2].rstrip() for line in lines[1:-1]]
        return "\n".join([*inner, lines[-1][3:].rstrip("─━╯┛ ")])

    def frame(self) -> list[str]:
        return self.view.box_text(self.box)


def tables(app) -> list[Table]:
    return [Table(app, b.item.key) for b in view(app).blocks.boxes if isinstance(b.item, GridSpec)]


def words(app) -> tuple[list[str], list[str]]:
    """The step view's lines above its first heading, and those after its last table."""
    widget = view(app)
    lines = widget.text().split("\n")
    first = widget.blocks.headings[0].y if widget.blocks.headings else len(lines)
    head = lines[:first]
    while head and not head[-1].strip():  # the blank line under the words (none under compact ones)
        head.pop()
    return head, lines[widget.blocks.height :]


def joined(lines: list[str]) -> str:
    """Wrapped lines as one text again (each line's leading space dropped)."""
    return " ".join(line.strip() for line in lines)


def grid(app, key: str) -> Table:
    return Table(app, key)


def logits_box(app):
    return next(b for b in view(app).blocks.boxes if isinstance(b.item, LogitsSpec))


def status(app) -> str:
    return app.query_one(StatusBar).text


def steplist(app) -> str:
    return app.query_one(StepList).text()


def info(app) -> str:
    return view(app).info_text


def logits(app) -> str:
    """The bars as drawn, inside their frame."""
    lines = view(app).box_text(logits_box(app))
    return "\n".join(line[2:-2].rstrip() for line in lines[1:-1])


def cell(g: Table, row_label: str, col: int) -> str:
    return g.spec.cells[g.spec.rows.index(row_label)][col]


async def press(pilot, *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await pilot.pause()


async def open_editor(pilot, app, key: str, row: int, col: int) -> Table:
    """Focus a table, put the cursor on a cell and open its editor with Enter."""
    g = grid(app, key)
    g.focus()
    await pilot.pause()
    g.move_to(row, col)
    await press(pilot, "enter")
    assert g.editing
    return g


async def type_into_cell(pilot, app, key: str, row: int, col: int, text: str) -> Table:
    """Open a cell's editor, type text and press Enter (a refused value leaves the editor open)."""
    g = await open_editor(pilot, app, key, row, col)
    await pilot.press(*text)
    await press(pilot, "enter")
    return g


async def answer_dialog(pilot, app, title: str, *keys: str) -> str:
    """Run the palette command whose title starts with title, press keys in its dialog and return what
    the dialog's message line says then."""
    from textual.widgets import Static

    next(c for c in app.palette_commands() if c.title.startswith(title)).run()
    await pilot.pause()
    await pilot.press(*keys)
    await pilot.pause()
    return str(app.screen.query_one("#ask-message", Static).render())


def footer_keys(app) -> list[str]:
    """The labels the footer shows now, left to right."""
    from tinytui.tui.widgets.footer import TinyFooter

    return app.query_one(TinyFooter).labels()


class Panes:
    """The step's tables and headings as the step view shows them (what StepPanes held as widgets)."""

    def __init__(self, app) -> None:
        self.app = app

    @property
    def view(self) -> StepView:
        return view(self.app)

    @property
    def items(self) -> dict[str, Table]:
        return {b.item.key: Table(self.app, b.item.key) for b in self.view.blocks.boxes}

    def grids(self) -> list[Table]:
        return tables(self.app)

    def grid(self, key: str) -> Table:
        return Table(self.app, key)

    def headings(self) -> list[str]:
        return [h.text for h in self.view.blocks.headings]

    @property
    def page(self):
        return self.view.page

    def page_count(self) -> int:
        return self.view.page_count()


def panes(app) -> Panes:
    return Panes(app)
