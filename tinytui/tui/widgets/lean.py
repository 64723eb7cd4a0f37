"""Work Textual does for every widget that ours do not need, left out.

SharedComponentStyles: component styles worked out once per widget class and theme, not per restyle.

Textual restyles a widget whenever a class or pseudo-class of it (or of an ancestor) changes: a table
taking another role at a step change, focus moving, a row of tables stacking. Each restyle also runs
every one of the widget's COMPONENT_CLASSES through the whole stylesheet as a node of its own — for a
Grid, twelve of them, most of what a step change cost in style work. Our component rules
(`Grid > .grid--cursor { … }`) name only the widget's type and theme variables, never one of its
classes or states, so every widget of a class has the same component styles under one theme: this
mixin works them out on the first widget of a class that a theme styles and hands the same styles to
every other widget of that class, without the stylesheet's pass.

A widget whose component rules depend on its classes or on an ancestor's (Textual's FooterKey:
`.-compact .footer-key--key`) must not use it.

SettledSize: no second layout for a size a layout has just given (below).

KeptBackground: a container's own lines (background, border) kept per size, part drawn and styles;
SettledScrollBar keeps a scrollbar's lines per window shown.

Pane: a scrolling pane whose scrollbars are drawn by the layout that changed them, not a frame later.

The main screen, which draws a key as soon as it has taken it in, is main_screen.MainScreen.
"""

from __future__ import annotations

from typing import Any

from textual._compositor import Compositor
from textual._context import NoActiveAppError
from textual.containers import Horizontal, VerticalScroll
from textual.css.styles import RenderStyles
from textual.dom import DOMNode
from textual.geometry import Region
from textual.scrollbar import ScrollBar, ScrollBarCorner

# (widget class, ANSI colours, id of the stylesheet's rules) -> (those rules, held so that their id is not
# reused; each component class's styles). Textual parses its rules again whenever a theme's variables
# or a newly used widget's default CSS come in, so a new list of rules is a new epoch.
_SHARED: dict[tuple, tuple[list, dict[str, RenderStyles]]] = {}
_KEPT = 64  # epochs kept (a theme switch makes one per widget class)


class SharedComponentStyles:
    """Mix in before the Textual widget class: class Grid(SharedComponentStyles, Widget)."""

    def _get_component_classes(self) -> frozenset[str]:  # type: ignore[override]
        # Textual's stylesheet asks each node for its component classes as it restyles it, then styles
        # each one; an empty answer (with the styles already in place) skips that work.
        classes = super()._get_component_classes()  # type: ignore[misc]
        node: Any = self
        try:
            app = node.app
        except NoActiveAppError:  # not in an app yet: Textual's own way
            return classes
        if not classes:
            return classes
        rules = app.stylesheet.rules
        epoch = (type(self), app.ansi_color, id(rules))
        kept = _SHARED.get(epoch)
        if kept is None:
            if len(_SHARED) >= _KEPT:
                del _SHARED[next(iter(_SHARED))]
            kept = _SHARED[epoch] = (rules, _work_out(node, app.stylesheet, classes))
        shared = kept[1]
        if node._component_styles != shared:
            node._component_styles.clear()
            node._component_styles.update(shared)
            node._rich_style_cache.clear()
            node.refresh()
        return frozenset()


def _work_out(node: Any, stylesheet: Any, classes: frozenset[str]) -> dict[str, RenderStyles]:
    """Each component class's styles, as Textual's stylesheet works them out (a virtual node each)."""
    out: dict[str, RenderStyles] = {}
    for component in sorted(classes):
        virtual = DOMNode(classes=component)
        virtual._attach(node)
        stylesheet.apply(virtual, animate=False)
        out[component] = virtual.styles
    return out


class SettledSize:
    """Mix in before the Textual widget class: a layout that gives this widget a new size needs no
    second layout for it.

    After each layout Textual records every widget's new size as a reactive that asks for another
    layout, so every step change (whose tables all change size) was laid out twice or three times,
    each a full arrangement and repaint of the screen. The layout that set the size already placed
    the widget; what really changes a layout still asks for one (a scrollbar appearing, new content).

    A widget's first size still asks for one: a widget just mounted can be measured before its styles
    are in (a footer key shown for the first time, without its padding), and only that second layout
    measures it again.
    """

    _sized = False

    def _size_updated(self, size, virtual_size, container_size, layout: bool = True) -> bool:  # type: ignore[no-untyped-def]
        first, self._sized = not self._sized, True
        return super()._size_updated(size, virtual_size, container_size, layout=layout and first)  # type: ignore[misc]


