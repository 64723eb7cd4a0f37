"""Marks mean what they say. After + (a token appended) or its undo, a cell is marked changed only where
its value changed at the same position: step 6's Q, K and V keep rows 0–3 unmarked, as the KV cache says
they were reused, and the step list counts no change there. A cell the causal mask blocks keeps its ×
in every view, even when its score moved."""

from __future__ import annotations

import re

from tests.apps import make_app
from tests.tui.helpers import press, steplist, tables
from tinytui.present.grid_spec import CHANGED, DOWN, UP


def changed_rows(table) -> set[int]:
    return {r for r, row in enumerate(table.spec.marks) if any(m & {UP, DOWN, CHANGED} for m in row)}


async def test_after_an_append_and_its_undo_the_reused_rows_are_not_marked():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "6", "plus")
        qkv = [t for t in tables(app) if t.key.startswith("output:blocks.0.")]
        assert [t.key.split(".")[2] for t in qkv] == ["q", "k", "v"]
        assert all(changed_rows(t) == set() for t in qkv)  # row 4 is new: not "changed" either
        counted = [re.match(r"\W*(\d+) ", line)[1] for line in steplist(app).splitlines() if "Δ" in line]
        assert counted == ["13", "14", "15"]  # the steps that read the last position, now 4:wood
        await press(pilot, "u")
        assert all(changed_rows(t) == set() for t in tables(app) if t.key.startswith("output:blocks.0."))


async def test_a_masked_score_keeps_its_cross_when_it_moved_in_both_views():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply(lambda s: s.edit("blocks.0.W_Q", (0, 1, 0), 2.0), "edit W_Q")
        await press(pilot, "7")
        head_1 = tables(app)[0]
        assert head_1.spec.marks[0][1] >= {UP}  # S_1[0,1] moved up, and the mask blocks it
        row = head_1.text().splitlines()[2]
        assert row.startswith("0:a") and row.count("×") == 3, row
        await press(pilot, "z")  # the presenter view
        row = tables(app)[0].text().splitlines()[2]
        assert row.startswith("0:a") and row.count("×") == 6, row
