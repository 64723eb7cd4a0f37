"""The current step's heading, equation, explanation and key numbers (from model.stages and model.facts)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.widgets import Static

from tinytui.model.facts import stage_facts
from tinytui.model.stages import LAST, STAGE_BY_NUMBER, formula_as_run
from tinytui.widgets.backward import heading, in_walk
from tinytui.widgets.view import View, ViewPart


class StepInfo(ViewPart, Static):
    COMPONENT_CLASSES: ClassVar[set[str]] = {"info--title", "info--formula", "info--fact"}
    text = ""
    DEFAULT_CSS = """
    StepInfo { height: auto; padding: 0 1; }
    StepInfo > .info--title { color: $primary; text-style: bold; }
    StepInfo > .info--formula { color: $accent; text-style: italic; }
    StepInfo > .info--fact { color: $foreground; text-style: bold; }
    """

    def show(self, view: View) -> None:
        if in_walk(view):
            self._show_backward(view)
            return
        stage = STAGE_BY_NUMBER[view.step]
        eq = f"   (equation {stage.equation})" if stage.equation else ""
        text = Text()
        text.append(f"Step {stage.number} of {LAST} · {stage.title}{eq}\n", self._style("info--title"))
        text.append(f"  {formula_as_run(stage, view.trace.switches)}\n", self._style("info--formula"))
        text.append(stage.explain(view.trace))
        for fact in stage_facts(view.trace, stage):
            text.append("\n• ")
            text.append(fact, self._style("info--fact"))
        self.text = text.plain
        self.update(text)

    def _show_backward(self, view: View) -> None:
        """The backward walk's heading: where the walk is, the local rules, why, and where n and p go."""
        h = heading(view)
        text = Text()
        text.append(f"◀ {h.title}\n", self._style("info--title"))
        for rule in h.rules:
            text.append(f"  {rule}\n", self._style("info--formula"))
        text.append(h.explain)
        text.append(f"\n{h.hint}", self._style("info--fact"))
        self.text = text.plain
        self.update(text)

    def _style(self, name: str):
        return self.get_component_rich_style(name, partial=True)
