"""What a change draws again in the step view: its own lines that changed, never its scrollbars (a line
under the horizontal bar, or the vertical bar's column beside every line, would be sent again with it),
and the screen after it is what drawing the whole view anew draws."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from textual.geometry import Region

from tests.apps import make_app
from tests.tui.helpers import press, view


@contextmanager
def regions_asked(v) -> Iterator[list[tuple[Region, ...]]]:
    """Every refresh the step view asks for inside the block, as the regions it names (none: the whole
    widget, its bars with it)."""
    asked: list[tuple[Region, ...]] = []
    refresh = v.refresh
    v.refresh = lambda *regions, **kw: (asked.append(regions), refresh(*regions, **kw))[1]
    try:
        yield asked
    finally:
        v.refresh = refresh


def content_of(v) -> Region:
    """The view's own lines, in its coordinates: where a line it draws again must lie."""
    room = v.scrollable_content_region
    return Region(0, 0, room.width, room.height)


async def drawn_anew(app, pilot) -> str:
    """The screen after the whole view is drawn again."""
    view(app).refresh()
    await pilot.pause()
    return app.export_screenshot()


async def test_a_mask_toggle_on_a_wide_step_draws_no_scrollbar_and_leaves_nothing_stale():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "9", "n", "n", "tab")  # step 11: wider and taller than the view, both bars
        v = view(app)
        assert v.show_horizontal_scrollbar and v.show_vertical_scrollbar
        content = content_of(v)
        before = app.export_screenshot()
        with regions_asked(v) as asked:
            await press(pilot, "m")
        after = app.export_screenshot()
        assert after != before
        drawn = [r for regions in asked for r in regions]
        assert drawn and all(asked)  # lines, never the whole widget (its bars with it)
        assert all(content.contains_region(r) for r in drawn), (content, drawn)
        assert any(r.bottom == content.height for r in drawn)  # the last row changed too: no bar with it
        assert await drawn_anew(app, pilot) == after


async def test_a_scroll_draws_the_views_lines_again_and_not_the_other_bar():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "9", "n", "n", "tab")  # step 11: both bars
        v = view(app)
        content = content_of(v)
        with regions_asked(v) as asked:
            for _ in range(8):  # Tab from table to table until one below the view scrolls it
                await press(pilot, "tab")
                if v.scroll_offset.y:
                    break
        assert v.scroll_offset.y > 0 and v.show_horizontal_scrollbar
        drawn = [r for regions in asked for r in regions]
        assert content in drawn  # every line of the step, scrolled
        assert all(asked) and all(content.contains_region(r) for r in drawn), drawn
        shown = app.export_screenshot()
        assert await drawn_anew(app, pilot) == shown


async def test_another_step_draws_the_views_lines_and_leaves_nothing_stale():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "9", "n", "n")  # step 11, wider than the view
        v = view(app)
        assert v.show_horizontal_scrollbar
        content = content_of(v)
        with regions_asked(v) as asked:
            await press(pilot, "n")  # step 12: wide too, the bars stay
        assert "Step 12 of 16" in v.info_text and v.show_horizontal_scrollbar
        drawn = [r for regions in asked for r in regions]
        assert content in drawn and all(asked) and all(content.contains_region(r) for r in drawn), drawn
        shown = app.export_screenshot()
        assert await drawn_anew(app, pilot) == shown


async def _bottom_after(keys: tuple[str, ...], then: tuple[str, ...] = ()) -> list[list[tuple[str, str]]]:
    """The step view's lines at the foot of step 11 after these keys (the view scrolled to its end; then:
    keys pressed back at its top), as a scroll draws them: every segment's text and style."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, *keys)
        v = view(app)
        v.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        if then:
            v.scroll_home(animate=False, immediate=True)
            await press(pilot, *then)
            v.scroll_end(animate=False, immediate=True)
            await pilot.pause()
        lines = (v.render_line(y) for y in range(v.scrollable_content_region.height))
        return [[(seg.text, str(seg.style)) for seg in line] for line in lines]


async def test_lines_below_the_view_that_a_toggle_changed_show_it_when_scrolled_to():
    # the toggle compares only the lines on screen; those below are numbered when they scroll in
    toggled_in_view = await _bottom_after(("9", "n", "n", "tab", "m"))
    toggled_before = await _bottom_after(("9", "m", "n", "n", "tab"))  # shown first with the mask off
    assert toggled_in_view == toggled_before
    untouched = await _bottom_after(("9", "n", "n", "tab"))
    assert untouched != toggled_in_view
    back = await _bottom_after(("9", "n", "n", "tab", "m"), then=("m",))
    assert back == await _bottom_after(("9", "m", "m", "n", "n", "tab"))  # the same change marked
