"""Notices, as the notice line draws them: a line of its own above the footer that never changes size, so
no table's number is ever covered; a notice about one step gone when the step changes, a file's notice
kept its time, one refusal and one switch notice at a time, gone after their time or a click, cut short
with "… M: more" and whole in the notice log (M), seen on the screens opened over the step view."""

import pytest

from tests.apps import make_app
from tests.tui.helpers import press, view
from tinytui.tui.screens.notice_log_screen import NoticeLogScreen
from tinytui.tui.screens.param_browser import ParamScreen
from tinytui.tui.widgets.notice_line import CUT, EDGE, NoticeLine, more_notices
from tinytui.tui.widgets.status_bar import Inspector, StatusBar
from tinytui.tui.widgets.step_view import StepView

LONG = (
    "A message long enough to run past the end of the notice line at any terminal width: it goes on to "
    "say what changed, which steps, by how much, and what to look at next, in more words than fit on two "
    "rows of a hundred and twenty columns, so that its end is only in the notice log."
)


def line(app) -> NoticeLine:
    """The notice line of the screen on top."""
    return app.screen.query_one(NoticeLine)


def drawn(app) -> list[str]:
    """The line's rows as the screen shows them."""
    shown = line(app)
    return [shown.render_line(y).text for y in range(shown.size.height)]


def notices(app) -> list[str]:
    """The rows that say something, the edge and the padding left out."""
    return [row[1:].strip() for row in drawn(app) if row[1:].strip()]


def step_lines(app) -> list[str]:
    """The step view's rows as the screen shows them (its Line API draws the scrolled rows)."""
    v = app.screen.query_one(StepView)
    return [v.render_line(y).text for y in range(v.size.height)]


async def settle(pilot) -> None:
    await pilot.pause()
    await pilot.pause()


async def test_a_notice_about_a_step_goes_with_it_and_a_saved_file_stays():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("G", "n")  # step 16 is the last: n says so
        await settle(pilot)
        assert app.session.step == 16 and notices(app) == ["Step 16 is the last step."]
        app.notify("Saved lesson.json", title="Saved", timeout=30)
        await settle(pilot)
        assert notices(app) == ["Saved  Saved lesson.json", "Step 16 is the last step."]  # newest first
        await pilot.press("p")
        await settle(pilot)
        assert app.session.step == 15
        assert notices(app) == ["Saved  Saved lesson.json"]  # the step's notice went, the file's stayed


async def test_a_notice_raised_with_the_step_change_stays():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("b")  # into the walk: the step changes and a notice says how to walk
        await settle(pilot)
        assert app.session.mode.backward
        assert notices(app)[0].startswith("Backward pass")


async def test_a_refusal_takes_the_last_refusals_place():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.notify("kept", title="Saved", timeout=30)
        app.refuse("first bad value")
        await settle(pilot)
        app.refuse("second bad value")
        await settle(pilot)
        assert notices(app) == ["Not done  second bad value", "Saved  kept"]
        assert [n.message for n in app.toasts.notes()] == ["kept", "second bad value"]


async def test_a_refusal_goes_once_the_value_typed_again_is_taken():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9", "tab", "tab", "tab", "e")  # W_O's first cell, typed into
        await pilot.press("a", "b", "c", "enter")
        await settle(pilot)
        assert [n.title for n in app.toasts.notes()] == ["Not done: edit W_O[h1.k0, thing]"]
        assert notices(app)[0].startswith("Not done: edit W_O[h1.k0, thing]")
        await pilot.press("backspace", "backspace", "backspace", "2", "enter")
        await settle(pilot)
        assert [n.title for n in app.toasts.notes()] == ["Edited"]  # the stale refusal went
        assert notices(app)[0].startswith("Edited")


