"""One theme's styles for the step view's lines: a component's style over the view's own colours, a
table cell's style by its marks and shade, and the shading's key drawn.

Made by the step view for each theme and dropped with it: what it keeps (the styles it resolved, the
cells' styles, the keys drawn) is bounded and goes when the theme does. Every style it gives is over
ground, the view's own colours, so a line drawn with it is finished as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual.cache import LRUCache
from textual.color import Color

from tinytui.present.grid_spec import DOWN, EDITED, MASKED, PRECEDENCE, UP, glyph
from tinytui.themes.scale import readable_on
from tinytui.tui.widgets.shading import Shades, shading_key

CELL_STYLES_KEPT = 16384  # cells' styles kept: every mark on every level of both shadings
KEYS_KEPT = 256  # shading keys kept drawn, by (shading, limit, room)
_MARK = MappingProxyType(
    {
        EDITED: "edited",
        UP: "changed-up",
        DOWN: "changed-down",
        "changed": "changed",
        MASKED: "masked",
    }
)
_PLAIN = Style()  # a cell without a mark: no style of its own


class LineStyles:
    """A theme's styles: component(name) is the view's component style step-view--name, style(name) the
    same over ground; cell() a table cell's."""

    def __init__(
        self,
        component: Callable[[str], Style],
        theme: str,
        variables: dict[str, str],
        console: Console,
        ground: Style,
    ) -> None:
        self._get = component
        self.theme = theme
        self.variables = variables
        self.console = console
        self.ground = ground
        self._shades = Shades(variables)
        # by the names of the view's component classes: a few tens
        self._styles: dict[str, Style] = {}
        self._components: dict[str, Style] = {}
        # a cell's glyph and style by (shade, marks, level): shared by every table and every step drawn in
        # the theme; a dict emptied when full (read for every cell drawn: an LRUCache's get costs more)
        self._cells: dict[tuple, tuple[str, Style]] = {}
        # the cells' styles (and the ground) by themselves: equal styles are one object, so a row's
        # neighbours in the same style are found by `is` and drawn as one segment (emptied with _cells);
        # a component's style stays its own object, its own segment (a row's label apart from its cells)
        self._same: dict[Style, Style] = {ground: ground}
        self._over: dict[tuple[Style, str], Style] = {}  # (style, component) -> the sum (over)
        self._keys: LRUCache[tuple, list[Segment] | None] = LRUCache(KEYS_KEPT)

    def style(self, name: str) -> Style:
        """A component's style over the ground."""
        got = self._styles.get(name)
        if got is None:
            got = self._styles[name] = self.ground + self.component(name)
        return got

    def over(self, style: Style, name: str) -> Style:
        """A component's own style added over style (the cursor's over a cell's), added once."""
        key = (style, name)
        got = self._over.get(key)
        if got is None:
            if len(self._over) >= CELL_STYLES_KEPT:
                self._over.clear()
            got = self._over[key] = self.same(style + self.component(name))
        return got

    def same(self, style: Style) -> Style:
        """The one object of the styles given equal to style."""
        return self._same.setdefault(style, style)

    def component(self, name: str) -> Style:
        """A component's own style (to add over a style that is over the ground already)."""
        got = self._components.get(name)
        if got is None:
            got = self._components[name] = self._get(f"step-view--{name}")
        return got

    def cell(self, shade: str | None, marks: frozenset[str], at: float | None) -> Style:
        """A cell's style by its marks and its level on the shading (None: not shaded): the mark's own
        style, on the shade where the mark has no background, with text readable on whichever it has."""
        return self.cell_look(shade, marks, at)[1]

    def cell_look(self, shade: str | None, marks: frozenset[str], at: float | None) -> tuple[str, Style]:
        """A cell's glyph after its number (grid_spec.glyph of its marks) and its style (cell)."""
        key = (shade, marks, at)
        got = self._cells.get(key)
        if got is None:
            if len(self._cells) >= CELL_STYLES_KEPT:
                self._cells.clear()
                self._same = {self.ground: self.ground}
            got = self._cells[key] = (glyph(marks), self.same(self._cell_now(shade, marks, at)))
        return got

    def _cell_now(self, shade: str | None, marks: frozenset[str], at: float | None) -> Style:
        mark = next((m for m in PRECEDENCE if m in marks), None) if marks else None
        own = self.component(_MARK.get(mark, "changed")) if mark is not None else _PLAIN
        shaded = self._shade_under(own, marks, shade, at)
        background = shaded.rich_color if shaded is not None else own.bgcolor
        color = own.color
        if background is not None and color is None:
            on = shaded if shaded is not None else Color.from_rich_color(background)
            color = readable_on(on).rich_color
        under = self.ground if mark is None else self.ground + own
        return under + Style(color=color, bgcolor=background)

    def _shade_under(
        self, own: Style, marks: frozenset[str], shade: str | None, at: float | None
    ) -> Color | None:
        """The shade a cell's level gives it, unless its mark has a background or it is masked."""
        if own.bgcolor is None and MASKED not in marks and at is not None and shade:
            return self._shades.at(shade, at)
        return None

    def shading_key(self, shade: str, limit: float, room: int) -> list[Segment] | None:
        """The shading's key as wide as fits room, as segments over the ground (None: no key)."""
        key = (shade, limit, room)
        if key not in self._keys:
            self._keys[key] = self._key_now(shade, limit, room)
        return self._keys[key]

    def _key_now(self, shade: str, limit: float, room: int) -> list[Segment] | None:
        text = shading_key(self.variables, shade, limit, room)
        if text is None:
            return None
        ground = self.ground
        return [Segment(s.text, ground + s.style if s.style else ground) for s in text.render(self.console)]
