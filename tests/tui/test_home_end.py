"""Home and End go to the first and last step wherever the focus is on the main screen (a table would
otherwise scroll itself), and stay the field's own keys in a dialog."""

from textual.widgets import Input

from tests.apps import make_app
from tinytui.tui.widgets.step_list import StepList


async def test_home_and_end_from_a_table():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("7", "tab")  # step 7, the focus in its first table
        await pilot.pause()
        assert app.focused is not None and not isinstance(app.focused, StepList)
        await pilot.press("end")
        await pilot.pause()
        assert app.session.step == 16
        await pilot.press("tab")
        await pilot.pause()
        await pilot.press("home")
        await pilot.pause()
        assert app.session.step == 1


async def test_home_and_end_from_the_step_list():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        assert isinstance(app.focused, StepList)
        await pilot.press("end")
        await pilot.pause()
        assert app.session.step == 16
        await pilot.press("home")
        await pilot.pause()
        assert app.session.step == 1


async def test_home_in_a_dialog_field_moves_its_cursor_not_the_step():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("5", "ctrl+s")  # the save dialog: a path field
        await pilot.pause()
        field = app.screen.query_one(Input)
        assert field.cursor_position == len(field.value) > 0
        await pilot.press("home")
        await pilot.pause()
        assert field.cursor_position == 0 and app.session.step == 5
        await pilot.press("end")
        await pilot.pause()
        assert field.cursor_position == len(field.value) and app.session.step == 5
