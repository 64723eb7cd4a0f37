"""The watch pane: the prediction and one block's attention kept on screen whatever step is shown.

An edit at step 6 can then be watched reaching the prediction: the pane shows the top tokens and the
target as probability bars, each with a ghost of its value before the last change (the bar's lost part
drawn ░, and "was 0.3107" under it), and each head's attention as a small heatmap, one character per
cell, shaded on the theme's heat scale. What changed carries ▲ ▼ ◆ like every other table.

Under the loss, the logit lens: p(target) read off the stream at every point (present/lens_tables.py).
present/watch_data.py reads a View into plain data (watch_spec, which tests read directly) and says
what the pane shows in its place while practising; WatchPane draws it as lines of text on the Line API
(TextLines, text_lines.py): after an edit only the lines that differ are drawn again. The app hides the
pane until W (tinytui.tui.controllers.watch_controller) shows it; at 80 columns it takes the step list's
place, and a line too long for it breaks between its parts.
"""

from __future__ import annotations

import textwrap
from typing import ClassVar

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text

from tinytui.present.grid_spec import CHANGED, DOWN, GLYPHS, MASKED, UP
from tinytui.present.label_fit import fit_label
from tinytui.present.lens_tables import LensLine, lens_lines
from tinytui.present.lens_tables import bar as lens_bar
from tinytui.present.view import View, ViewPart
from tinytui.present.watch_data import WatchSpec, bar_cells, hidden_while_practising, watch_spec
from tinytui.report.tables import fmt, on_screen_text
from tinytui.themes.scale import heat, readable_on
from tinytui.tui.widgets.text_lines import TextLines

BAR = 11  # cells of a bar at p = 1 (8 steps a cell)
NARROW_BAR = 6