class KeptBackground:
    """Mix in before a Textual container class: its own lines (background and border: what its
    children leave uncovered) are kept for the sizes and styles it was last drawn at.

    A container's own lines are drawn afresh whenever it is refreshed, which a new size or a scroll
    does. They depend only on its size, the part asked for and its styles: the walk's longer status
    line moves the body up and down a line on every b, and each time the two panes' 70 blank lines
    were drawn again (a fifth of b's drawing)."""

    _kept_lines: dict | None = None

    def render_lines(self, crop):  # type: ignore[no-untyped-def]
        node: Any = self
        styles = node.styles
        key = (
            crop, node.size, node.rich_style, node.background_colors, styles.border, styles.outline,
            styles.padding, styles.tint, styles.opacity, styles.border_title_align,
        )  # fmt: skip
        return _kept_lines(self, key, _LINES_KEPT, lambda: super(KeptBackground, self).render_lines(crop))  # type: ignore[misc]


_LINES_KEPT = 8  # (size, part, styles) a container keeps its lines for


def _kept_lines(node: Any, key: tuple, limit: int, draw: Any) -> list:
    """The lines node drew for key, kept (the oldest of limit dropped), or drawn now by draw()."""
    kept = node._kept_lines
    if kept is None:
        kept = node._kept_lines = {}
    lines = kept.get(key)
    if lines is None:
        if len(kept) >= limit:
            del kept[next(iter(kept))]
        lines = kept[key] = draw()
    return list(lines)  # a list of its own: the same strips


class SettledScrollBar(SettledSize, ScrollBar):
    """A pane's scrollbar: its new length (the pane grew or shrank) is placed by the layout that gave it.

    Its lines are kept for each window it showed: a step change moves the step pane's bar to another
    step's length and back, and the step list's bar stays as it was, yet both were drawn anew."""

    _kept_lines: dict | None = None

    def render_lines(self, crop):  # type: ignore[no-untyped-def]
        parent: Any = self.parent
        if parent is None:
            return super().render_lines(crop)
        # what ScrollBar.render reads: its window, its state, and its pane's scrollbar colours
        styles = parent.styles
        key = (
            crop, self.size, self.vertical, self.thickness, self.window_virtual_size, self.window_size,
            self.position, self.grabbed, self.mouse_over, styles.scrollbar_background,
            styles.scrollbar_color, styles.scrollbar_background_hover, styles.scrollbar_color_hover,
            styles.scrollbar_background_active, styles.scrollbar_color_active, parent.background_colors,
            self.screen.styles.scrollbar_color,
        )  # fmt: skip
        return _kept_lines(
            self, key, _BAR_LINES_KEPT, lambda: super(SettledScrollBar, self).render_lines(crop)
        )


_BAR_LINES_KEPT = 40  # windows a scrollbar keeps its lines for (every step's, and the walk's)


class SettledCorner(SettledSize, ScrollBarCorner):
    """The square between a pane's two scrollbars, placed as they are."""


_SETTLED = {ScrollBar: SettledScrollBar, ScrollBarCorner: SettledCorner}
_BARS_KEPT = 256  # contents whose scrollbars a Pane remembers


class Row(KeptBackground, SettledSize, Horizontal):
    """A row of panes (the screen's body) whose new height, when the status bar above it takes a line
    more or less (the walk's longer first line), is placed by the layout that gave it."""


