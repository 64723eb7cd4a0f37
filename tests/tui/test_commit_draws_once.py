"""Enter in a weight's cell: the editor closes before the app redraws, so what is drawn after the commit
says the new value, with the editor's words and keys gone from the inspector and the footer."""

from tests.tui.helpers import W_O, footer_keys, press, type_into_cell


async def test_after_enter_the_inspector_and_footer_show_the_committed_weight(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9")
        g = await type_into_cell(pilot, app, W_O, 0, 0, "0.5")
        assert not g.editing and app.session.params["blocks.0.W_O"][0, 0] == 0.5
        inspector = app.query_one("#inspector")
        said = inspector.text
        assert said.startswith("W_O[h1.k0") and "= 0.5000" in said.splitlines()[0]
        assert "Enter commits" not in said
        drawn = "\n".join(inspector.render_line(y).text for y in range(inspector.size.height))
        assert "0.5000" in drawn and "Esc cancels" not in drawn
        assert "Cancel" not in footer_keys(app) and "Undo" in footer_keys(app)