class WatchPane(ViewPart, TextLines, can_focus=False):
    """The watch pane (W): the prediction's bars and the attention of the block shown (the first outside
    the blocks), redrawn on every change."""

    SCOPED_CSS = False  # the rules below also say where the pane goes in the app's layout
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "watch--header",
        "watch--muted",
        "watch--bar",
        "watch--ghost",
        "watch--target",
        "watch--predicted",
        "watch--up",
        "watch--down",
        "watch--changed",
    }
    DEFAULT_CSS = """
    WatchPane {
        display: none;
        width: 34;
        height: 100%;
        border-left: vkey $panel-lighten-2;
        padding: 0 0 0 1;
        scrollbar-size-vertical: 1;
        overflow-x: hidden;
        overflow-y: auto;
    }
    .-watching WatchPane { display: block; }
    /* at 80 columns the pane takes the step list's place (the step is still reached with n, p, 1–9) */
    .-narrow WatchPane { width: 28; }  /* the step keeps 52 columns: room for its first tables */
    .-narrow.-watching #sidebar { display: none; }
    WatchPane > .watch--header { color: $primary; text-style: bold; }
    WatchPane > .watch--muted { color: $foreground-muted; }
    WatchPane > .watch--bar { color: $primary; }
    WatchPane > .watch--ghost { color: $foreground-muted; }
    WatchPane > .watch--target { color: $tt-target; text-style: bold; }
    WatchPane > .watch--predicted { color: $tt-predicted; text-style: bold; }
    WatchPane > .watch--up { color: $tt-changed-up; text-style: bold; }
    WatchPane > .watch--down { color: $tt-changed-down; text-style: bold; }
    WatchPane > .watch--changed { text-style: bold underline; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.view: View | None = None
        self.spec: WatchSpec | None = None
        self.lens: tuple[LensLine, ...] = ()  # the logit lens, point by point (present/lens_tables.py)
        self._drawn: tuple | None = None

    def show(self, view: View) -> None:
        self.view = view
        if self.display:
            self.redraw()

    def on_show(self) -> None:
        self.redraw()

    def redraw(self) -> None:
        if self.view is None or not self.is_mounted:
            return
        self.spec = watch_spec(self.view)
        self.lens = lens_lines(self.view)
        bar = NARROW_BAR if self.app.has_class("-narrow") else BAR
        room, tall = self.content_region.width or 30, self.container_size.height
        hidden = hidden_while_practising(self.view)
        key = (self.spec, self.lens, bar, room, tall, self.app.theme, hidden)
        if key != self._drawn:
            self._drawn = key
            if hidden:
                self.set_text(self.render_hidden(hidden, room))
                return
            text = self.render_spec(self.spec, bar, room)
            if text.plain.count("\n") + 1 > tall:  # taller than the pane: its scrollbar takes a column
                text = self.render_spec(self.spec, bar, room - self.styles.scrollbar_size_vertical)
            self.set_text(text)

    def on_resize(self) -> None:
        self.redraw()

    # ---- drawing -------------------------------------------------------------------------------
    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(name, partial=True) if name else Style()

    def _mark_style(self, mark: str) -> Style:
        return {UP: self._style("watch--up"), DOWN: self._style("watch--down")}.get(
            mark, self._style("watch--changed") if mark else Style()
        )

    def render_spec(self, spec: WatchSpec, bar: int = BAR, width: int = 32) -> Text:
        """The pane's lines for a pane width columns wide: a line that would not fit breaks between
        its parts (and anything still too wide ends in "…" on screen)."""
        out = Text(no_wrap=True, overflow="ellipsis", end="")
        header, muted = self._style("watch--header"), self._style("watch--muted")
        out.append("Watch: the prediction", header)
        out.append("\n")
        tok_w = min(9 if bar >= BAR else 7, max(len(b.token) for b in spec.bars))
        heading = "p(next token)"
        out.append(f"{heading:<{max(tok_w + 2 + bar, len(heading) + 1)}}prob", muted)  # never "token)prob"
        for b in spec.bars:
            if not b.top:
                out.append("\n" + "⋯".center(tok_w), muted)
            out.append("\n")
            label = self._style("watch--target" if b.target else "watch--predicted" if b.predicted else "")
            out.append(f"{fit_label(b.token, tok_w)} ", label)
            solid, grown, ghost = bar_cells(b.p, b.was, bar)
            out.append(solid, self._style("watch--predicted" if b.predicted else "watch--bar"))
            out.append(grown, self._style("watch--up"))
            out.append(ghost, self._style("watch--ghost"))
            out.append(" " * max(0, bar - len(solid) - len(grown) - len(ghost)))
            out.append(f" {fmt(b.p)}{GLYPHS.get(b.mark, ' ')}", self._mark_style(b.mark))
            tags = ("◀" if b.target else "") + ("★" if b.predicted else "")
            if tags:
                out.append(tags, label)
            if b.was is not None:
                delta = b.p - b.was
                was = on_screen_text(
                    f"was {fmt(b.was)}  Δ {delta:+.4f}"
                    if abs(delta) >= 5e-5
                    else f"was {fmt(b.was)}  Δ {delta:+.0e}"
                )
                # under the bar, or as far right as it fits whole
                out.append("\n" + " " * max(0, min(tok_w + 1, width - cell_len(was))))
                out.append(was, muted)
        if spec.others:
            out.append("\n")  # the tokens without a bar, and their probability together
            out.append(f"{'⋯':^{tok_w}} {f'{spec.others:,} more':<{bar}} {fmt(spec.others_p)}", muted)
        for line in fit_parts(["◀ target", "★ predicted", "░ lost"], "  ", width):
            out.append("\n")
            out.append(line, muted)
        out.append("\n")
        out.append(f"loss {fmt(spec.loss)}", self._mark_style(spec.loss_mark))
        out.append(GLYPHS.get(spec.loss_mark, ""), self._mark_style(spec.loss_mark))
        if spec.loss_was is not None:
            out.append(f" was {fmt(spec.loss_was)}", muted)
        out.append("\n\n")
        if self.lens:
            out.append_text(self._lens(bar, width))
            out.append("\n\n")
        out.append_text(self._heatmaps(spec, width))
        return out

    def _lens(self, bar: int, width: int) -> Text:
        """The logit lens: p(target) read off the stream at each point, with the likeliest token there."""
        out = Text(no_wrap=True, overflow="ellipsis", end="")
        header, muted = self._style("watch--header"), self._style("watch--muted")
        target = self.view.trace.target if self.view is not None else ""
        out.append("Logit lens", header)
        out.append("\n")
        out.append(fit_label(f"p({target}) read early", width).rstrip(), muted)
        where_w = max(len(line.where) for line in self.lens)
        room = max(1, width - where_w - bar - 9)  # what is left of the line for the likeliest token
        for line in self.lens:
            out.append("\n")
            out.append(f"{line.where:<{where_w}} ", muted)
            out.append(lens_bar(line.p, bar), self._style("watch--predicted" if line.last else "watch--bar"))
            out.append(f" {fmt(line.p)} {fit_label(line.top, room).rstrip()}")
        return out

    def render_hidden(self, said: str, width: int) -> Text:
        """The pane's heading, and what it says in place of its numbers (while practising)."""
        out = Text(no_wrap=True, overflow="ellipsis", end="")
        out.append("Watch: the prediction", self._style("watch--header"))
        for line in textwrap.wrap(said, max(width, 12)):
            out.append("\n")
            out.append(line, self._style("watch--muted"))
        return out

    def _heatmaps(self, spec: WatchSpec, width: int) -> Text:
        out = Text(no_wrap=True, overflow="ellipsis", end="")
        header, muted = self._style("watch--header"), self._style("watch--muted")
        out.append(spec.heading, header)
        for line in fit_parts(["query ↓ · key →", "░ 0 … █ 1"], " · ", width):
            out.append("\n")
            out.append(line, muted)
        n = len(spec.positions)
        # the labels whole where two heads still fit beside them (a cut one ends in …, never "1:wood")
        beside = width - 1 - (n + 2) * min(2, len(spec.heads))
        lab_w = min(max(len(p) for p in spec.positions), max(6, beside))
        room = width - lab_w - 1
        per_row = max(1, room // (n + 2))
        variables = self.app.theme_variables
        for start in range(0, len(spec.heads), per_row):
            heads = spec.heads[start : start + per_row]
            out.append("\n" + " " * (lab_w + 1))
            for head in heads:
                out.append(f"{head.title:<{n + 2}}", muted)
            out.append("\n" + " " * (lab_w + 1))
            for _ in heads:
                keys = "".join((label.partition(":")[2] or label)[:1] for label in spec.positions)
                out.append(f"{keys:<{n + 2}}", muted)
            for r, label in enumerate(spec.positions):
                out.append("\n")
                out.append(f"{fit_label(label, lab_w)} ", muted)
                for head in heads:
                    for c in range(n):
                        mark = head.marks[r][c]
                        bg = heat(variables, head.values[r][c])
                        fg = readable_on(bg)
                        style = Style(bgcolor=bg.rich_color, color=fg.rich_color)
                        if mark in (UP, DOWN, CHANGED):
                            style += Style(bold=True)
                        out.append(GLYPHS.get(mark, " ") if mark != MASKED else "·", style)
                    out.append("  ")
        changed = [
            (head.title, spec.positions[r], spec.positions[c], head.values[r][c], was)
            for head in spec.heads
            for r, row in enumerate(head.was)
            for c, was in enumerate(row)
            if was is not None
        ]
        if changed:
            out.append("\n")
            out.append(f"▲▼ {len(changed)} weight{'s' if len(changed) != 1 else ''} changed", muted)
            title, q, k, now, was = max(changed, key=lambda x: abs(x[3] - x[4]))
            for line in fit_parts([f"most: head {title[1:]}", f"{q}→{k}"], " ", width):
                out.append("\n")
                out.append(line, muted)
            out.append("\n")
            out.append(f"  {fmt(now)} was {fmt(was)}", muted)
        return out

    def text(self) -> str:
        """What the pane shows, as plain text, uncut (for tests)."""
        return self.plain


def fit_parts(parts: list[str], sep: str, width: int) -> list[str]:
    """The parts on one line, sep between them, or on as few lines as hold them within width (a part
    never split)."""
    lines = [parts[0]]
    for part in parts[1:]:
        joined = lines[-1] + sep + part
        if cell_len(joined) <= width:
            lines[-1] = joined
        else:
            lines.append(part)
    return lines