async def test_m_pressed_five_times_leaves_one_switch_notice():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "5")
        for _ in range(5):
            await press(pilot, "m")
        await settle(pilot)
        (note,) = app.toasts.notes()
        assert "mask" in note.title.lower() and not app.session.state.switches.causal_mask  # the fifth's
        assert notices(app)[0].startswith(f"{note.title}  mask off")
        await press(pilot, "o")  # another switch: its notice takes the same place
        await settle(pilot)
        (note,) = app.toasts.notes()
        # the line says what changed; how every switch is now (the status line's words) follows in the log
        assert notices(app)[0].startswith(f"{note.title}  PE off: steps 3–15 changed")
        assert note.message.splitlines()[-1].startswith("mask off · PE off")


async def test_a_notice_goes_after_its_time():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.notify("Stays a while.", timeout=30)
        app.notify("Gone soon.", timeout=0.3)
        await settle(pilot)
        assert notices(app) == ["Gone soon.", "Stays a while."]
        await pilot.pause(0.6)
        await settle(pilot)
        assert notices(app) == ["Stays a while."]
        assert [n.message for n in app.toasts.notes()] == ["Stays a while."]


async def test_a_click_takes_a_notice_away():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.notify("Click me.", timeout=30)
        await settle(pilot)
        shown = line(app)
        await pilot.click(offset=(shown.region.x + 5, shown.region.y))
        await settle(pilot)
        assert notices(app) == [] and app.toasts.notes() == []


