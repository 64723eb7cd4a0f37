"""Learning in the app: the backward walk, the ∂L/∂w overlay, a learning step, the learning rate, training."""

import numpy as np

from tests.tui.helpers import cell, grid, info, panes, press, status
from tinytui.model.backward.gradients import gradients
from tinytui.model.training import learn
from tinytui.present.grid_spec import EDITED
from tinytui.present.sparkline import sparkline
from tinytui.report.tables import fmt, on_screen
from tinytui.tui.screens.ask_screen import AskScreen
from tinytui.tui.screens.help_screen import help_rows
from tinytui.tui.widgets.step_list import StepList

W_2 = "param:blocks.0.W_2"
GRAD_W_2 = "grad:grad.blocks.0.W_2"


def formatted(arr) -> list[list[str]]:
    """As a table on screen shows them: fmt's numbers with the minus sign − (tables.on_screen)."""
    return [[on_screen(fmt(float(v))) for v in row] for row in np.atleast_2d(arr)]


async def test_the_backward_walk_shows_the_gradient_of_w_2_at_its_step(app):
    async with app.run_test(size=(120, 40)) as pilot:
        s = app.session
        expected = formatted(gradients(s.params, s.trace)["grad.blocks.0.W_2"])
        await press(pilot, "G", "b")  # from step 16 the walk starts at the loss, step 15
        assert app.session.mode.backward and s.step == 15
        assert status(app).startswith("◀ BACKWARD PASS · step 15 · Loss to logits")
        assert "∂L/∂ℓ = p − onehot(target)" in info(app)
        await press(pilot, "n", "n", "n")  # 15 → 14 → 13 → 12
        assert s.step == 12
        assert "BACKWARD PASS · step 12 · Through W_2 and the second residual" in status(app)
        assert "∂L/∂W_2 = hiddenᵀ · ∂L/∂FFN" in info(app)
        assert "n: on to step 11 · p: back to step 13" in info(app)
        g = grid(app, GRAD_W_2)
        assert [list(row) for row in g.spec.cells] == expected
        drawn = g.text()
        nonzero = {c for row in expected for c in row if c != "0.0000"}
        assert len(nonzero) >= 4  # the live units' rows, with minus signs kept
        assert all(c in drawn for c in nonzero) and any(c.startswith("−") for c in nonzero)
        assert g.spec.shade == "diverging"
        # what arrives (∂L/∂y from step 13) and what leaves (∂L/∂hidden, to step 11), labelled
        assert cell(grid(app, "grad:grad.blocks.0.y"), "3:chuck", 0) == on_screen(
            fmt(s.gradients["grad.blocks.0.y"][3, 0])
        )
        assert grid(app, "grad:grad.blocks.0.hidden").spec.rows == s.trace.token_labels
        titles = panes(app).headings()
        assert titles[0] == "Arriving from step 13" and titles[-1] == "Passed back to step 11"
        assert "◀12" in app.query_one(StepList).text()

        await press(pilot, "p")
        assert s.step == 13 and "grad:grad.z" in panes(app).items
        await press(pilot, "n")
        assert s.step == 12
        await press(pilot, "b")  # leaves: the forward pass at the same step
        assert not app.session.mode.backward and s.step == 12
        assert status(app).startswith("Step 12/16")
        assert GRAD_W_2 not in panes(app).items and W_2 in panes(app).items
        await press(pilot, "b", "escape")  # Esc leaves too
        assert not app.session.mode.backward and s.step == 12


async def test_the_walk_ends_at_step_2_and_jumps_stay_inside_it(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "3", "b")  # from inside the walk's range it starts where you are
        assert app.session.mode.backward and app.session.step == 3
        assert "No gradient is made or changed at this step" in panes(app).headings()[0]
        await press(pilot, "n")
        assert app.session.step == 2
        shown = on_screen(fmt(app.session.gradients["grad.E"][4, 3]))
        assert cell(grid(app, "grad:grad.E"), "wood", 3) == shown
        await press(pilot, "n")  # nowhere further back
        assert app.session.step == 2 and app.session.mode.backward
        await press(pilot, "1")  # step 1 is outside the walk: it shows step 2
        assert app.session.step == 2
        await press(pilot, "G")  # and 16 shows 15
        assert app.session.step == 15 and app.session.mode.backward


