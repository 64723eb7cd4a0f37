"""Notices, as the notice board draws them: never over the inspector's lines or the cursor's row, a
notice about one step gone when the step changes, a file's notice kept its time, one refusal and one
switch notice at a time, gone after their time or a click, seen on the screens opened over the step
view, and following the screen's size."""

import pytest

from tests.apps import make_app
from tests.tui.helpers import press
from tinytui.tui.screens.param_browser import ParamScreen
from tinytui.tui.toasts import cursor_row
from tinytui.tui.widgets.notice_board import NoticeBoard
from tinytui.tui.widgets.status_bar import Inspector


def board(app) -> NoticeBoard:
    """The board of the screen on top."""
    return app.screen.query_one(NoticeBoard)


def drawn(app) -> list[str]:
    """The board's lines as the screen shows them (none while there is no notice)."""
    boards = app.screen.query(NoticeBoard)  # a screen over the step view gets one with its first notice
    if not boards or not boards.first().display:
        return []
    b = boards.first()
    x, y = b.region.x, b.region.y
    assert app.screen.get_widget_at(x, y)[0] is b, "the board is on top of what it covers"
    return [b.render_line(i).text for i in range(b.region.height)]


def text(app) -> str:
    return "\n".join(line.strip() for line in drawn(app))


def notices(app) -> list[list[str]]:
    """Each notice's title and message lines as drawn (their blank rows above and below left out)."""
    out: list[list[str]] = []
    for line in drawn(app):
        words = line[1:].strip()
        if not words:
            if not out or out[-1]:
                out.append([])
        else:
            out[-1].append(words)
    return [n for n in out if n]


def rows_of(widget) -> range:
    return range(widget.region.y, widget.region.bottom)


async def settle(pilot) -> None:
    await pilot.pause()
    await pilot.pause()


async def test_a_notice_about_a_step_goes_with_it_and_a_saved_file_stays():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("G", "n")  # step 16 is the last: n says so
        await settle(pilot)
        assert app.session.step == 16 and notices(app) == [["Step 16 is the last step."]]
        app.notify("Saved lesson.json", title="Saved", timeout=30)
        await settle(pilot)
        assert len(notices(app)) == 2
        await pilot.press("p")
        await settle(pilot)
        assert app.session.step == 15
        assert notices(app) == [["Saved", "Saved lesson.json"]]  # the step's notice went, the file's stayed


async def test_a_notice_raised_with_the_step_change_stays():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("b")  # into the walk: the step changes and a notice says how to walk
        await settle(pilot)
        assert app.session.mode.backward
        assert "Backward pass" in text(app)


async def test_a_refusal_takes_the_last_refusals_place():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.notify("kept", title="Saved", timeout=30)
        app.refuse("first bad value")
        await settle(pilot)
        app.refuse("second bad value")
        await settle(pilot)
        assert notices(app) == [["Saved", "kept"], ["Not done", "second bad value"]]


async def test_a_refusal_goes_once_the_value_typed_again_is_taken():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9", "tab", "tab", "tab", "e")  # W_O's first cell, typed into
        await pilot.press("a", "b", "c", "enter")
        await settle(pilot)
        assert [title for title, *_ in notices(app)] == ["Not done: edit W_O[h1.k0, thing]"]
        await pilot.press("backspace", "backspace", "backspace", "2", "enter")
        await settle(pilot)
        assert [title for title, *_ in notices(app)] == ["Edited"]  # the stale refusal went


async def test_m_pressed_five_times_leaves_one_switch_notice():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "5")
        for _ in range(5):
            await press(pilot, "m")
        await settle(pilot)
        shown = notices(app)
        assert len(shown) == 1, shown
        assert "mask" in shown[0][0].lower() and not app.session.state.switches.causal_mask  # the fifth's
        assert [n.title for n in app.toasts.notes()] == [shown[0][0]]
        await press(pilot, "o")  # another switch: its notice says how every switch is now, in the same place
        await settle(pilot)
        (shown,) = notices(app)
        assert "PE off" in " ".join(shown) and "mask off" in " ".join(shown)


async def test_a_notice_goes_after_its_time():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.notify("Gone soon.", timeout=0.3)
        app.notify("Stays a while.", timeout=30)
        await settle(pilot)
        assert notices(app) == [["Gone soon."], ["Stays a while."]]
        await pilot.pause(0.6)
        await settle(pilot)
        assert notices(app) == [["Stays a while."]]
        assert [n.message for n in app.toasts.notes()] == ["Stays a while."]


async def test_a_click_takes_a_notice_away():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.notify("Click me.", timeout=30)
        await settle(pilot)
        b = board(app)
        await pilot.click(offset=(b.region.x + 5, b.region.y + 1))
        await settle(pilot)
        assert drawn(app) == [] and app.toasts.notes() == []