@pytest.mark.parametrize(("size", "rows"), [((120, 40), 2), ((80, 24), 1)])
async def test_the_line_is_the_width_of_the_screen_above_the_footer_with_a_coloured_edge(size, rows):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        before = line(app).region
        app.notify("An edit's note.", title="Edited", severity="warning", timeout=30)
        await settle(pilot)
        shown = line(app)
        assert shown.region == before  # the same rows whether it says something or not
        assert (shown.region.width, shown.region.height, shown.region.bottom) == (size[0], rows, size[1] - 1)
        first = drawn(app)[0]
        assert first.startswith(f"{EDGE} Edited  An edit's note.") and len(first) == size[0]
        title = shown.render_line(0)
        assert any(seg.text == "Edited" and seg.style is not None and seg.style.bold for seg in title)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_a_long_notice_is_cut_short_and_whole_in_the_log(size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        app.notify(LONG, title="Edited", timeout=30)
        await settle(pilot)
        rows = notices(app)
        assert rows[-1].endswith(CUT) and rows[0].startswith("Edited  A message long enough")
        shown = " ".join(row.removesuffix(CUT) for row in rows)
        assert LONG.startswith(shown.removeprefix("Edited  ").rstrip("… ")[:60])
        await press(pilot, "M")
        assert isinstance(app.screen, NoticeLogScreen)
        assert LONG in app.screen.text().plain.replace("\n", " ")
        await press(pilot, "escape")
        assert not isinstance(app.screen, NoticeLogScreen)


async def test_the_log_keeps_notices_whose_time_is_up_newest_first():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.notify("The first.", title="Saved", timeout=0.1)
        app.notify("The second.", timeout=0.1)
        await pilot.pause(0.3)
        await settle(pilot)
        assert notices(app) == []
        app.show_notices()
        await settle(pilot)
        logged = app.screen.text().plain
        assert logged.index("The second.") < logged.index("Saved") < logged.index("The first.")
        assert "  Note\nThe second." in logged  # a notice with no title is named by its kind


async def test_markup_is_drawn_and_brackets_in_plain_words_are_kept():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.notify("An unclosed [/b] tag.", timeout=30)
        app.notify("W_O[h1.k0, thing] is not shown.", timeout=30)
        await settle(pilot)
        assert notices(app) == ["W_O[h1.k0, thing] is not shown.", "An unclosed [/b] tag."]
        app.notify("A [b]bold[/b] word.", timeout=30)
        await settle(pilot)
        assert notices(app)[0] == "A bold word."
        strip = line(app).render_line(0)
        assert any(seg.text == "bold" and seg.style is not None and seg.style.bold for seg in strip)


async def test_m_o_d_b_notices_are_seen_and_cover_no_number():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:  # the smallest screen: the tables fill it
        await press(pilot, "8")
        main = view(app)
        where = (main.region, app.query_one(StatusBar).region, app.query_one(Inspector).region)
        keys = (("m", "Toggle the causal mask"), ("o", "positional"), ("d", "∂L/∂w"), ("b", "Backward"))
        for key, says in keys:
            await press(pilot, key)
            await settle(pilot)
            assert says.lower() in " ".join(notices(app)).lower(), (key, drawn(app))
            assert where == (main.region, app.query_one(StatusBar).region, app.query_one(Inspector).region)
            assert not line(app).region.overlaps(main.region)
            rows = step_lines(app)
            notice = app.toasts.notes()[-1]
            app.clear_notifications()
            await settle(pilot)
            assert step_lines(app) == rows, "the step view shows the same with the notice and without"
            app.notify(notice.message, title=notice.title, timeout=30)
            await settle(pilot)
            for y in range(main.region.y, main.region.bottom):  # nothing drawn over the step view
                for x in (main.region.x, main.region.x + main.region.width // 2, main.region.right - 2):
                    assert app.screen.get_widget_at(x, y)[0] is main, (key, x, y)


async def test_at_most_three_notices_the_oldest_goes():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        for i in range(1, 6):
            app.notify(f"Notice {i}.", timeout=30)
        await settle(pilot)
        assert [n.message for n in app.toasts.notes()] == ["Notice 3.", "Notice 4.", "Notice 5."]
        assert notices(app)[0] == "Notice 5." and notices(app)[1].startswith("Notice 4.")
        assert notices(app)[1] == "Notice 4." + more_notices(1)  # the third has no row: the log has it


async def test_a_notice_raised_over_the_parameter_browser_is_seen_there_and_after():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.edits.edit_parameter("b_2")
        await settle(pilot)
        assert isinstance(app.screen, ParamScreen)
        app.notify("Raised over the browser.", title="Saved", timeout=30)
        await settle(pilot)
        assert notices(app) == ["Saved  Raised over the browser."]
        footer_top = min(w.region.y for w in app.screen.query("Footer"))
        assert line(app).region.bottom <= footer_top  # above the browser's footer, not over it
        await press(pilot, "escape")
        await settle(pilot)
        assert not isinstance(app.screen, ParamScreen)
        assert notices(app) == ["Saved  Raised over the browser."]  # the step view's line, too


async def test_d_and_b_pressed_again_and_again_leave_one_notice_each():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9")
        for _ in range(4):
            await press(pilot, "d")
        await settle(pilot)
        (gradients,) = app.toasts.notes()
        assert gradients.message.startswith("Gradients hidden")  # the fourth d's: hidden again
        for _ in range(3):
            await press(pilot, "b")
        await settle(pilot)
        titles = [n.title for n in app.toasts.notes()]
        assert sum(t in ("Backward pass", "Forward pass") for t in titles) == 1, titles
        assert app.session.mode.backward  # the third b: in the walk
        assert notices(app)[0].startswith("Backward pass")


async def test_a_notice_is_drawn_in_the_theme_switched_to():
    def colours(app) -> set:
        return {(s.style.color, s.style.bgcolor) for s in line(app).render_line(0) if s.style}

    switched = make_app()
    async with switched.run_test(size=(120, 40)) as pilot:
        switched.notify("A notice.", title="Saved", timeout=30)
        await settle(pilot)
        dark = colours(switched)
        await press(pilot, "t")  # the theme's own notice comes; the first is redrawn in the new colours
        switched.clear_notifications()
        switched.notify("A notice.", title="Saved", timeout=30)
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
        app.notify(LONG, title="Saved", timeout=30)
        await settle(pilot)
        assert len(notices(app)) == 2
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        await settle(pilot)
        shown = line(app)
        assert (shown.region.width, shown.region.height, shown.region.bottom) == (80, 1, 23)
        (row,) = notices(app)
        assert row.startswith("Saved  A message long") and row.endswith(CUT) and len(drawn(app)[0]) == 80
