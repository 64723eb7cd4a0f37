"""One minus sign on screen: tables, formulas and legends write U+2212 (−); print, transcripts and
recordings keep ASCII '-' (fmt), which every reader and every recording already made reads back."""

import numpy as np
from rich.text import Text

from tests.apps import make_app
from tinytui.model.checks import number
from tinytui.present.grid_spec import Cell, GridSpec, grid
from tinytui.report.tables import (
    MINUS,
    fmt,
    number_rows,
    on_screen,
    on_screen_numbers,
    on_screen_row,
    on_screen_rows,
    on_screen_text,
)
from tinytui.themes.legend import legend


def test_on_screen_changes_a_numbers_minus_only():
    assert on_screen(fmt(-1.732)) == "−1.7320" and on_screen(fmt(0.5)) == "0.5000"
    assert on_screen("-") == "-" and on_screen("pre-norm") == "pre-norm"
    assert number(on_screen(fmt(-1.732))) == -1.732  # what the editor shows is read back
    line = "head_1[3,0] = 0.2758  (was -0.4903, Δ -0.7662)  pre-norm, 1e-3, x-1, (a)-1"
    assert on_screen_text(line) == (
        "head_1[3,0] = 0.2758  (was −0.4903, Δ −0.7662)  pre-norm, 1e-3, x-1, (a)-1"
    )
    assert fmt(-1.732) == "-1.7320"  # printed reports are unchanged


async def test_tables_on_screen_use_one_minus_sign():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("5")  # LN(x): negative numbers
        await pilot.pause()
        cells = [text for spec in _specs(app) for row in spec.cells for text in row]
        assert "−1.7320" in cells  # LN(x)[0:a, thing]
        assert not any(text.startswith("-") and text[1:2].isdigit() for text in cells)
        key = legend(app.theme_variables, "diverging", limit=1.5)  # the legends: the same sign
        assert isinstance(key, Text) and key.plain.startswith(f"{MINUS}1.50 ")


def _specs(app):
    from tinytui.present.backward_tables import pane_sections  # what the step's pane shows

    return [item for section in pane_sections(app.view()) for row in section.rows for item in row
            if isinstance(item, GridSpec)]  # fmt: skip


def test_a_table_formatted_a_row_at_a_time_reads_as_each_cell_formatted_alone():
    values = np.array(
        [[-0.00001, -0.0, 0.0, 1.23456, -1.23455, 9.99996], [np.inf, -np.inf, 1e300, -0.00005, 0.00005, -7.5]]
    )
    rows = number_rows(values)
    assert rows == tuple(tuple(fmt(v) for v in row) for row in values)
    assert rows[0][:3] == ("0.0000", "0.0000", "0.0000") and rows[0][5] == "10.0000"
    assert number_rows(np.zeros((2, 0))) == ((), ())


def test_a_table_of_numbers_on_screen_reads_as_each_cell_alone():
    values = np.array([[-0.00001, -1.5, 2.25], [np.inf, -np.inf, np.nan], [-7.5, 0.0, -0.00005]])
    rows = number_rows(values)
    shown = on_screen_rows(rows)
    assert shown == tuple(tuple(on_screen_text(cell) for cell in row) for row in rows)
    assert shown[0] == ("0.0000", "−1.5000", "2.2500") and shown[1][1] == "-inf"  # not a number's sign
    assert on_screen_rows(number_rows(np.ones((2, 2)))) == number_rows(np.ones((2, 2)))
    assert on_screen_rows(((), ())) == ((), ())
    assert shown.widths() == (7, 7, 7)  # the widths hold: − is one column, as - was


def test_a_row_of_cells_on_screen_changes_only_a_numbers_sign():
    spec = grid_of((("-0.5000", "pre-norm", "✓-0.4714"), ("0.2500", "x-1", "-")))
    assert spec.cells == (("−0.5000", "pre-norm", "✓−0.4714"), ("0.2500", "x-1", "-"))


def grid_of(texts) -> GridSpec:
    cells = [[Cell(text) for text in row] for row in texts]
    return grid("t", "t", "", tuple(str(r) for r in range(len(texts))), ("a", "b", "c"), cells, "", "output")


def test_rows_of_numbers_on_screen_read_as_any_row_on_screen():
    values = np.array([[-1.5, 0.25, -np.inf, np.inf, np.nan, -0.00001, -12.0, 3.0]])
    texts = number_rows(values)[0]
    assert on_screen_numbers(texts) == on_screen_row(texts)
    assert on_screen_numbers(texts) == (
        "−1.5000",
        "0.2500",
        "-inf",
        "inf",
        "nan",
        "0.0000",
        "−12.0000",
        "3.0000",
    )
    assert on_screen_numbers(("1.0000", "2.0000")) == ("1.0000", "2.0000") and on_screen_numbers(()) == ()
