"""A 5,000-character value typed into the app comes back cut to its start and end, with its length, as
the command line cuts it: in the dialog's refusal, the notice line and the notice log (before, all 5,000
characters: the dialog grew past the screen and the log held the whole value)."""

from textual.widgets import Input, Static

from tests.apps import make_app
from tests.tui.helpers import press
from tinytui.tui.screens.ask_screen import AskScreen
from tinytui.tui.screens.notice_log_screen import NoticeLogScreen
from tinytui.tui.widgets.notice_line import NoticeLine

TYPED = {"a run": "a" * 5000, "words": " ".join(["zz"] * 1700) + ".json"}


async def test_a_long_model_path_is_cut_in_the_dialog_the_notice_and_the_log():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        for typed in TYPED.values():
            await press(pilot, "C", "down", "down", "down", "down", "enter")  # A: another model file…
            assert isinstance(app.screen, AskScreen)
            app.screen.query_one(Input).value = typed
            await press(pilot, "enter")
            said = str(app.screen.query_one("#ask-message", Static).render())
            # (the count takes in the "✗ " before the value)
            assert " characters): " in said and typed[:200] not in said and len(said) < 400

            await press(pilot, "escape")
            line = app.screen.query_one(NoticeLine)
            rows = "".join(line.render_line(y).text for y in range(line.size.height))
            assert "Not done: compare" in rows and typed[:40] in rows and typed[:200] not in rows

            await press(pilot, "M")
            assert isinstance(app.screen, NoticeLogScreen)
            logged = str(app.screen.query_one("#notice-log", Static).render())
            newest = logged.split("\n\n")[0]
            assert f"({len(typed)} characters)" in newest and typed[:200] not in logged
            assert len(newest) < 400
            await press(pilot, "escape")
