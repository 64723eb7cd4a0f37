"""The stepper: keys move through the sixteen steps and each step shows its own numbers."""

from tests.apps import make_app
from tests.tui.helpers import cell, grid, info, logits, panes, press, status, steplist
from tinytui.lesson.stages import STAGES


def current_line(app) -> str:
    return next(line for line in steplist(app).splitlines() if line.startswith("▸"))


async def test_keys_walk_every_step_and_back(app):
    async with app.run_test(size=(120, 40)) as pilot:
        for stage in STAGES:
            assert app.session.step == stage.number
            assert f"Step {stage.number}/16 {stage.title}" in status(app)
            assert current_line(app)[1:].split()[0] == str(stage.number)
            assert info(app).startswith(f"Step {stage.number} of 16 · {stage.title}")
            if stage.number < 16:
                await press(pilot, "n")
        for stage in reversed(STAGES[:-1]):
            await press(pilot, "p")
            assert app.session.step == stage.number
            assert f"Step {stage.number}/16" in status(app)


async def test_other_step_keys(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "right", "space")
        assert app.session.step == 3
        await press(pilot, "left")
        assert app.session.step == 2
        await press(pilot, "G")
        assert app.session.step == 16
        await press(pilot, "g")
        assert app.session.step == 1
        await press(pilot, "end")
        assert app.session.step == 16
        await press(pilot, "home")
        assert app.session.step == 1
        for n in range(1, 10):
            await press(pilot, str(n))
            assert app.session.step == n


