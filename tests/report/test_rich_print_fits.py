"""`tinytui print` in a terminal (Rich): a table wider than the terminal is split into column groups
that each say which columns they hold, so every number keeps its 4 decimals, and titles and labels are
shown as written ([head_1; …; head_4] is not Rich markup)."""

import re
from io import StringIO
from pathlib import Path

import numpy as np
from rich.console import Console

from tinytui.lesson.stages import STAGE_BY_NUMBER
from tinytui.model.io.model_file import load
from tinytui.model.switches import defaults
from tinytui.model.trace import run
from tinytui.report.render import FittedTable, plain_table, rich_report
from tinytui.report.step_report import stage_report
from tinytui.report.tables import Table, fmt

WOODLAND = Path(__file__).parents[2] / "model" / "presets" / "woodland.json"


def drawn(renderable, width: int) -> str:
    out = StringIO()
    Console(file=out, width=width, color_system=None, legacy_windows=False).print(renderable)
    return out.getvalue()


def test_a_wide_step_keeps_every_number_whole_at_80_columns():
    model = load(WOODLAND)
    trace = run(model.params, model.prompt, model.target, defaults(model.cfg))
    text = drawn(rich_report(stage_report(trace, STAGE_BY_NUMBER[9])), 80)
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "MHA(LN(x)) = [head_1; …; head_4] W_O (columns 1–" in text
    assert not re.search(r"[\d-]…", text)  # no number cut to an ellipsis
    cells = set(text.replace("│", " ").split())
    assert {fmt(v) for v in np.ravel(trace["blocks.0.mha"])} <= cells


def test_labels_that_look_like_markup_are_shown_as_they_are():
    table = Table("E[id] — rows", "tokens", ("0:[/b]", "1:[bold]x"), ("[d0]",), (("1.0000",), ("2.0000",)))
    text = drawn(FittedTable(table), 60)
    for shown in ("E[id] — rows", "0:[/b]", "1:[bold]x", "[d0]", "2.0000"):
        assert shown in text


def test_a_table_with_no_rows_still_prints_its_title_and_header():
    table = Table("nothing kept", "tokens", (), ("a", "b"), ())
    assert plain_table(table, 40).splitlines() == ["nothing kept", "tokens  a  b"]
    assert "nothing kept" in drawn(FittedTable(table), 40)
