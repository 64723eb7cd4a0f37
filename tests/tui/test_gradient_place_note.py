"""d says where ∂L/∂w is drawn, as the step's layout placed it: beside its weight table only when both fit
the width, below it when not (the notice used to say "beside every weight table" either way)."""

from __future__ import annotations

import pytest

from tests.apps import make_app
from tests.tui.helpers import press
from tinytui.tui.widgets.step_view import StepView


def placed(app) -> dict[str, bool]:
    """Each weight table's title -> whether its gradient's table is on its lines, to its right."""
    out = {}
    for view in app.screen.walk_children(StepView):
        weights = {b.item.key: b for b in view.blocks.boxes if b.item.key.startswith("param:")}
        for box in view.blocks.boxes:
            if box.item.key.startswith("grad:grad."):
                weight = weights[box.item.key.replace("grad:grad.", "param:")]
                out[weight.item.title] = box.y == weight.y and box.x > weight.x
    return out


@pytest.mark.parametrize(("width", "beside"), [(120, False), (230, True)])
async def test_the_gradient_notice_says_where_the_gradients_are(width, beside):
    app = make_app()
    async with app.run_test(size=(width, 40)) as pilot:
        await press(pilot, "6", "d")
        assert placed(app) == {"W_Q": beside, "W_K": beside, "W_V": beside}
        said = [n.message for n in app.toasts.notes()][-1]
        where = "beside each weight table" if beside else "below each weight table"
        assert said.startswith(f"∂L/∂w is now shown {where}"), said
        assert "sits beside every weight table" not in said


async def test_at_a_step_without_weights_the_notice_gives_the_rule():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "7", "d")
        said = [n.message for n in app.toasts.notes()][-1]
        assert said.startswith(
            "∂L/∂w is now shown at steps 2, 6, 9, 11, 12, 14, 16, beside a weight table"
        ), said


def test_a_step_with_some_gradients_beside_and_some_below_names_them():
    from tinytui.present.gradient_places import GradientPlace, where_said

    places = (GradientPlace("W_1", True), GradientPlace("b_1", True), GradientPlace("W_2", False))
    assert where_said(places) == ("beside W_1 and b_1, below W_2 (no room beside it)")