class Pane(KeptBackground, SettledSize, VerticalScroll):
    """A scrolling pane (the step list's, the step's): its content's new size shows in its scrollbars,
    which ask for their own layout when they come or go.

    A table that takes the focus is brought into view at once, not by Textual's quarter-second glide:
    the table under the keys is where the keys act, and what is on screen after a key is settled."""

    def scroll_to_region(self, region, **kwargs):  # type: ignore[no-untyped-def, override]
        kwargs["animate"] = False
        return super().scroll_to_region(region, **kwargs)

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        return _settled(super().vertical_scrollbar)

    @property
    def horizontal_scrollbar(self) -> ScrollBar:
        return _settled(super().horizontal_scrollbar)

    @property
    def scrollbar_corner(self) -> ScrollBarCorner:
        return _settled(super().scrollbar_corner)

    _content: object = None  # what the pane shows now, as expect_bars was told
    _bars_of: dict | None = None  # content -> (horizontal bar, vertical bar) when it was last laid out

    def expect_bars(self, content: object) -> None:
        """Before the layout of new content: give the pane the scrollbars this content had the last time
        it was laid out. Textual decides a pane's scrollbars after a layout, and one coming or going asks
        for a second layout of the whole screen (the walk's step 9 pans sideways, the forward pass's does
        not); when the content has changed since, Textual's own check after the layout corrects it."""
        self._content = content
        seen = (self._bars_of or {}).get(content)
        if seen is None or seen == (self.show_horizontal_scrollbar, self.show_vertical_scrollbar):
            return
        self.show_horizontal_scrollbar, self.show_vertical_scrollbar = seen
        if self._horizontal_scrollbar is not None or seen[0]:
            self.horizontal_scrollbar.display = seen[0]
        if self._vertical_scrollbar is not None or seen[1]:
            self.vertical_scrollbar.display = seen[1]

    def _size_updated(self, size, virtual_size, container_size, layout: bool = True) -> bool:  # type: ignore[no-untyped-def]
        changed = super()._size_updated(size, virtual_size, container_size, layout=layout)
        self._bars_drawn_by_this_layout()
        if self._content is not None:
            if self._bars_of is None:
                self._bars_of = {}
            elif len(self._bars_of) >= _BARS_KEPT:
                del self._bars_of[next(iter(self._bars_of))]
            self._bars_of[self._content] = (self.show_horizontal_scrollbar, self.show_vertical_scrollbar)
        return changed

    def _bars_drawn_by_this_layout(self) -> None:
        # Textual tells each scrollbar its new window as it hands out sizes after a layout, and each
        # asks for a repaint of its own, drawn a frame later. The layout's own drawing comes after this
        # (Screen._refresh_layout): the bars' regions go into it, and their separate repaint is dropped.
        compositor = getattr(self.screen, "_compositor", None)
        for bar in (self._vertical_scrollbar, self._horizontal_scrollbar, self._scrollbar_corner):
            if bar is None or not getattr(bar, "_repaint_required", False) or compositor is None:
                continue
            if bar in compositor.visible_widgets:
                compositor.update_widgets({bar})
                bar._repaint_required = False


def _settled(chrome: Any) -> Any:
    settled = _SETTLED.get(type(chrome))
    if settled is not None:
        chrome.__class__ = settled  # the same widget, Textual's own, settled
    return chrome


def _renders_in(self, crop: Region | None = None):  # type: ignore[no-untyped-def]
    """Compositor._get_renders, for the widgets that show in crop only.

    Textual draws a partial update (a cell typed, a cursor moved) by asking every widget whose
    clipping container overlaps the update for all of its lines — on our screen every widget, for
    one changed line. A widget none of whose visible part overlaps the update can change nothing
    in it: each chop the update keeps is covered by the widgets that overlap it."""
    if crop is None:
        yield from _TEXTUAL_GET_RENDERS(self, crop)
        return
    for widget, (region, clip) in self.visible_widgets.items():
        shown = region.intersection(clip)
        if not shown.area or not crop.overlaps(shown):
            continue
        part = Region(shown.x - region.x, shown.y - region.y, shown.width, shown.height)
        yield region, clip, widget.render_lines(part)


_TEXTUAL_GET_RENDERS = getattr(Compositor, "_get_renders", None)


def draw_only_what_changed() -> None:
    """Install _renders_in (once, for this process), if this Textual has the method it replaces."""
    if _TEXTUAL_GET_RENDERS is not None and Compositor._get_renders is _TEXTUAL_GET_RENDERS:
        Compositor._get_renders = _renders_in  # type: ignore[method-assign]
