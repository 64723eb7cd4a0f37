"""Small readers for what the app shows, so tests assert on screen content rather than internals."""

from tinytui.tui.widgets.grid.grid import Grid
from tinytui.tui.widgets.logits_pane import LogitBars
from tinytui.tui.widgets.status_bar import StatusBar
from tinytui.tui.widgets.step_info import StepInfo
from tinytui.tui.widgets.step_list import StepList
from tinytui.tui.widgets.step_panes import StepPanes

W_O = "param:blocks.0.W_O"  # the key of W_O's table (step 9)


def panes(app) -> StepPanes:
    return app.query_one(StepPanes)


def grid(app, key: str) -> Grid:
    return panes(app).grid(key)


def status(app) -> str:
    return app.query_one(StatusBar).text


def steplist(app) -> str:
    return app.query_one(StepList).text()


def info(app) -> str:
    return app.query_one(StepInfo).text


def logits(app) -> str:
    return app.query_one(LogitBars).text()


def cell(g: Grid, row_label: str, col: int) -> str:
    return g.spec.cells[g.spec.rows.index(row_label)][col]


async def press(pilot, *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await pilot.pause()


async def open_editor(pilot, app, key: str, row: int, col: int) -> Grid:
    """Focus a table, put the cursor on a cell and open its editor with Enter."""
    g = grid(app, key)
    g.focus()
    await pilot.pause()
    g.move_to(row, col)
    await press(pilot, "enter")
    assert g.editing
    return g


async def type_into_cell(pilot, app, key: str, row: int, col: int, text: str) -> Grid:
    """Open a cell's editor, type text and press Enter (a refused value leaves the editor open)."""
    g = await open_editor(pilot, app, key, row, col)
    await pilot.press(*text)
    await press(pilot, "enter")
    return g


def footer_keys(app) -> list[str]:
    """The labels the footer shows now, left to right."""
    from tinytui.tui.widgets.footer import TinyFooter

    return app.query_one(TinyFooter).labels()