async def test_learning_step_updates_the_loss_pane_and_undo_restores_it(app):
    async with app.run_test(size=(120, 40)) as pilot:
        s = app.session
        params, trace = s.params, s.trace
        new = learn.sgd_step(params, gradients(params, trace), 0.5)
        expected = learn.train(params, s.state.prompt, s.state.target, k=1).losses[1]
        await press(pilot, "G", "p")  # step 15
        loss = grid(app, "output:loss")
        assert loss.spec.cells[0][0] == "1.1690"
        await press(pilot, "L")
        assert s.params == new
        assert loss.spec.cells[0][0] == fmt(expected) != "1.1690"
        assert loss.cell_classes(0, 0) == {"changed-down"}
        assert f"loss 1.1690 → {fmt(expected)} ▼" in status(app)
        assert f"learned 1 step of 0.5: 1.1690 → {fmt(expected)}" in status(app)
        await press(pilot, "p", "p", "p")  # step 12: every weight of W_2 is marked as changed
        w2 = grid(app, W_2)
        moved = np.argwhere(new["blocks.0.W_2"] != params["blocks.0.W_2"])
        assert len(moved) > 0
        assert all(EDITED in w2.cell_classes(int(r), int(c)) for r, c in moved)
        await press(pilot, "u")
        assert s.params == params and fmt(s.trace.loss) == "1.1690"
        assert "learned" not in status(app)
        await press(pilot, "n", "n", "n")
        assert grid(app, "output:loss").spec.cells[0][0] == "1.1690"
        await press(pilot, "ctrl+r")  # redo brings the step back, and its curve
        assert f"learned 1 step of 0.5: 1.1690 → {fmt(expected)}" in status(app)


