"""Why this number in the app: the inspector's formula, the operands lit in their tables, f and F to
follow them, the backward walk's chain rule and the glossary in the ? screen."""

from tests.tui.helpers import grid, panes, press
from tinytui.tui.actions import ACTION_BY_ID
from tinytui.tui.screens.help_screen import HelpScreen
from tinytui.tui.widgets.grid_lines import LIT

SCORES = "output:blocks.0.scores.{h}"
Q_IN, K_IN = "input:blocks.0.q.{h}", "input:blocks.0.k.{h}"


def inspector(app) -> str:
    return app.query_one("#inspector").text


async def on_cell(pilot, app, key: str, row: int, col: int):
    g = grid(app, key)
    g.focus()
    await pilot.pause()
    g.move_to(row, col)
    await pilot.pause()
    return g


async def settle(pilot, n: int = 5) -> None:
    for _ in range(n):
        await pilot.pause()


async def test_a_score_shows_its_formula_and_lights_its_operands(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "7")
        g = await on_cell(pilot, app, SCORES, 1, 4)  # head 2's columns follow head 1's four
        assert g.source == ("blocks.0.scores.2", (1, 0))
        text = inspector(app)
        assert text.startswith("S_2[1,0] = (Q_2[1] · K_2[0]) / √2 = (−1.3145·0.5773 + 0.7194·0.5773)")
        assert "= −0.2429" in text and "f: follow Q_2[1,0]" in text
        assert len(text.split("\n")) <= 3
        # q.2[1,:] and k.2[0,:], head 2's columns (2, 3) of the side-by-side tables
        assert grid(app, Q_IN).lit == {(1, 2), (1, 3)}
        assert grid(app, K_IN).lit == {(0, 2), (0, 3)}
        assert g.lit == frozenset()
        q_text = grid(app, Q_IN).text().split("\n")
        assert f"{LIT}−1.3145" in q_text[grid(app, Q_IN).shape().top + 1]
        # another cell: the overlay moves with it
        g.move_to(0, 0)
        await pilot.pause()
        assert grid(app, Q_IN).lit == {(0, 0), (0, 1)}


async def test_the_inspector_fits_two_lines_at_80x24(app):
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "8")
        await on_cell(pilot, app, "output:blocks.0.attn.{h}", 3, 0)
        lines = inspector(app).split("\n")
        assert len(lines) <= 2 and all(len(line) <= 78 for line in lines)
        assert lines[0].startswith("A_1[3,0] = ")
        assert "…" in inspector(app)  # the long softmax sum is cut to fit


async def test_following_an_operand_goes_to_the_step_that_makes_it(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "7")
        await on_cell(pilot, app, SCORES, 1, 4)
        await press(pilot, "f")
        await settle(pilot)
        assert app.session.step == 6
        here = app.focused
        assert here.spec.key == "output:blocks.0.q.{h}" and here.source == ("blocks.0.q.2", (1, 0))
        assert inspector(app).startswith("Q_2[1,0] = x_n[1] · W_Q[1,:,0] = ")  # the tables' names
        assert "= −1.3145" in inspector(app)
        # its operands are on this step: x_norm's row 1 and W_Q's column for head 2, k0
        assert grid(app, "input:blocks.0.x_norm").lit == {(1, 0), (1, 1), (1, 2), (1, 3)}
        assert grid(app, "param:blocks.0.W_Q").lit == {(r, 2) for r in range(4)}
        # F picks the next operand (W_Q[1,0,0]); f lands on it in this step's weights
        await press(pilot, "F")
        assert "f: follow W_Q[1,0,0] (2 of 8" in inspector(app)
        await press(pilot, "f")
        await settle(pilot)
        assert app.session.step == 6
        assert app.focused.spec.key == "param:blocks.0.W_Q"
        assert app.focused.source == ("blocks.0.W_Q", (1, 0, 0))


async def test_with_the_mask_off_attention_is_the_unmasked_softmax(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "8", "m")
        await on_cell(pilot, app, "output:blocks.0.attn.{h}", 0, 3)
        text = inspector(app)
        assert text.startswith("A_1[0,3] = exp(S_1[0,3]) / Σ_k exp(S_1[0,k])")
        assert "mask off: every key" in text
        assert "(was 0.0000, Δ +0.2599)" in text  # and what it was with the mask on
        assert grid(app, "input:blocks.0.scores.{h}").lit == {(0, c) for c in range(4)}
        await press(pilot, "m")
        await pilot.pause()
        assert "masked" in inspector(app)  # mask on: the future key gets no weight
        await press(pilot, "m")  # off again: the run before, explained as it was, not as the one after
        await pilot.pause()
        assert inspector(app) == text


async def test_the_backward_walk_shows_the_chain_rule(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "8", "b")
        await on_cell(pilot, app, "grad:grad.blocks.0.scores.{h}", 1, 0)
        text = inspector(app)
        chain = "∂L/∂S_1[1,0] = A_1[1,0]·(∂L/∂A_1[1,0] − Σ_k A_1[1,k]·∂L/∂A_1[1,k])"
        assert text.startswith(chain)
        assert grid(app, "grad:grad.blocks.0.attn.{h}").lit == {(1, c) for c in range(4)}
        # its gradient operands come from walk step 9; f on one goes there and stays in the walk
        await press(pilot, "F", "f")
        await settle(pilot)
        assert app.session.mode.backward and app.session.step == 9
        assert app.focused.source == ("grad.blocks.0.attn.1", (1, 0))
        assert inspector(app).startswith("∂L/∂A_1[1,0] = ∂L/∂head_1[1] · V_1[0]")


async def test_weights_and_tokens_keep_their_own_line(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9")
        await on_cell(pilot, app, "param:blocks.0.W_O", 1, 2)
        assert inspector(app).startswith("W_O[h1.k1, quantifier] = ")
        assert all(not g.lit for g in panes(app).grids())
        await press(pilot, "f")  # nothing to follow: a bell, nothing moves
        assert app.session.step == 9


async def test_follow_is_in_the_palette_and_the_help_has_a_glossary(app):
    assert ACTION_BY_ID["follow-operand"].keys == "f" and ACTION_BY_ID["follow-operand"].palette
    assert ACTION_BY_ID["next-operand"].keys == "F" and ACTION_BY_ID["next-operand"].palette
    async with app.run_test(size=(120, 40)) as pilot:
        titles = [c.title for c in app.palette_commands()]
        assert "Follow an operand of the focused cell" not in titles  # the step list: nothing to follow
        await press(pilot, "7")
        await on_cell(pilot, app, SCORES, 1, 0)
        titles = [c.title for c in app.palette_commands()]
        assert "Follow an operand of the focused cell" in titles  # a score reads q and k
        assert "Choose the next operand to follow" in titles
        await press(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        shown = "\n".join(app.screen.extra) + str(app.screen.rows) + str(app.screen.glossary)
        from rich.table import Table
        from textual.widgets import Static

        tables = [w.content for w in app.screen.query(Static) if isinstance(w.content, Table)]
        words = next(t for t in tables if t.title == "Glossary")  # terms in one column, meanings beside
        assert len(words.rows) == len(app.screen.glossary) and len(words.columns) == 2
        for term in ("h1.k0", "unit 3", "x′", "h_pre", "MHA", "A_1", "Δ59", "▲ ▼ ◆", "* ×", "lr, SGD", "nats",
                     "ablated", "pre-norm", "Follow"):  # fmt: skip
            assert term in shown, term