async def test_step_list_click_and_arrows(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.click("#steps", offset=(5, 11))  # the twelfth line
        await pilot.pause()
        assert app.session.step == 12
        app.query_one("#steps").focus()
        await press(pilot, "down", "down")
        assert app.session.step == 14
        await press(pilot, "up")
        assert app.session.step == 13


async def test_each_step_shows_its_key_numbers(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "8")
        attn = grid(app, "output:blocks.0.attn.{h}")
        assert attn.spec.groups[1][0].startswith("head 2")
        head2_first_col = attn.spec.groups[0][1]
        assert cell(attn, "1:woodchuck", head2_first_col + 1) == "0.8618"
        assert "0.8618" in attn.text()

        await press(pilot, "G", "p", "p")  # 14
        bars = logits(app)
        wood = next(line for line in bars.splitlines() if line.startswith("wood "))
        assert "1.0480" in wood and "0.3107" in wood
        assert "◀ target" in wood and "★ predicted" in wood
        assert "prediction wood 0.3107" in status(app)

        await press(pilot, "n")  # 15
        loss = grid(app, "output:loss")
        assert loss.spec.cells[0] == ("1.1690", "0.9119")
        assert "loss 1.1690" in status(app)
        assert "loss = −log 0.3107 ≈ 1.1690 nats" in info(app)

        await press(pilot, "n")  # 16
        counts = grid(app, "count:0")
        assert counts.spec.cells[-1] == ("172",)
        assert "174,569,631,744" in grid(app, "count:1").text()


async def test_step_one_shows_the_token_table(app):
    async with app.run_test(size=(120, 40)):
        tokens = grid(app, "tokens")
        assert [row[:2] for row in tokens.spec.cells] == [
            ("a", "0"),
            ("woodchuck", "5"),
            ("would", "6"),
            ("chuck", "1"),
        ]


async def test_step_four_token_table_has_x_with_dim_labels(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "4")
        tokens = grid(app, "tokens")
        assert tokens.spec.cols == ("token", "id", "thing", "action", "quantifier", "wood")
        assert tokens.spec.cells[3][2:] == ("0.1411", "0.0100", "0.0300", "1.4996")
        assert {g.spec.key for g in panes(app).grids()} >= {"input:emb", "input:pe"}


async def test_next_at_the_last_step_is_a_quiet_notice(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "G", "n", "n")
        assert app.session.step == 16
        notes = [n.message for n in app.toasts.notes()]
        assert any("last step" in m for m in notes)
        assert all(n.severity == "information" for n in app.toasts.notes())
        await press(pilot, "g", "p")
        assert app.session.step == 1


async def test_help_screen_is_generated_from_the_bindings(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "question_mark")
        from tinytui.tui.screens.help_screen import HelpScreen

        assert isinstance(app.screen, HelpScreen)
        rows = app.screen.rows
        whats = {what for _, _, what, _ in rows}
        assert {"Next", "Prev", "Undo", "Redo", "Reset", "Save", "Edit", "jump to step 1–9"} <= whats
        keys = {what: k for _, k, what, _ in rows}
        assert keys["jump to step 1–9"] == "1–9"
        assert keys["Next"].startswith("n")
        await press(pilot, "escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_help_follows_a_remapped_key(app):
    async with app.run_test(size=(120, 40)) as pilot:
        app.set_keymap({"next-step": "j"})
        await press(pilot, "j")
        assert app.session.step == 2
        await press(pilot, "question_mark")
        keys = {what: k for _, k, what, _ in app.screen.rows}
        assert keys["Next"] == "j"


async def test_palette_goes_to_any_step(app):
    async with app.run_test(size=(120, 40)) as pilot:
        titles = [c.title for c in app.palette_commands()]
        for stage in STAGES:
            assert f"Go to step {stage.number}: {stage.title}" in titles
        assert "Edit parameter…" in titles
        await press(pilot, "ctrl+p")
        await pilot.press(*"step 13")
        await pilot.pause(0.5)
        await press(pilot, "enter")
        assert app.session.step == 13


async def test_every_step_at_80x24_and_resizing():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(15):
            await press(pilot, "n")
        assert app.session.step == 16
        assert app.has_class("-narrow")
        await press(pilot, "8")
        main = app.query_one("#main")
        room = main.scrollable_content_region.width
        # both heads side by side are too wide for 80 columns: each head is a table of its own, under
        # the one before, and each fits whole
        heads = [grid(app, f"output:blocks.0.attn.{{h}}#{i}") for i in (0, 1)]
        assert sum(h.box.width for h in heads) > room
        assert all(h.box.width <= room for h in heads) and heads[1].box.y > heads[0].box.y
        assert heads[1].spec.groups[0][0].startswith("head 2") and "0.8618" in heads[1].text()
        await pilot.resize_terminal(40, 10)
        await pilot.pause()
        assert app.has_class("-too-small")
        assert "at least 60×16" in str(app.query_one("#too-small").render())
        await pilot.resize_terminal(200, 60)
        await pilot.pause()
        assert not app.has_class("-too-small") and not app.has_class("-narrow")
        await press(pilot, "8")
        assert "0.8618" in grid(app, "output:blocks.0.attn.{h}").text()


async def test_the_status_bar_draws_what_it_says_after_each_key_and_at_each_width(app):
    from tinytui.tui.widgets.status_bar import StatusBar

    def drawn(bar: StatusBar) -> list[str]:
        return [bar.render_line(y).text.rstrip() for y in range(bar.content_size.height)]

    async with app.run_test(size=(120, 40)) as pilot:
        bar = app.query_one(StatusBar)
        await press(pilot, "n", "n")
        assert drawn(bar)[0].startswith("Step 3/16 Positional encoding")
        await press(pilot, "m")
        assert drawn(bar) == status(app).split("\n")
        assert "mask off" in drawn(bar)[2] and "undo 1" in drawn(bar)[1]
        await press(pilot, "p")
        assert drawn(bar)[0].startswith("Step 2/16 Embedding lookup") and "mask off" in drawn(bar)[2]
        await pilot.resize_terminal(60, 30)
        await pilot.pause()
        narrow = drawn(bar)
        assert len(narrow) == 3 and all(len(line) <= 58 for line in narrow)  # the same height, narrower
        assert "undo 1" in narrow[1] + narrow[2] and "mask off" in narrow[2]  # a piece never breaks
        assert "▲▼ vs last change (c)" not in "".join(narrow)  # the legend is the first left out
