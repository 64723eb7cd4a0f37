"""Setting a ScrollView's virtual size without laying the screen out when its scrollbars stay as they are.

Assigning `virtual_size` lays the whole screen out (the reactive asks for it), and so draws every widget's
lines again. When the scrollbars neither come nor go, only their thumbs change: the size is set as Textual
sets it in a scroll-only update (set_reactive), the bars are told their new window, and the scroll
position is kept within the new size. A bar that comes or goes changes the widget's room: then it is a
layout. The step view and TextLines (the watch pane, the gallery) size themselves this way.

A bar told its new window draws again only the cells where its thumb changed (a step 49 lines long and
one 65 long differ in a few cells of a 31-line bar): Textual would draw all of them, each a line of its
own through the styles a widget's line goes through.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from math import ceil

from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar
from textual.widget import Widget


def set_virtual_size(view: ScrollView, size: Size, bars: Callable[[Size], Hashable]) -> None:
    """Give view this virtual size; bars(size) is what decides which scrollbars a size shows (a layout
    only when it differs from the old size's)."""
    old = view.virtual_size
    if size == old:
        return
    if not old or not view.container_size or bars(old) != bars(size):
        view.virtual_size = size
        return
    view.set_reactive(Widget.virtual_size, size)
    width, height = view.container_size
    if view.show_vertical_scrollbar:
        set_window(view.vertical_scrollbar, size.height, height - view.scrollbar_size_horizontal)
    if view.show_horizontal_scrollbar:
        set_window(view.horizontal_scrollbar, size.width, width - view.scrollbar_size_vertical)
    view.scroll_to(view.scroll_x, view.scroll_y, animate=False, immediate=True)  # within the new size


def set_window(bar: ScrollBar, virtual_size: int, window_size: int) -> None:
    """Tell a scrollbar the size it scrolls over and its window, drawing again the cells that change."""
    before = _cells(bar)
    bar.set_reactive(ScrollBar.window_virtual_size, virtual_size)
    bar.set_reactive(ScrollBar.window_size, window_size)
    after = _cells(bar)
    changed = [i for i, (old, new) in enumerate(zip(before, after)) if old != new]
    if len(before) != len(after):
        bar.refresh()
    elif changed:
        first, last = changed[0], changed[-1] + 1
        width, height = bar.size
        bar.refresh(
            Region(0, first, width, last - first) if bar.vertical else Region(first, 0, last - first, height)
        )


def _cells(bar: ScrollBar) -> list:
    """The bar's cells along its length as its renderer draws them (ScrollBar.render's sizes)."""
    length = bar.size.height if bar.vertical else bar.size.width
    virtual, window = bar.window_virtual_size, bar.window_size
    segments = bar.renderer.render_bar(
        size=length,
        virtual_size=ceil(virtual),
        window_size=ceil(window if window < virtual else 0),
        position=bar.position,
        thickness=bar.thickness,
        vertical=bar.vertical,
    ).segments
    return list(segments[:length])
