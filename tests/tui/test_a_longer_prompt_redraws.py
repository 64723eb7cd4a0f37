"""+ at a step whose tables have a row per position: the new table has a row the old one had not, and
the redraw compares only the rows both have (it raised IndexError)."""

from tests.apps import make_app


async def test_plus_at_step_6_appends_a_token_and_redraws():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(5):
            await pilot.press("n")
        await pilot.press("plus")
        await pilot.pause()
        assert len(app.session.state.prompt) == 5 and app.session.step == 6
