"""A table's rows written when read (LazyRows): the same texts and widths as writing every cell, and
the rows off screen never written."""

import numpy as np

from tinytui.report.lazy_rows import LazyRows
from tinytui.report.tables import fmt, fmt_widths, number_rows, on_screen_rows


def widths_by_writing(values: np.ndarray) -> tuple[int, ...]:
    return tuple(max((len(fmt(v)) for v in values[:, c].tolist()), default=0) for c in range(values.shape[1]))


def test_widths_from_the_numbers_are_the_widths_of_their_texts():
    edge = np.array(
        [
            [9.99994, 9.99996, -0.00004, -0.00005, 99.99995, -9.99996, 0.0, np.nan],
            [0.5, -0.5, 0.00004, 0.00004, -1.0, 10.0, -0.0, 1.0],
            [-123.4, 1e6, -0.0, 0.0, 5.0, -5.0, 1e-9, np.inf],
        ]
    )
    assert fmt_widths(edge) == widths_by_writing(edge)
    assert fmt_widths(edge)[:3] == (9, 12, 6)  # -123.4000 · 1000000.0000 · 0.0000 (fmt writes −0.00004 so)
    rng = np.random.default_rng(7)
    for scale in (1e-5, 1e-3, 1.0, 10.0, 1e3):
        values = rng.normal(0, scale, (9, 13))
        values[rng.random((9, 13)) < 0.1] = 0.0
        assert fmt_widths(values) == widths_by_writing(values), scale
    assert fmt_widths(np.zeros((0, 3))) == (0, 0, 0)


def test_rows_are_written_only_when_read():
    written = []

    def row(r: int) -> tuple[str, ...]:
        written.append(r)
        return (f"r{r}", "x" * r)

    rows = LazyRows(40, row)
    assert rows[3] == ("r3", "xxx") and rows[-1] == ("r39", "x" * 39)
    assert written == [3, 39]
    assert rows[3] == ("r3", "xxx") and written == [3, 39]  # a row is written once
    assert rows.widths() == (3, 39) and len(written) == 40  # measuring reads them all


def test_number_rows_know_their_widths_and_compare_by_their_numbers():
    values = np.array([[1.5, -22.25, 0.0], [3.0, 4.0, -0.00001]])
    rows = number_rows(values)
    assert rows.widths() == (6, 8, 6)
    assert rows == (("1.5000", "-22.2500", "0.0000"), ("3.0000", "4.0000", "0.0000"))
    moved = number_rows(values + np.array([[0, 0, 0], [1, 0, 0]]))
    assert rows.same_row(moved, 0) and not rows.same_row(moved, 1)
    assert not rows.same_row((("1.5000", "-22.2500", "9"),), 0)  # texts compared when no numbers


def test_joined_and_cut_rows_keep_widths_numbers_and_texts():
    a, b = number_rows(np.array([[1.0], [-2.0]])), number_rows(np.array([[30.0, 4.0], [5.0, -60.0]]))
    joined = LazyRows.joined([a, b], 2)
    assert joined == (("1.0000", "30.0000", "4.0000"), ("-2.0000", "5.0000", "-60.0000"))
    assert joined.widths() == (7, 7, 8) and joined.basis[1] == (-2.0, 5.0, -60.0)
    cut = joined.columns(1, 3)
    assert cut == (("30.0000", "4.0000"), ("5.0000", "-60.0000")) and cut.widths() == (7, 8)
    assert cut.basis[0] == (30.0, 4.0)
    texts = LazyRows.joined([a, (("x",), ("yy",))], 2)  # one part without numbers: texts compared
    assert texts.basis is None and texts.widths() == (7, 2)


def test_a_part_of_a_row_reads_as_the_row_does_and_writes_only_the_part():
    values = np.array([[1.5, -22.25, -0.00001, 7.0, -3.0], [3.0, 4.0, 0.0, -0.5, 1e6]])
    shown = on_screen_rows(number_rows(values)).columns(1, 5)  # as a window of a table on screen shows
    for r in range(2):
        for a in range(5):
            for b in range(a, 6):
                assert shown.part(r, a, b) == shown[r][a:b], (r, a, b)
    assert shown.part(0, 0, 2) == ("\u221222.2500", "0.0000")  # the screen's minus, fmt's −0 as 0
    written = []
    rows = LazyRows(3, lambda r: written.append(("row", r)) or ("a", "b", "c"))
    parts = LazyRows(3, rows.__getitem__, part=lambda r, a, b: written.append(("part", r)) or ("c",)[: b - a])
    assert parts.part(1, 2, 3) == ("c",) and written == [("part", 1)]  # the row was not made
    assert parts[1] == ("a", "b", "c") and parts.part(1, 0, 2) == ("a", "b")  # made: read off the row
    assert rows.part(2, 1, 3) == ("b", "c")  # no part maker: the row is made
