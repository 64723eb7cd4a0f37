"""A container's own lines (its background and border) are kept for the sizes and styles it was drawn at
(lean.KeptBackground), and a scrollbar's for the windows it showed (lean.SettledScrollBar); each is
drawn anew when what it shows changes."""

from contextlib import contextmanager

from textual._styles_cache import StylesCache
from textual.scrollbar import ScrollBar

from tests.apps import make_app
from tests.tui.helpers import press
from tinytui.tui.widgets.lean import Pane


@contextmanager
def drawn_of(kind):
    """How many times Textual drew the lines of a widget of this kind while inside."""
    drawn = [0]
    original = StylesCache.render_widget

    def counted(self, widget, crop):
        if isinstance(widget, kind):
            drawn[0] += 1
        return original(self, widget, crop)

    StylesCache.render_widget = counted  # type: ignore[method-assign]
    try:
        yield drawn
    finally:
        StylesCache.render_widget = original  # type: ignore[method-assign]


def pane_lines(app) -> list[str]:
    """Each pane's own lines as drawn: text and the style of each piece."""
    out = []
    for pane in app.query(Pane):
        for strip in pane.render_lines(pane.size.region):
            out.append("".join(f"{segment.text}|{segment.style}" for segment in strip))
    return out


async def test_the_walk_moving_the_panes_draws_their_own_lines_once_per_size():
    # b's longer status line moves the body a line down and back: the panes' blank lines were drawn
    # again each time
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9", "b", "b")
        with drawn_of(Pane) as drawn:
            await press(pilot, "b", "b", "b", "b")
        assert drawn[0] == 0
        assert app.session.mode.backward is False


async def test_a_new_theme_draws_the_panes_own_lines_anew():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        before = pane_lines(app)
        with drawn_of(Pane) as drawn:
            await press(pilot, "t")
        assert drawn[0] >= 1
        assert pane_lines(app) != before  # the new theme's background and border colours


async def test_a_scrollbar_showing_a_window_it_showed_before_is_not_drawn_again():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, *"n" * 15, "g")  # every step seen once
        with drawn_of(ScrollBar) as drawn:
            await press(pilot, *"n" * 15)
        assert drawn[0] == 0
        bar = app.query_one("#main", Pane).vertical_scrollbar
        before = [strip.text + str(strip._segments) for strip in bar.render_lines(bar.size.region)]
        with drawn_of(ScrollBar) as drawn:
            await press(pilot, "pagedown")
        assert bar.position > 0
        assert drawn[0] >= 1  # a new window: the thumb drawn where it now is
        after = [strip.text + str(strip._segments) for strip in bar.render_lines(bar.size.region)]
        assert after != before
