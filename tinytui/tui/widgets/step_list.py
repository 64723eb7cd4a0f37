"""The list of the steps (the block's steps once per block): the current one marked, and how many values
each step's output changed."""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from types import MappingProxyType
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.containers import ScrollableContainer
from textual.geometry import Region, Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from tinytui.present.step_list_lines import (
    Row,
    StepTitles,
    change_badge,
    changed_counts,
    heading_words,
    list_rows,
    marker,
)
from tinytui.present.view import View, ViewPart
from tinytui.tui.widgets.looks import Look, ThemeStyles


class StepList(ViewPart, Widget, can_focus=True):
    """Click a step to go there; with the list focused, up and down move between steps."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", "Previous step", show=False, id="steps-up"),
        Binding("down", "move(1)", "Next step", show=False, id="steps-down"),
    ]
    DEFAULT_CSS = """
    StepList { height: auto; width: 100%; }
    """
    # the current step's band, the Δ counts (and a block's heading), the steps' titles (widgets/looks.py)
    LOOKS: ClassVar[Mapping[str, Look]] = MappingProxyType(
        {
            "current": Look(background="tt-current-step", text_style="bold"),
            "count": Look("warning", text_style="bold"),
            "title": Look("foreground"),
        }
    )

    class Chosen(Message):
        def __init__(self, step: int, block: int | None = None) -> None:
            super().__init__()
            self.step = step
            self.block = block  # 0-based, for a block's step of a model with several blocks

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.rows: tuple[Row, ...] = list_rows(1)  # a step, or a block's heading
        self.here: Row = self.rows[0]
        self.backward = False
        self.counts: dict[Row, int] = {}
        # the diff the counts were made from: a step change shows the same diff, its counts as they were
        # (weak: the list holds no diff past the session's)
        self._counted: weakref.ref | None = None
        self._written: dict = {}  # the names each step writes, kept for the counts (bounded by present)
        self.n_blocks = 1
        self.titles = StepTitles()  # the model shown's (show() sets them)
        # each step's title as the titles give it: a line is drawn again when its own title changed (a
        # switch changes some titles, the mask none)
        self._title_of: dict[Row, str] = {}
        self.looks = ThemeStyles(self.LOOKS)
        self._drawn: dict[int, tuple[tuple, Strip]] = {}  # line y -> (what it was drawn from, the line)
        self._kept: dict[tuple, Strip] = {}  # (line y, what it shows) -> the line: a step revisited

    def show(self, view: View) -> None:
        self.here = view.here
        self.backward = view.mode.backward  # the walk marks its step ◀: the gradient flows up the list
        n_blocks = view.trace.cfg.n_blocks
        # the model's own norm, feed-forward and unembedding, and what the switches make of steps 4–12
        if self.titles.cfg is not view.trace.cfg or self.titles.switches is not view.trace.switches:
            self.titles = StepTitles.of(view)  # kept while both are
            self._title_of = {}
        if self._counted is None or self._counted() is not view.diff:
            self.counts = changed_counts(view, self._written)
            self._counted = weakref.ref(view.diff)
        if n_blocks != self.n_blocks:
            self.n_blocks = n_blocks
            self.rows = list_rows(n_blocks)
            self.refresh(layout=True)
        else:
            self._refresh_changed_lines()
        if n_blocks > 1:
            self.call_after_refresh(self._keep_in_sight)

    def _keep_in_sight(self) -> None:
        """A long list (many blocks) scrolls so the current step stays in the middle of the sidebar."""
        box = self.parent
        if self.here in self.rows and isinstance(box, ScrollableContainer):
            y = self.rows.index(self.here)
            box.scroll_to(y=max(0, y - box.size.height // 2), animate=False)

    @property
    def step(self) -> int:
        return 0 if isinstance(self.here, int) else self.here.number

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.rows)

    def _style(self, name: str) -> Style:
        return self.looks.style(name, self.app.theme, self.app.theme_variables)

    def line(self, row: Row, width: int) -> Text:
        if isinstance(row, int):  # the heading of block row (0-based), as long as the list has room for
            words = heading_words(row, self.n_blocks)
            said = next((w for w in words if len(w) <= width), words[-1])
            text = Text(said, no_wrap=True, end="")
            text.stylize(self._style("count"))
            return text
        badge = change_badge(self.counts.get(row, 0))
        here = row == self.here
        head = f"{marker(here, self.backward)}{row.number:>2} "
        room = max(width - len(head) - len(badge), 0)
        if room < 8:  # a narrow list shows numbers and counts only; the status line names the step
            title = ""
        elif len(named := self._title(row)) > room:
            title = named[: room - 1] + "…"
        else:
            title = named
        text = Text(no_wrap=True, overflow="ignore", end="")
        text.append(head)
        text.append(title.ljust(room), self._style("title"))
        text.append(badge, self._style("count"))
        if here:
            text.stylize(self._style("current"))
        return text

    def render(self) -> Text:
        width = self.content_size.width or 30
        return Text("\n", end="").join(self.line(row, width) for row in self.rows)

    def render_line(self, y: int) -> Strip:
        """Line y, drawn again only when what it shows changed: a step change redraws the two lines the
        marker left and reached (and those whose Δ count changed), not the list (GPT-2: 116 lines)."""
        width = self.size.width
        if not 0 <= y < len(self.rows):
            return Strip.blank(width, self.visual_style.rich_style)
        row = self.rows[y]
        key = self._shows(row, self._look(width))
        kept = self._drawn.get(y)
        if kept is not None and kept[0] == key:
            return kept[1]
        strip = self._kept.get((y, key))  # a line shown before (the marker back on a step it left)
        if strip is None:
            text = self.line(row, self.content_size.width or 30)
            # the text's own segments over the list's colours, the same cells as Textual's Visual.to_strips
            # draws (which makes a copy of the text in its own styles, then Rich's again, ~5 times the
            # cost: the step list was the first frame's costliest widget)
            segments = list(text.render(self.app.console))
            strip = Strip(segments, text.cell_len).crop(0, width).apply_style(self.visual_style.rich_style)
            if len(self._kept) >= 4 * len(self.rows) + 8:  # each line in a few states at most
                self._kept.clear()
            self._kept[(y, key)] = strip
        self._drawn[y] = (key, strip)
        return strip

    def _title(self, row: Row) -> str:
        title = self._title_of.get(row)
        if title is None:
            title = self._title_of[row] = self.titles.title(row)
        return title

    def _look(self, width: int) -> tuple:
        """What every line is drawn from beside its own row: the sizes and the theme."""
        return width, self.content_size.width, self.app.theme

    def _shows(self, row: Row, look: tuple) -> tuple:
        """What a line is drawn from: when it is the same, the line drawn last time stands. Its title is
        among it (a switch may run RMSNorm in place of LayerNorm, and step 5's title says which)."""
        here = row == self.here
        if isinstance(row, int):
            shows: tuple = (row, self.n_blocks, here)
        else:
            shows = (row, self.counts.get(row, 0), here, self._title(row))
        return shows, here and self.backward, look

    def _refresh_changed_lines(self) -> None:
        """Ask Textual to draw again only the lines whose content changed (its own drawing of a line,
        even one kept here, costs more than the line: every line was asked for at every step)."""
        width = self.size.width
        if not width or not self._drawn:
            self.refresh()
            return
        look = self._look(width)
        for y, row in enumerate(self.rows):
            kept = self._drawn.get(y)
            if kept is None or kept[0] != self._shows(row, look):
                self.refresh(Region(0, y, width, 1))

    def text(self) -> str:
        return self.render().plain

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None and 0 <= offset.y < len(self.rows):
            row = self.rows[offset.y]
            if not isinstance(row, int):
                self.post_message(self.Chosen(row.number, row.block))

    def action_move(self, delta: int) -> None:
        path = [row for row in self.rows if not isinstance(row, int)]  # the forward path
        at = path.index(self.here) if self.here in path else 0
        to = path[min(max(at + delta, 0), len(path) - 1)]
        self.post_message(self.Chosen(to.number, to.block))
