"""Setting a ScrollView's virtual size without laying the screen out when its scrollbars stay as they are.

Assigning `virtual_size` lays the whole screen out (the reactive asks for it), and so draws every widget's
lines again. When the scrollbars neither come nor go, only their thumbs change: the size is set as Textual
sets it in a scroll-only update (set_reactive), the bars are told their new window, and the scroll
position is kept within the new size. A bar that comes or goes changes the widget's room: then it is a
layout. The step view and TextLines (the watch pane, the gallery) size themselves this way.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from textual.geometry import Size
from textual.scroll_view import ScrollView
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
        bar = view.vertical_scrollbar
        bar.window_virtual_size, bar.window_size = size.height, height - view.scrollbar_size_horizontal
    if view.show_horizontal_scrollbar:
        bar = view.horizontal_scrollbar
        bar.window_virtual_size, bar.window_size = size.width, width - view.scrollbar_size_vertical
    view.scroll_to(view.scroll_x, view.scroll_y, animate=False, immediate=True)  # within the new size
