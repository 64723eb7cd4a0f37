"""Every panel kind a stage uses has a builder in each module that draws it (no step numbers needed)."""

from tinytui.lesson.panels import KINDS, LOGITS_GRADIENT
from tinytui.lesson.stages import STAGES
from tinytui.present.backward_tables import PASSED_BACK
from tinytui.present.cells import PANEL_ROWS
from tinytui.report.step_report import PANEL_TABLES


def test_the_printer_and_the_grids_draw_every_forward_panel_kind():
    used = {p.kind for s in STAGES for p in (*s.panels, *s.inputs)}
    assert used <= set(PANEL_TABLES) and used <= set(PANEL_ROWS)
    assert set(PANEL_TABLES) | set(PANEL_ROWS) | set(PASSED_BACK) <= KINDS


def test_the_walk_draws_every_passed_back_panel_kind():
    used = {p.kind for s in STAGES for p in s.passed_back}
    assert used == {LOGITS_GRADIENT} and used <= set(PASSED_BACK)
