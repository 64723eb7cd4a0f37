"""The logit distribution: a bar per vocabulary token, logit and probability, target and prediction marked.

A long vocabulary (tinytui.present.top_tokens) shows its most likely tokens and the target, and one line
for the rest: how many, and their probability together."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.containers import ScrollableContainer
from textual.geometry import Size
from textual.widget import Widget

from tinytui.present.grid_spec import DOWN, UP, LogitsSpec, Source, glyph
from tinytui.tui.widgets.lean import SettledSize, SharedComponentStyles

_BLOCKS = " ▏▎▍▌▋▊▉█"
BAR_WIDTH = 30  # p = 1 fills it, when there is room
MIN_BAR_WIDTH = 8  # on a narrow screen the bars shrink to this before the tags are cut
TAGS = "  ◀ target ★ predicted"  # the room the tags after a bar take
SHORT_TAGS = "  ◀ ★"  # when even the shortest bars leave no room for TAGS (the header says what they mean)


class LogitBars(SharedComponentStyles, SettledSize, Widget):
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "logits--header",
        "logits--bar",
        "logits--target",
        "logits--predicted",
        "logits--up",
        "logits--down",
        "logits--source",
    }
    DEFAULT_CSS = """
    LogitBars {
        width: auto;
        height: auto;
        padding: 0 1;
        border: round $primary;
        border-title-color: $primary;
        border-title-align: left;
    }
    LogitBars.input { border: round $panel-lighten-2; border-title-color: $foreground-muted; }
    LogitBars > .logits--header { color: $foreground-muted; text-style: bold; }
    LogitBars > .logits--bar { color: $primary; }
    LogitBars > .logits--target { color: $tt-target; text-style: bold; }
    LogitBars > .logits--predicted { color: $tt-predicted; text-style: bold; }
    LogitBars > .logits--up { color: $tt-changed-up; text-style: bold underline; }
    LogitBars > .logits--down { color: $tt-changed-down; text-style: bold underline; }
    LogitBars > .logits--source {
        background: $tt-current-step; color: $foreground; text-style: bold underline;
    }
    """

    def __init__(self, spec: LogitsSpec, role: str = "output", **kwargs) -> None:
        super().__init__(**kwargs)
        self.spec = spec
        self.add_class(role)
        self.border_title = spec.title
        self.lit: frozenset[Source] = frozenset()  # the logits/probs the focused value reads (▸ marks them)

    def sources(self) -> frozenset[Source]:
        """Every run cell the bars show: ("logits", (i,)) and ("probs", (i,))."""
        return frozenset(s for r in self.spec.rows for s in (r.logit_source, r.prob_source) if s is not None)

    def set_lit(self, cells: frozenset[Source]) -> None:
        if cells != self.lit:
            self.lit = cells
            self.refresh()

    def set_spec(self, spec: LogitsSpec) -> None:
        old, self.spec = self.spec, spec
        if old == spec:
            return
        if self.border_title != spec.title:
            self.border_title = spec.title
        # a layout only when the size changes (another vocabulary, a longer token)
        self.refresh(layout=self._size_of(old) != self._size_of(spec))

    def reset(self, spec: LogitsSpec, role: str) -> None:
        """Show another step's bars in this widget (a pooled widget reused across steps)."""
        for other in ("output", "param", "input", "info"):
            self.set_class(other == role, other)
        self.set_spec(spec)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.spec.rows) + 1 + bool(self.spec.others)

    def on_mount(self) -> None:
        # the room is the scrolling pane's, measured once it is laid out: when it changes (the watch pane
        # shown or hidden, a resize), lay the bars out again for it
        self._measured = -1
        self.screen.screen_layout_refresh_signal.subscribe(self, lambda _screen: self._room_changed())

    def _room_changed(self) -> None:
        room = self._room()
        if room != self._measured:
            self._measured = room
            self.refresh(layout=True)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return max(self._fixed_width(short=self._short()) + self._bar_width(), len(self.spec.others))

    def _room(self) -> int:
        """The columns the bars' pane shows inside this frame (border, padding, the scrollbar's column);
        0 before there is a pane to measure."""
        room = next(
            (n.scrollable_content_region.width for n in self.ancestors if isinstance(n, ScrollableContainer)),
            0,
        )
        return max(0, room - self.styles.gutter.width - 1) if room else 0

    def _short(self) -> bool:
        """Whether the tags are written short (◀ ★): the long ones leave no room for even a short bar."""
        room = self._room()
        return bool(room) and room < self._fixed_width() + MIN_BAR_WIDTH

    def _bar_width(self) -> int:
        """BAR_WIDTH, or less when the visible width is smaller (80 columns, the watch pane beside), so
        the target and prediction tags after the bars stay on screen."""
        room = self._room()
        if not room:
            return BAR_WIDTH
        return max(MIN_BAR_WIDTH, min(BAR_WIDTH, room - self._fixed_width(short=self._short())))

    def _size_of(self, spec: LogitsSpec) -> tuple[int, int, int]:
        return len(spec.rows), self._fixed_width(spec), len(spec.others)

    def _fixed_width(self, spec: LogitsSpec | None = None, short: bool = False) -> int:
        rows = (spec or self.spec).rows
        return max(len(r.token) for r in rows) + 18 + len(SHORT_TAGS if short else TAGS)

    def _style(self, name: str):
        return self.get_component_rich_style(name, partial=True)

    def _number(self, text: str, marks: frozenset[str], source: Source | None = None) -> Text:
        style = (
            self._style("logits--up") if UP in marks else self._style("logits--down") if DOWN in marks else ""
        )
        if source is not None and source in self.lit:
            return Text(f"▸{text:>7}{glyph(marks)}", style=self._style("logits--source"))
        return Text(f" {text:>7}{glyph(marks)}", style=style)

    def render(self) -> Text:
        rows = self.spec.rows
        tok_w = max(len(r.token) for r in rows)
        short = self._short()
        fixed = self._fixed_width(short=short)
        bar_w = max(MIN_BAR_WIDTH, self.content_region.width - fixed) if self.size else BAR_WIDTH
        bar_w = min(bar_w, BAR_WIDTH)
        out = Text(no_wrap=True, overflow="ignore", end="")
        # short tags: the header says what ◀ and ★ mean, where "p as a bar" would be
        legend = "◀ target ★ predicted" if short else "p as a bar"
        header = f"{'token':<{tok_w}}    logit    prob  {legend}"
        out.append(header, self._style("logits--header"))
        for r in rows:
            out.append("\n")
            label_style = (
                self._style("logits--target")
                if r.target
                else self._style("logits--predicted")
                if r.predicted
                else ""
            )
            out.append(f"{r.token:<{tok_w}}", label_style)
            out.append_text(self._number(r.logit, r.logit_mark, r.logit_source))
            out.append_text(self._number(r.prob, r.prob_mark, r.prob_source))
            out.append(" ")
            out.append(_bar(r.p, bar_w), self._style("logits--predicted" if r.predicted else "logits--bar"))
            tags = []
            if r.target:
                tags.append(("◀" if short else "◀ target", "logits--target"))
            if r.predicted:
                tags.append(("★" if short else "★ predicted", "logits--predicted"))
            for tag, style in tags:
                out.append(" " + tag, self._style(style))
        if self.spec.others:
            out.append("\n")
            out.append(self.spec.others, self._style("logits--header"))
        return out

    def text(self) -> str:
        return self.render().plain


def _bar(p: float, width: int) -> str:
    eighths = round(max(0.0, min(1.0, p)) * width * 8)
    full, part = divmod(eighths, 8)
    return ("█" * full + (_BLOCKS[part] if part else "")).ljust(width)
