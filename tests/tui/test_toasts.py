"""Notices (toasts) never cover the inspector's lines or the cursor's row, a notice about one step goes
when the step changes, and a notice about a file stays its time."""

import pytest

from tests.apps import make_app
from tinytui.tui.toasts import cursor_row
from tinytui.tui.widgets.status_bar import Inspector


def toasts(app) -> list:
    return [t for t in app.screen.query("Toast") if t.display]


def rows_of(widget) -> range:
    return range(widget.region.y, widget.region.bottom)


async def test_a_notice_about_a_step_goes_with_it_and_a_saved_file_stays():
    app = make_app()
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.press("G", "n")  # step 16 is the last: n says so
        await pilot.pause()
        assert app.session.step == 16 and len(toasts(app)) == 1
        app.notify("Saved lesson.json", title="Saved", timeout=30)
        await pilot.pause()
        assert len(toasts(app)) == 2
        await pilot.press("p")
        await pilot.pause()
        await pilot.pause()
        assert app.session.step == 15
        (left,) = toasts(app)  # the step's notice went, the file's stayed
        assert "lesson.json" in str(left.render())


async def test_a_notice_raised_with_the_step_change_stays():
    app = make_app()
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.press("b")  # into the walk: the step changes and a notice says how to walk
        await pilot.pause()
        await pilot.pause()
        assert app.session.mode.backward
        assert any("Backward pass" in str(t.render()) for t in toasts(app))


async def test_a_refusal_takes_the_last_refusals_place():
    app = make_app()
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        app.notify("kept", title="Saved", timeout=30)
        app.refuse("first bad value")
        await pilot.pause()
        app.refuse("second bad value")
        await pilot.pause()
        await pilot.pause()
        shown = [str(t.render()) for t in toasts(app)]
        assert len(shown) == 2 and any("second" in s for s in shown) and not any("first" in s for s in shown)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_notices_cover_neither_the_inspector_nor_the_cursors_row(size):
    app = make_app()
    async with app.run_test(size=size, notifications=True) as pilot:
        await pilot.press("9", "tab")  # a table of step 9, the cursor on its first row
        await pilot.pause()
        inspector = set(rows_of(app.query_one(Inspector)))
        seen_high = seen_low = False
        for step in range(40):  # the cursor walks down the step's tables
            app.notify("A notice two lines long,\nas an edit's note is.", timeout=30)
            await pilot.pause()
            await pilot.pause()
            row = cursor_row(app.focused)
            if row is None:  # past the step's last table
                break
            for toast in toasts(app):
                assert not inspector & set(rows_of(toast)), "a notice covers the inspector"
                assert row not in rows_of(toast), f"a notice covers the cursor's row {row}"
            high = app.has_class("-toasts-high")
            seen_high, seen_low = seen_high or high, seen_low or not high
            await pilot.press("down" if step % 3 else "tab")
            await pilot.pause()
        assert seen_high and seen_low  # both places were used on the way down
