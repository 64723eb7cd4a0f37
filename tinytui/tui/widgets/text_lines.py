"""A page of styled text lines, drawn by one widget on Textual's Line API (a ScrollView with render_line).

set_text(text) takes a page as one Rich Text and splits it into lines. A line is made into a Strip the
first time it is drawn and kept by what it shows (its text and styles), so a page shown again, or a line
shown again at another place, is not made again; a screen line (that line cut to the view, scrolled
sideways or not, over the widget's own colours) is kept the same way. A new page refreshes only the
lines that differ from the last page's at the same place (refresh_lines), and its size is set as the
step view sets a step's (tinytui.tui.widgets.step_view): with no new layout of the screen when the
scrollbars stay as they are. Where the widget does not scroll sideways (overflow-x: hidden), a line
wider than the view ends in "…". Its text can be selected with the mouse and copied, as a Static's can.

The watch pane and the gallery draw through it; the step view draws its tables the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.style import Style
from rich.text import Text
from textual.cache import LRUCache
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip

from tinytui.tui.widgets.virtual_size import set_virtual_size

_KEPT = 4096  # lines kept made (a page has tens to a few hundred; a toggle's two pages both stay)

LineKey = tuple[str, tuple, object]  # a line's text, its spans and its own style: what it shows


class TextLines(ScrollView):
    """A page of Rich Text lines: set_text() shows a new page; only the lines that differ are drawn."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._lines: list[Text] = []
        self._shown: list[int] = []  # each line's id: the same id, the same text and styles
        self._ids: dict[LineKey, int] = {}  # at most _KEPT: then numbered anew (_clear_caches)
        self._made: LRUCache[tuple[int, int | None], Strip] = LRUCache(_KEPT)  # by (id, width cut to)
        self._screen: LRUCache[tuple, Strip] = LRUCache(_KEPT)  # by (id, scroll x, width, base style)
        self.lines_drawn = 0  # lines made anew from their Text (not from the cache): tests and benchmarks

    # ---- what is shown ------------------------------------------------------------------------
    @property
    def lines(self) -> Sequence[Text]:
        """The page's lines as set, unscrolled and uncut."""
        return self._lines

    @property
    def plain(self) -> str:
        """The page as plain text (tests and copying)."""
        return "\n".join(line.plain for line in self._lines)

    def screen_lines(self) -> list[str]:
        """What the widget shows now, line by line, as plain text (cut to its width, scrolled)."""
        return [
            "".join(segment.text for segment in self.render_line(y))
            for y in range(self.scrollable_content_region.height)
        ]

    def set_text(self, text: Text) -> None:
        """Show a page: the lines that differ from the last page's at the same place are drawn again."""
        lines = list(text.split("\n", allow_blank=True))
        if len(self._ids) + len(lines) > _KEPT:
            self._clear_caches()
        ids = self._ids
        shown = []
        for line in lines:
            key = (line.plain, tuple(line.spans), line.style)
            shown.append(ids.setdefault(key, len(ids)))
        old, self._shown, self._lines = self._shown, shown, lines
        width = max((line.cell_len for line in lines), default=0)
        set_virtual_size(self, Size(width, len(lines)), self._bars)  # a layout only when a bar comes or goes
        self._refresh_changed(old, shown)

    def _refresh_changed(self, old: list[int], new: list[int]) -> None:
        """refresh_lines for each run of lines on screen whose id differs from the last page's there."""
        top = round(self.scroll_y)
        bottom = min(top + self.scrollable_content_region.height, max(len(old), len(new)))
        start = None
        for y in range(top, bottom + 1):
            differs = y < bottom and (y >= len(old) or y >= len(new) or old[y] != new[y])
            if differs and start is None:
                start = y
            elif not differs and start is not None:
                self.refresh_lines(start, y - start)
                start = None

    def _clear_caches(self) -> None:
        """A new numbering of the lines: no line made under the old one is used again."""
        self._ids.clear()
        self._made.clear()
        self._screen.clear()
        self._shown = []

    # ---- size ---------------------------------------------------------------------------------
    def _bars(self, size: Size) -> tuple[bool, ...]:
        """What decides whether a page this size shows each scrollbar (an axis that scrolls only when
        it must): wider or taller than the room, with and without the other bar's room taken."""
        room, styles = self.container_size, self.styles
        out: tuple[bool, ...] = ()
        if styles.overflow_x == "auto":
            out += (size.width > room.width, size.width > room.width - styles.scrollbar_size_vertical)
        if styles.overflow_y == "auto":
            out += (size.height > room.height, size.height > room.height - styles.scrollbar_size_horizontal)
        return out

    # ---- selecting with the mouse ---------------------------------------------------------------
    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        return selection.extract(self.plain), "\n"

    def _selected_line(self, vy: int, width: int, span: tuple[int, int]) -> Strip:
        """Line vy with the selected part shown as selected (not kept: a selection is brief)."""
        line = self._lines[vy].copy()
        start, end = span
        line.stylize(self._selection_style(), start, len(line) if end < 0 else end)
        return self._strip(line, width)

    def _selection_style(self) -> Style:
        """The screen's selection colours over this widget's background (the text keeps its colour
        where the theme's selection has none), as Textual draws a Static's selection."""
        styles = self.screen.get_component_styles("screen--selection")
        background = self.background_colors[1] + styles.background
        color = styles.color
        return Style(bgcolor=background.rich_color, color=color.rich_color if color.a else None)

    # ---- drawing ------------------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        sx, sy = self.scroll_offset
        width = self.scrollable_content_region.width
        base = self.rich_style
        vy = sy + y
        if not 0 <= vy < len(self._shown):
            return Strip.blank(width, base)
        selection = self.text_selection
        span = selection.get_span(vy) if selection is not None else None
        if span is not None:
            line = self._selected_line(vy, width, span).crop_extend(sx, sx + width, None).apply_style(base)
            return line.apply_offsets(sx, vy)
        key = (self._shown[vy], sx, width, base)
        strip = self._screen.get(key)
        if strip is None:
            strip = self._made_line(vy, width).crop_extend(sx, sx + width, None).apply_style(base)
            self._screen[key] = strip
        return strip.apply_offsets(sx, vy)  # where each character is, for selecting with the mouse

    def _made_line(self, vy: int, width: int) -> Strip:
        """Line vy as a strip, made once for what it shows (and, cut with "…", for the width)."""
        line = self._lines[vy]
        key = (self._shown[vy], width if self._cut(line, width) else None)
        strip = self._made.get(key)
        if strip is None:
            self.lines_drawn += 1
            strip = self._made[key] = self._strip(line, width)
        return strip

    def _cut(self, line: Text, width: int) -> bool:
        return self.styles.overflow_x == "hidden" and line.cell_len > width

    def _strip(self, line: Text, width: int) -> Strip:
        """A line made into segments; where the widget does not scroll sideways, cut to width with "…"."""
        if self._cut(line, width):
            line = line.copy()
            line.truncate(width, overflow="ellipsis")
        return Strip(line.render(self.app.console), line.cell_len)