async def test_the_overlay_shows_the_gradient_beside_each_weight(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9")
        assert "grad:grad.blocks.0.W_O" not in panes(app).items
        await press(pilot, "d")
        g = grid(app, "grad:grad.blocks.0.W_O")
        expected = formatted(app.session.gradients["grad.blocks.0.W_O"])
        assert [list(r) for r in g.spec.cells] == expected
        assert g.spec.rows == grid(app, "param:blocks.0.W_O").spec.rows  # same labels as the weight
        assert "−0.0617" in g.text()  # ∂L/∂W_O[h1.k0, action]: its sign is a minus sign, not a colour
        assert g.spec.title == "∂L/∂W_O"
        await press(pilot, "6")  # every weight table, here the three per-head ones
        assert {"grad:grad.blocks.0.W_Q", "grad:grad.blocks.0.W_K", "grad:grad.blocks.0.W_V"} <= set(
            panes(app).items
        )
        wq = grid(app, "grad:grad.blocks.0.W_Q")
        assert [g for g, _ in wq.spec.groups] == ["head 1", "head 2"]
        assert cell(wq, "thing", 0) == on_screen(fmt(app.session.gradients["grad.blocks.0.W_Q"][0, 0, 0]))
        await press(pilot, "d")
        assert "grad:grad.blocks.0.W_Q" not in panes(app).items


async def ask(pilot, app, text: str) -> AskScreen:
    screen = app.screen
    assert isinstance(screen, AskScreen)
    screen.query_one("Input").value = text
    await press(pilot, "enter")
    return screen


async def test_set_lr_refuses_bad_values_and_takes_a_good_one(app):
    async with app.run_test(size=(120, 40)) as pilot:
        titles = [c.title for c in app.palette_commands()]
        assert "Set learning rate…" in titles and "Learning step" in titles
        app.learning.set_lr()
        await pilot.pause()
        for text, why in (("abc", "'abc' is not a number"), ("0", "above 0, not 0"), ("nan", "'nan' is not")):
            screen = await ask(pilot, app, text)
            assert app.screen is screen and why in screen.message
            assert app.session.state.lr == 0.5 and len(app.session.history) == 1
        await ask(pilot, app, "0.1")
        assert not isinstance(app.screen, AskScreen)
        assert app.session.state.lr == 0.1
        await press(pilot, "G", "p", "L")
        assert "learned 1 step of 0.1" in status(app)


async def test_train_k_steps_shows_the_curve_and_refuses_a_bad_k(app):
    async with app.run_test(size=(120, 40)) as pilot:
        s = app.session
        run = learn.train(s.params, s.state.prompt, s.state.target, k=5, lr=0.5)
        await press(pilot, "T")
        screen = app.screen
        assert isinstance(screen, AskScreen) and screen.query_one("Input").value == "10"
        for text, why in (
            ("0", "between 1 and 1000, not 0"),
            ("1001", "not 1001"),
            ("abc", "not a whole number"),
        ):
            await ask(pilot, app, text)
            assert why in screen.message and len(s.history) == 1
        await ask(pilot, app, "5")
        await app.workers.wait_for_complete()  # training runs in a thread, then applies on the app's
        await pilot.pause()
        assert s.params == run.params and s.trace.loss == run.loss_new
        line = f"learned 5 steps of 0.5: 1.1690 {sparkline(run.losses)} {fmt(run.loss_new)}"
        assert line in status(app)
        assert sparkline(run.losses) == "█▂▂▁▁▁"
        assert f"loss 1.1690 → {fmt(run.loss_new)} ▼" in status(app)
        await press(pilot, "u")  # the whole run is one change
        assert len(s.history) == 2 and s.cursor == 0 and fmt(s.trace.loss) == "1.1690"


def footer_keys(app) -> set[str]:
    """The descriptions the footer shows now (enabled bindings marked show)."""
    return {b.binding.description for b in app.active_bindings.values() if b.enabled and b.binding.show}


async def test_the_keys_are_in_help_and_the_footer_says_what_b_does(app):
    async with app.run_test(size=(120, 40)) as pilot:
        rows = {(keys, what) for _, keys, what, _ in help_rows(app, app.help_sources())}
        assert {("b", "Backward"), ("d", "∂L/∂w"), ("L", "Learn"), ("T", "Train")} <= rows
        await pilot.pause()
        assert "Backward" in footer_keys(app) and "Forward" not in footer_keys(app)
        await press(pilot, "b")
        assert "Forward" in footer_keys(app) and "Backward" not in footer_keys(app)


async def test_the_parameter_browser_shows_the_gradient_on_d(app):
    async with app.run_test(size=(120, 40)) as pilot:
        app.edits.edit_parameter("W_2")
        await pilot.pause()
        tables = app.screen.query_one("#params-view")
        assert [b.item.key for b in tables.blocks.boxes] == ["param:blocks.0.W_2"]
        await press(pilot, "d")
        assert app.session.mode.gradients
        _, gradient = (b.item for b in tables.blocks.boxes)
        assert gradient.title.startswith("∂L/∂W_2")
        assert [list(r) for r in gradient.cells] == formatted(app.session.gradients["grad.blocks.0.W_2"])
        await press(pilot, "escape", "d")
        assert not app.session.mode.gradients


async def test_walk_steps_are_marked_backward_for_the_recorder(app):
    async with app.run_test(size=(120, 40)) as pilot:
        seen = []
        app.session.listeners.append(lambda e: seen.append((e.kind, dict(e.data))))
        await press(pilot, "G", "b", "n", "n", "escape", "p")
        assert seen == [
            ("step", {"step": 16}),
            ("step", {"step": 15, "backward": True}),
            ("step", {"step": 14, "backward": True}),
            ("step", {"step": 13, "backward": True}),
            ("mode", {"backward": False, "gradients": False}),  # Esc: the transcript knows it was left
            ("step", {"step": 12}),
        ]


async def test_a_change_made_while_training_runs_wins_and_the_training_is_refused(app):
    async with app.run_test(size=(120, 40)) as pilot:
        s = app.session
        training = s.plan_training(3)  # what the worker computes, from the state of that moment
        await press(pilot, "m")  # the user changes something before it lands
        app.learning.finish_training(training)
        await pilot.pause()
        assert not s.state.switches.causal_mask and len(s.history) == 2  # the toggle, no training
        assert any("changed while the training ran" in n.message for n in app.toasts.notes())
