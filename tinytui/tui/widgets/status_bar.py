"""The status line (prediction, probability, loss, switches — always on screen) and the cell inspector."""

from __future__ import annotations

import textwrap
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.geometry import Region
from textual.strip import Strip
from textual.visual import Visual, visualize
from textual.widget import Widget
from textual.widgets import Static

from tinytui.lesson import step_path
from tinytui.lesson.arch_names import is_chapters, model_choices
from tinytui.lesson.stages import STAGE_BY_NUMBER, title_for
from tinytui.lesson.why.why import Why
from tinytui.model.switches import Switches
from tinytui.model.trace import DEFAULT_LR
from tinytui.present.backward_tables import backward_stage, in_walk
from tinytui.present.sparkline import sparkline
from tinytui.present.view import View, ViewPart
from tinytui.report.tables import fmt

CHAPTER_SWITCHES = Switches()


def _arrow(old: float, new: float) -> str:
    if new > old:
        return " ▲"
    if new < old:
        return " ▼"
    return ""


def _pack(lines: list[list[Text]], width: int, rule_style) -> Text:
    """Each line of pieces on one row of this width, so the bar keeps its height at any width and after
    any change: a piece that does not fit what is left of its row goes on to the next row, before that
    row's last piece (the edited count and undo beside the switches, ahead of the ▲▼ legend), and is left
    out when it fits there neither; a row's first piece alone too long is cut with "…". The first row's
    pieces never move (the prompt is in the tokens' table)."""
    out = Text(end="")
    spill: list[Text] = []
    for n, pieces in enumerate(lines):
        if n:
            out.append("\n")
        if spill and pieces:
            pieces = [*pieces[:-1], *spill, pieces[-1]]
        spill = []
        used = 0
        for piece in pieces:
            room = width - used - (len(RULE) if used else 0)
            if piece.cell_len <= room:
                if used:
                    out.append(RULE, rule_style)
                    used += len(RULE)
                out.append_text(piece)
                used += piece.cell_len
            elif not used:
                cut = piece.copy()
                cut.truncate(width, overflow="ellipsis")
                out.append_text(cut)
                used = width
            elif n:
                spill.append(piece)
    return out


ROWS = 3  # the bar's height at every width (_pack): the step, the prediction and loss, the switches
RULE = "  │  "  # between two pieces of a line
PROMPT_KEPT = 24  # the prompt is cut to fit beside the step's name only while this much of it is left


def _fit_first(pieces: list[Text], width: int) -> list[Text]:
    """The step's name and the prompt on one line: a prompt too long to fit beside the name loses its
    first tokens ("… fox runs in the forest at → target night"), so the bar keeps its height from step
    to step; the whole prompt is in the tokens' table."""
    where, prompt = pieces
    room = width - len(where) - len(RULE)
    if len(prompt) <= room or room < PROMPT_KEPT:
        return pieces
    at = prompt.plain.find(" ", len(prompt) - room + 1)  # a whole token goes, never part of one
    if at < 0:
        return pieces
    return [where, Text("…").append_text(prompt[at:])]


