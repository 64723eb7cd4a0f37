"""The step view sends the terminal only the rows whose lines changed (it compares them with what it drew
there last, once a key's handlers are done): after each kind of key the screen is what drawing the whole
view anew draws, so no row that changed was taken for one that did not."""

from __future__ import annotations

from tests.apps import make_app
from tests.tui.helpers import press, view


async def same_as_drawn_anew(app, pilot) -> bool:
    shown = app.export_screenshot()
    view(app).refresh()
    await pilot.pause()
    return app.export_screenshot() == shown


async def test_after_each_kind_of_key_the_view_is_what_drawing_it_anew_draws():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "9", "tab")
        # the cursor asks for its old row before it leaves it; the gradients' overlay keeps the tables
        # and changes some rows; another step's rows meet this one's
        for key in ("down", "d", "n"):
            await press(pilot, key)
            assert await same_as_drawn_anew(app, pilot), key
