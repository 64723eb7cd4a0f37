"""Small readers for what the app shows, so tests assert on screen content rather than internals."""

from tinytui.widgets.grid import Grid
from tinytui.widgets.logits import LogitBars
from tinytui.widgets.panes import StepPanes
from tinytui.widgets.status import StatusBar
from tinytui.widgets.steps import StepList


def panes(app) -> StepPanes:
    return app.query_one(StepPanes)


def grid(app, key: str) -> Grid:
    return panes(app).grid(key)


def status(app) -> str:
    return app.query_one(StatusBar).text


def steplist(app) -> str:
    return app.query_one(StepList).text()


def logits(app) -> str:
    return app.query_one(LogitBars).text()


def cell(g: Grid, row_label: str, col: int) -> str:
    return g.spec.cells[g.spec.rows.index(row_label)][col]


async def press(pilot, *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await pilot.pause()