class StatusBar(ViewPart, Widget):
    """Where the run stands: step, prompt, prediction and loss (old → new after a change), switches."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"status--key", "status--muted", "status--step"}
    text = ""
    view: View | None = None
    DEFAULT_CSS = """
    StatusBar { height: 3; width: 100%; background: $panel; padding: 0 1; }
    StatusBar > .status--key { color: $accent; text-style: bold; }
    StatusBar > .status--muted { color: $foreground-muted; }
    StatusBar > .status--step { color: $primary; text-style: bold; }
    """

    def show(self, view: View) -> None:
        width = self.content_size.width
        first = self.view is None
        self.view = view
        self.text = self.describe(view).plain  # what is on screen, for tests and transcripts
        if first:
            self.refresh()
            return
        for y in range(ROWS):  # only the lines that say something else (a step: the first)
            kept = self._drawn.get(y)
            if kept is None or kept[0] != self._shows(y, width):
                self.refresh(Region(0, y, self.size.width, 1))

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._drawn: dict[int, tuple[tuple, Strip]] = {}  # line y -> (what it was drawn from, the line)
        self._split: tuple[Text | None, list[Text]] = (None, [])  # describe's text, as its lines

    def render_line(self, y: int) -> Strip:
        """Line y of the bar, drawn again only when its words or their styles changed."""
        width = self.content_size.width
        key = self._shows(y, width)
        kept = self._drawn.get(y)
        if kept is not None and kept[0] == key:
            return kept[1]
        lines = self._lines(width)
        if y < len(lines):
            strip = Visual.to_strips(self, visualize(self, lines[y]), width, 1, self.visual_style)[0]
        else:
            strip = Strip.blank(width, self.visual_style.rich_style)
        self._drawn[y] = (key, strip)
        return strip

    def _lines(self, width: int) -> list[Text]:
        if self.view is None:
            return []
        text = self._described_text(self.view, width)
        if self._split[0] is not text:
            self._split = (text, list(text.split("\n")))
        return self._split[1]

    def _shows(self, y: int, width: int) -> tuple:
        """What line y is drawn from: when it is the same, the line drawn last time stands."""
        lines = self._lines(width)
        line = lines[y] if y < len(lines) else None
        said = None if line is None else (line.plain, tuple(line.spans))
        return said, width, self.app.theme

    _described: tuple[View, str, dict[int, Text]] | None = None  # the last view's texts, by width

    def describe(self, view: View, width: int = 0) -> Text:
        """Lines of pieces; a piece never breaks, so a narrow terminal gets more lines, not broken words.
        (Asked for the text, the height and the drawing, at two widths, and made once for each.)"""
        return self._described_text(view, width).copy()

    def _described_text(self, view: View, width: int) -> Text:
        """describe's text as kept (not to be changed: describe gives a copy)."""
        kept = self._described
        if kept is None or kept[0] is not view or kept[1] != self.app.theme:
            kept = self._described = (view, self.app.theme, {})
        text = kept[2].get(width)
        if text is None:
            muted = self._style("status--muted")
            lines = self.lines(view)
            if width > 0:
                lines[0] = _fit_first(lines[0], width)
            text = kept[2][width] = _pack(lines, width if width > 0 else 10_000, muted)
        return text

    def lines(self, view: View) -> list[list[Text]]:
        trace, base = view.trace, view.base
        key, muted = self._style("status--key"), self._style("status--muted")
        stage = STAGE_BY_NUMBER[view.step]
        where = f"{step_path.of_all(view.here, trace.cfg.n_blocks, '/')} {title_for(stage, trace.cfg)}"
        if in_walk(view):  # the backward pass says so first, where the step's name would be
            where = f"◀ BACKWARD PASS · {view.heading} · {backward_stage(view).title}"
        first = [
            Text(where, self._style("status--step")),
            Text(" ".join(trace.prompt) + f" → target {trace.target}"),
        ]
        p, p_old = float(trace["probs"].max()), float(base["probs"].max())
        prediction = Text("prediction ", muted)
        loss = Text("loss ", muted)
        if view.practice is not None:  # practice on: the probability and the loss are answers steps ask
            prediction.append(f"{trace.prediction} ?", key)
            loss.append("?", key)
        else:
            if view.changed and (base.prediction != trace.prediction or fmt(p) != fmt(p_old)):
                prediction.append(f"{base.prediction} {fmt(p_old)} → ", muted)
            prediction.append(f"{trace.prediction} {fmt(p)}", key)
            if view.changed and fmt(base.loss) != fmt(trace.loss):
                loss.append(f"{fmt(base.loss)} → ", muted)
                loss.append(f"{fmt(trace.loss)}{_arrow(base.loss, trace.loss)}", key)
            else:
                loss.append(fmt(trace.loss), key)
        second = [prediction, loss]
        if not is_chapters(trace.cfg):  # a Llama-family model: its choices, briefly
            second.append(Text(model_choices(trace.cfg), muted))
        if (curve := view.curve) is not None:  # the current weights came from learning steps
            run = f"{curve.steps} step{'s' if curve.steps != 1 else ''} of {curve.lr:g}"
            spark = f" {sparkline(curve.losses)} " if len(curve.losses) > 2 else " → "
            second.append(Text(f"learned {run}: {fmt(curve.losses[0])}{spark}{fmt(curve.losses[-1])}", key))
        n_edited = sum(len(v) for v in view.edited.values())
        if n_edited:
            second.append(Text(f"{n_edited} edited weight{'s' if n_edited != 1 else ''}", key))
        if view.undo.back or view.undo.forward:
            second.append(Text(f"undo {view.undo.back} · redo {view.undo.forward}", muted))
        against = "original model" if view.compare_to_original else "last change"
        third = [self._switches(view)]
        if view.lr != DEFAULT_LR:
            third.append(Text(f"lr {view.lr:g}", key))
        third += [Text(piece, key) for piece in view.notes]  # the app's: recording, replay
        third.append(Text(f"▲▼ vs {against} (c)", muted))  # last: the first left out on a narrow screen
        return [first, second, third]

    def _switches(self, view: View) -> Text:
        """The switches, each one that differs from the chapter's setting in the key style."""
        chapter = set(CHAPTER_SWITCHES.labels())
        out = Text()
        for i, label in enumerate(view.switches.labels()):
            if i:
                out.append(" · ")
            out.append(label, None if label in chapter else self._style("status--key"))
        return out

    _styles: tuple[str, dict[str, Style]] = ("", {})  # (theme, style by component class)

    def _style(self, name: str) -> Style:
        theme, styles = self._styles
        if theme != self.app.theme:
            theme, styles = self._styles = (self.app.theme, {})
        style = styles.get(name)
        if style is None:
            style = styles[name] = self.get_component_rich_style(name, partial=True)
        return style


