"""The current step's heading, equation, explanation and key numbers (from model.stages and model.facts).

On a short terminal (fewer than SHORT_HEIGHT rows) the heading is compact, so the step's tables start on
screen: the title, the formula, the explanation's first sentence and the facts folded into one line; the
whole explanation and every fact follow the tables (StepMore, PageDown reaches it). The backward walk's
text is folded the same way: its rules, the first sentence, and the keys on one line.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import ClassVar

from rich.text import Text
from textual.widgets import Static

from tinytui.model import step_path
from tinytui.model.stages import STAGE_BY_NUMBER, formula_as_run
from tinytui.model.texts.facts import stage_facts
from tinytui.present.backward_tables import heading, in_walk
from tinytui.present.view import View, ViewPart
from tinytui.report.display_names import in_words
from tinytui.tui.widgets.lean import SettledSize, SharedComponentStyles

SHORT_HEIGHT = 30  # below this many terminal rows the step's text is compact (the rest after the tables)
MORE_HINT = "  ↓ all of it after the tables (PageDown)"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")


def first_sentence(text: str) -> str:
    """The explanation up to its first full stop (all of it when it has one sentence)."""
    return _SENTENCE_END.split(text.strip(), maxsplit=1)[0]


class StepMore(Static):
    """The whole explanation and the facts, after the tables (shown only while StepInfo is compact)."""

    DEFAULT_CSS = """
    StepMore { height: auto; padding: 1 1 0 1; display: none; }
    StepMore.-shown { display: block; }
    """


class StepInfo(SharedComponentStyles, SettledSize, ViewPart, Static):
    COMPONENT_CLASSES: ClassVar[set[str]] = {"info--title", "info--formula", "info--fact"}
    text = ""  # the whole explanation as plain text (compact or not)
    DEFAULT_CSS = """
    StepInfo { height: auto; padding: 0 1; }
    StepInfo > .info--title { color: $primary; text-style: bold; }
    StepInfo > .info--formula { color: $accent; text-style: italic; }
    StepInfo > .info--fact { color: $foreground; text-style: bold; }
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._view: View | None = None
        self._fitted: tuple[bool, int] | None = None  # (compact, width) the text was laid out for
        self.more = StepMore(id="info-more")

    def on_mount(self) -> None:
        # Every pane builds its Rich Text with colours resolved from the theme at the time (here the
        # title, formula and facts): a new theme needs them drawn again, not only repainted. Once the
        # new theme's CSS is in (Textual publishes this after refresh_css), redraw every ViewPart.
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._theme_changed())
        # a resize that crosses SHORT_HEIGHT (or changes the width the facts line is cut to) lays out again
        self.screen.screen_layout_refresh_signal.subscribe(self, lambda _screen: self._refit())
        if self.parent is not None:
            self.parent.mount(self.more)  # after the step's tables (the last child of the same scroller)

    def _theme_changed(self) -> None:
        redraw = getattr(self.app, "refresh_views", None)
        if redraw is not None:
            redraw()

    @property
    def compact(self) -> bool:
        return self.app.size.height < SHORT_HEIGHT

    def _width(self) -> int:
        # the width text wraps at: the widget's less its padding (content_size counts the padding here)
        return max(self.size.width - self.styles.gutter.width, 20) if self.size.width else 60

    def _refit(self) -> None:
        if self._view is not None and self._fitted != (self.compact, self._width()):
            self.show(self._view)

    def show(self, view: View) -> None:
        self._view = view
        self._fitted = (self.compact, self._width())
        if in_walk(view):
            self._show_backward(view)
            return
        stage = STAGE_BY_NUMBER[view.step]
        eq = f"   (equation {stage.equation})" if stage.equation else ""
        where = step_path.of_all(view.here, view.trace.cfg.n_blocks)
        title = Text(f"{where} · {stage.title}{eq}\n", self._style("info--title"))
        # in the tables' names (x′, not the chapter's ASCII x'), as the transcript and print write it
        as_run = formula_as_run(stage, view.trace.switches, view.trace.cfg)
        formula = Text(f"  {in_words(as_run)}\n", self._style("info--formula"))
        explain = stage.explain(view.focused)
        facts = list(stage_facts(view.focused, stage))
        full = Text.assemble(title, formula, explain)
        for fact in facts:
            full.append("\n• ")
            full.append(fact, self._style("info--fact"))
        self.text = full.plain
        if not self.compact:
            self._show_more(None)
            self.update(full)
            return
        # compact: one sentence and one line of facts; all of it after the tables
        text = Text.assemble(title, formula, first_sentence(explain))
        if facts:
            line = Text("• ")
            line.append(" · ".join(facts), self._style("info--fact"))
            line.truncate(self._width(), overflow="ellipsis")
            text.append("\n")
            text.append(line)
        text.append(f"\n{MORE_HINT}")
        self._show_more(
            Text.assemble(
                Text(f"About step {stage.number}\n", self._style("info--title")), full[len(title) :]
            )
        )
        self.update(text)

    def _show_more(self, text: Text | None) -> None:
        self.more.set_class(text is not None, "-shown")
        if text is not None:
            self.more.update(text)

    def _show_backward(self, view: View) -> None:
        """The backward walk's heading: where the walk is, the local rules, why, and where n and p go.
        Compact as the forward steps are: the rules, the first sentence and the keys; all of it after."""
        h = heading(view)
        title = Text(f"◀ {in_words(h.title)}\n", self._style("info--title"))
        rules = Text()
        for rule in h.rules:  # the rules in the tables' names (∂L/∂MHA, x′), as the transcript has them
            rules.append(f"  {in_words(rule)}\n", self._style("info--formula"))
        h = replace(h, explain=in_words(h.explain))
        hint = Text(f"\n{h.hint}", self._style("info--fact"))
        full = Text.assemble(title, rules, h.explain, hint)
        self.text = full.plain
        if not self.compact:
            self._show_more(None)
            self.update(full)
            return
        keys = Text(h.hint, self._style("info--fact"))
        keys.truncate(self._width(), overflow="ellipsis")  # one line: where n and p go comes first
        self.update(Text.assemble(title, rules, first_sentence(h.explain), "\n", keys, f"\n{MORE_HINT}"))
        about = Text(f"About {h.title[0].lower()}{h.title[1:]}\n", self._style("info--title"))
        self._show_more(Text.assemble(about, rules, h.explain, hint))

    def _style(self, name: str):
        return self.get_component_rich_style(name, partial=True)