@pytest.mark.parametrize(("size", "width"), [((120, 40), 60), ((80, 24), 40)])
async def test_a_notice_looks_like_a_toast_at_the_right(size, width):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        long = "A message long enough to be wrapped onto a second line, as an edit's note often is."
        app.notify(long, title="Edited", severity="warning", timeout=30)
        await settle(pilot)
        b = board(app)
        # 60 columns, at most half the screen, the scrollbar's column left clear at the right
        assert (b.region.width, b.region.right) == (width, size[0] - 1)
        lines = drawn(app)
        assert all(line.startswith("▌") and len(line) == width for line in lines)  # the coloured edge
        assert not lines[0][1:].strip() and not lines[-1][1:].strip()  # a blank row above and below
        (shown,) = notices(app)
        assert shown[0] == "Edited" and " ".join(shown[1:]) == long and len(shown) >= 3
        title = b.render_line(1)
        assert any(seg.text.strip() == "Edited" and seg.style is not None and seg.style.bold for seg in title)


async def test_markup_is_drawn_and_brackets_in_plain_words_are_kept():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.notify("A [b]bold[/b] word.", timeout=30)
        app.notify("W_O[h1.k0, thing] is not shown.", timeout=30)
        app.notify("An unclosed [/b] tag.", timeout=30)
        await settle(pilot)
        assert notices(app) == [
            ["A bold word."],
            ["W_O[h1.k0, thing] is not shown."],
            ["An unclosed [/b] tag."],
        ]
        strip = board(app).render_line(1)
        assert any(seg.text == "bold" and seg.style is not None and seg.style.bold for seg in strip)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_notices_cover_neither_the_inspector_nor_the_cursors_row(size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.press("9", "tab")  # a table of step 9, the cursor on its first row
        await settle(pilot)
        inspector = set(rows_of(app.query_one(Inspector)))
        seen_high = seen_low = False
        for step in range(40):  # the cursor walks down the step's tables
            app.notify("A notice two lines long,\nas an edit's note is.", timeout=30)
            await settle(pilot)
            row = cursor_row(app.focused)
            if row is None:  # past the step's last table
                break
            b = board(app)
            assert drawn(app), "a notice is shown"
            assert not inspector & set(rows_of(b)), "a notice covers the inspector"
            assert row not in rows_of(b), f"a notice covers the cursor's row {row}"
            high = b.region.y < size[1] // 2
            seen_high, seen_low = seen_high or high, seen_low or not high
            await pilot.press("down" if step % 3 else "tab")
            await pilot.pause()
        assert seen_high and seen_low  # both places were used on the way down


async def test_at_most_three_notices_the_oldest_goes():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        for i in range(1, 6):
            app.notify(f"Notice {i}.", timeout=30)
        await settle(pilot)
        assert notices(app) == [["Notice 3."], ["Notice 4."], ["Notice 5."]]


async def test_a_notice_raised_over_the_parameter_browser_is_seen_there_and_after():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.edits.edit_parameter("b_2")
        await settle(pilot)
        assert isinstance(app.screen, ParamScreen) and drawn(app) == []
        app.notify("Raised over the browser.", title="Saved", timeout=30)
        await settle(pilot)
        assert notices(app) == [["Saved", "Raised over the browser."]]
        await press(pilot, "escape")
        await settle(pilot)
        assert not isinstance(app.screen, ParamScreen)
        assert notices(app) == [["Saved", "Raised over the browser."]]  # the step view's board, too


async def test_d_and_b_pressed_again_and_again_leave_one_notice_each():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9")
        for _ in range(4):
            await press(pilot, "d")
        await settle(pilot)
        (gradients,) = app.toasts.notes()
        assert gradients.message.startswith("Gradients hidden")  # the fourth d's: hidden again
        places = set()
        for _ in range(3):
            await press(pilot, "b")
            places.add(board(app).where)
        await settle(pilot)
        titles = [n.title for n in app.toasts.notes()]
        assert sum(t in ("Backward pass", "Forward pass") for t in titles) == 1, titles
        assert app.session.mode.backward  # the third b: in the walk
        # into the walk and out say as many lines: the notice sits where it sat, the screen keeps its layout
        assert len(places) == 1, places


async def test_a_notice_is_drawn_in_the_theme_switched_to():
    def colours(app) -> set:
        return {
            (s.style.color, s.style.bgcolor) for i in range(4) for s in board(app).render_line(i) if s.style
        }

    switched = make_app()
    async with switched.run_test(size=(120, 40)) as pilot:
        switched.notify("A notice.", title="Saved", timeout=30)
        await settle(pilot)
        dark = colours(switched)
        await press(pilot, "t")  # the notice stays, redrawn in the new theme's colours
        await settle(pilot)
        after = colours(switched)
    fresh = make_app(theme=switched.theme)
    async with fresh.run_test(size=(120, 40)) as pilot:
        fresh.notify("A notice.", title="Saved", timeout=30)
        await settle(pilot)
        assert after == colours(fresh) != dark


async def test_a_notice_follows_the_screens_size():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.notify("Saved lesson.json", title="Saved", timeout=30)
        await settle(pilot)
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        await settle(pilot)
        b = board(app)
        assert (b.region.width, b.region.right) == (40, 79) and b.region.bottom <= 24 - 4
        assert notices(app) == [["Saved", "Saved lesson.json"]]