class Inspector(Static):
    """The cell under the cursor: why it has its value (the formula, the operands' numbers, the result),
    its old value and Δ after a change, and what f follows. While the cursor is on a table it has 3 lines
    (2 on a small screen) whatever the cell says: the tables above keep their place as the cursor moves
    (and nothing is laid out again); with no cell to explain, one line of keys."""

    DEFAULT_CSS = """
    Inspector { height: 1; background: $panel; color: $foreground; padding: 0 1; }
    """

    HINT = "Tab: next table · arrows: cursor · Enter: edit a weight · ?: all keys"

    text = HINT
    detail: str | None = None
    why: Why | None = None
    hint = ""

    def describe(self, detail: str | None, why: Why | None = None, hint: str = "") -> None:
        """Show a cell: its own line (detail), and with a Why its provenance; hint says what f does."""
        self.detail, self.why, self.hint = detail, why, hint
        self._show()

    def on_resize(self) -> None:
        self._show()

    def lines_allowed(self) -> int:
        width, height = self.app.size
        return 3 if width >= 100 and height >= 30 else 2

    def _show(self) -> None:
        lines = self.lines_allowed()
        height = lines if self.detail or self.why is not None else 1
        now = self.styles.height.value if self.styles.height is not None else None
        if height != now:
            self.styles.height = height  # a layout: the tables' view is shorter or taller
            if now is not None and height > now:  # keep the cursor's cell in the shorter view
                self.call_after_refresh(self._keep_cursor_in_view)
        width = self.content_size.width or max(self.app.size.width - 2, 20)
        text = self.detail or self.HINT
        if self.why is not None:
            text = provenance_text(self.why, self.detail or "", self.hint, width, lines)
        if text != self.text:
            self.text = text
            self.update(Text(text), layout=False)  # its height is fixed: only its lines change

    def _keep_cursor_in_view(self) -> None:
        scroll = getattr(self.app.focused, "scroll_to_cursor", None)
        if scroll is not None:
            scroll()


def _extra(detail: str) -> str:
    """What the cell's own line adds to the formula: '(was …, Δ …)', '(model file …)', '· Enter to edit'."""
    at = [i for i in (detail.find("  ("), detail.find("  ·")) if i >= 0]
    return detail[min(at) :] if at else ""


def _wrap(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width, break_long_words=True, break_on_hyphens=False) or [""]


def provenance_text(why: Why, detail: str, hint: str, width: int, lines: int) -> str:
    """formula = filled = result (was …), wrapped to width in at most `lines` lines: `filled` is cut
    with "…" until it fits, then the whole; the follow hint goes where a line is left."""
    width = max(width, 10)
    tail = f" {why.ending}{_extra(detail)}"

    def main(filled: str | None) -> str:
        return why.formula + (f" = {filled}" if filled is not None else "") + tail

    filled: str | None = why.filled if why.filled != why.result else None
    text = main(filled)
    while filled is not None and len(_wrap(text, width)) > lines:
        cut = len(filled) - max(8, len(filled) // 6)
        filled = filled[: max(cut, 0)].rstrip() + "…" if cut > 0 else None
        text = main(filled)
    wrapped = _wrap(text, width)
    if len(wrapped) > lines:
        wrapped = _wrap(text[: lines * width - lines * 4] + "…", width)[:lines]
    if hint:
        joined = _wrap(text + "   · " + hint, width)
        if len(joined) <= len(wrapped):  # on the formula's last line, when it fits there
            wrapped = joined
        elif len(wrapped) < lines:
            wrapped.append(hint if len(hint) <= width else hint[: width - 1] + "…")
    return "\n".join(wrapped)
