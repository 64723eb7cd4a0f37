"""f and F in the footer: f (Follow) when the inspector's formula has an operand, F (Operand) when it has
several; neither on a weight; on an 80-column screen they are left out so ? Help and q Quit stay."""

from tests.apps import make_app
from tests.tui.helpers import W_O, footer_keys, grid, press
from tinytui.tui.widgets.footer import TinyFooter


async def on_a_score(pilot, app) -> None:
    """Step 7, the cursor on scores.1[1,1] (it reads q.1[1,·] and k.1[1,·])."""
    await press(pilot, "7")
    scores = grid(app, "output:blocks.0.scores.{h}")
    scores.focus()
    scores.move_to(1, 1)
    await pilot.pause()


async def test_follow_and_operand_come_with_a_formula():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await on_a_score(pilot, app)
        why = app.why.current()
        assert why is not None and len(why.operands) == 4  # q.1[1,·] and k.1[1,·]
        keys = footer_keys(app)
        assert "Follow" in keys and "Operand" in keys
        assert keys.index("Follow") < keys.index("Help") < keys.index("Quit")
        await press(pilot, "9")
        weights = grid(app, W_O)
        weights.focus()
        await pilot.pause()
        assert "Follow" not in footer_keys(app) and "Operand" not in footer_keys(app)
        await press(pilot, "1")  # step 1: an id is looked up, computed from no other cell
        tokens = grid(app, "tokens")
        tokens.focus()
        tokens.move_to(0, 1)
        await pilot.pause()
        assert app.why.current().operands == ()
        assert "Follow" not in footer_keys(app) and "Operand" not in footer_keys(app)
        app.steps.goto(11)  # hidden = ReLU(h_pre) reads one cell
        await pilot.pause()
        await pilot.pause()  # the new step's first table takes the focus once mounted
        hidden = grid(app, "output:blocks.0.hidden")
        hidden.focus()
        hidden.move_to(0, 0)
        await pilot.pause()
        assert len(app.why.current().operands) == 1
        assert "Follow" in footer_keys(app) and "Operand" not in footer_keys(app)
        await press(pilot, "f")  # the binding applies: the cursor goes to h_pre[0,0]
        assert app.why.focused_source() == ("blocks.0.hidden_pre", (0, 0))


async def test_at_80_columns_help_and_quit_stay_in_the_footer():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await on_a_score(pilot, app)
        await pilot.pause()
        keys = footer_keys(app)
        assert "Follow" not in keys and keys[-3:] == ["Help", "Quit", "palette"]
        assert len(app.query_one(TinyFooter).text()) <= 80
        await press(pilot, "f")  # the key works though the footer has no room to say so
        assert app.why.focused_source() == ("blocks.0.q.1", (1, 0))
