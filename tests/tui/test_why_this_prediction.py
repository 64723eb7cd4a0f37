"""Why this prediction in the app (issue 46): the logit lens beside steps 13 and 14 and in the watch
pane, activation patching entered with A and read cell by cell, and a two-run compare's A, B and B − A."""

from tests.tui.helpers import grid, press
from tinytui.tui.actions import ACTION_BY_ID
from tinytui.tui.widgets.step_view import StepView
from tinytui.tui.widgets.watch_pane import WatchPane


def inspector(app) -> str:
    return app.query_one("#inspector").text


async def settle(pilot, n: int = 4) -> None:
    for _ in range(n):
        await pilot.pause()


async def on_cell(pilot, app, key: str, row: int, col: int):
    g = grid(app, key)
    g.focus()
    await pilot.pause()
    g.move_to(row, col)
    await settle(pilot, 2)
    return g


async def type_into_box(pilot, app, text: str) -> None:
    app.screen.query_one("Input").value = text
    await pilot.press("enter")
    await settle(pilot)


async def test_the_lens_shows_beside_step_13_and_14_and_its_last_row_is_the_prediction(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "1")
        assert "lens" not in [t.key for t in app.query_one(StepView).tables()]  # step 1: not shown
        app.steps.goto(13)
        await settle(pilot)
        spec = grid(app, "lens").spec
        assert spec.rows == ("before", "attn", "after =")
        assert [row[0] for row in spec.cells] == ["0.3647", "0.2952", "0.3107"]
        app.steps.goto(14)
        await settle(pilot)
        g = await on_cell(pilot, app, "lens", 2, 0)
        assert g.spec.cells[2][2] == "wood 0.3107"  # the step's own p(wood), 0.3107
        text = inspector(app)
        assert "after block 1: the stream y at 3:chuck" in text
        assert "final LayerNorm" in text and "unembedding" in text and "p(wood) = 0.3107" in text


async def test_the_watch_pane_shows_the_lens(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "W")
        await settle(pilot)
        lines = app.query_one(WatchPane).text().split("\n")
        at = lines.index("Logit lens")
        assert lines[at + 2].startswith("before") and lines[at + 2].endswith("0.3647 wood")
        assert lines[at + 4].startswith("after") and lines[at + 4].endswith("0.3107 wood")


async def test_a_patched_cell_says_which_run_it_comes_from_and_what_was_patched(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "A")
        await type_into_box(pilot, app, "a much would chuck")
        await type_into_box(pilot, app, "chuck")
        await app.workers.wait_for_complete()  # the patched runs are made in a thread
        await settle(pilot)
        assert app.session.step == 14
        g = await on_cell(pilot, app, "patch:resid", 0, 1)
        assert g.spec.cols == ("0:a", "1:woodchuck/much", "2:would", "3:chuck")
        assert g.spec.cells[0] == ("0.7542", "0.7120", "0.7542", "0.7542")
        said = inspector(app)
        assert said.startswith("logit(wood) − logit(chuck) = 0.7120, 100% of the change")
        assert "the clean run's block 1 input at 1:woodchuck/much written into the corrupted run" in said
        heads = grid(app, "patch:heads").spec
        assert heads.cells[0] == ("0.7153", "0.7518")


async def test_patching_set_in_the_backward_walk_shows_the_forward_step_14(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "b")
        assert app.session.mode.backward
        await press(pilot, "A")
        await type_into_box(pilot, app, "a much would chuck")
        await type_into_box(pilot, app, "chuck")
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert app.session.step == 14 and not app.session.mode.backward  # where the heatmap is
        assert grid(app, "patch:resid").spec.cells[0] == ("0.7542", "0.7120", "0.7542", "0.7542")


async def test_a_corrupted_prompt_of_another_length_is_refused_in_one_line(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "A")
        await type_into_box(pilot, app, "a much")
        message = str(app.screen.query_one("#ask-message").render())
        assert "2 tokens; the prompt has 4" in message and "\n" not in message
        await type_into_box(pilot, app, "a much would chuck")
        await type_into_box(pilot, app, "zzz")
        message = str(app.screen.query_one("#ask-message").render())
        assert message.startswith("✗ the foil: 'zzz' is not in the vocabulary") and "\n" not in message
        assert app.session.patch_setting is None


async def test_comparing_a_state_with_itself_shows_zeros(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9")
        app.action_do("compare-pinned")
        await settle(pilot)
        view = app.query_one(StepView)
        keys = [t.key for t in view.tables()]
        b = "output:blocks.0.mha"
        assert keys.index(f"compare-a:{b}") + 1 == keys.index(b) == keys.index(f"compare-d:{b}") - 1
        d = grid(app, f"compare-d:{b}").spec
        assert all(cell == "0.0000" for row in d.cells for cell in row)
        g = await on_cell(pilot, app, f"compare-d:{b}", 1, 0)
        assert "A (the state pinned) = " in inspector(app) and "B − A = 0.0000" in inspector(app)
        assert g.spec.marks[1][0] == frozenset()
        # the cursor's cell is lit in A and B too, and moves with it
        assert grid(app, f"compare-a:{b}").lit == {(1, 0)} and grid(app, b).lit == {(1, 0)}
        g.move_to(2, 3)
        await settle(pilot, 2)
        assert grid(app, f"compare-a:{b}").lit == {(2, 3)} and grid(app, b).lit == {(2, 3)}


async def test_an_edit_after_pinning_shows_in_b_minus_a_with_its_sign(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9")
        app.action_do("compare-pinned")
        app.apply(lambda s: s.edit("W_O", (0, 0), 2.0))
        await settle(pilot)
        d = grid(app, "compare-d:param:blocks.0.W_O").spec
        old = float(app.session.model.params["blocks.0.W_O"][0, 0])
        assert d.cells[0][0] == f"{2.0 - old:+.4f}".replace("-", "−")
        assert d.marks[0][0] == frozenset({"changed-up" if old < 2.0 else "changed-down"})


def test_the_features_are_in_the_palette_and_the_help():
    assert ACTION_BY_ID["patch"].palette == "Patch a corrupted prompt…" and ACTION_BY_ID["patch"].keys == "A"
    assert ACTION_BY_ID["compare-runs"].keys == "C"
    assert "logit lens" in ACTION_BY_ID["watch-pane"].help
