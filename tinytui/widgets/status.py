"""The status line (prediction, probability, loss, switches — always on screen) and the cell inspector."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.widgets import Static

from model.stages import LAST, STAGE_BY_NUMBER
from tinytui.report import fmt
from tinytui.widgets.view import View, ViewPart


def _arrow(old: float, new: float) -> str:
    if new > old:
        return " ▲"
    if new < old:
        return " ▼"
    return ""


class StatusBar(ViewPart, Static):
    """Where the run stands: step, prompt, prediction and loss (old → new after a change), switches."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"status--key", "status--muted", "status--step"}
    text = ""
    DEFAULT_CSS = """
    StatusBar { height: auto; background: $panel; padding: 0 1; }
    StatusBar > .status--key { color: $accent; text-style: bold; }
    StatusBar > .status--muted { color: $foreground-muted; }
    StatusBar > .status--step { color: $primary; text-style: bold; }
    """

    def show(self, view: View) -> None:
        self.text = self.describe(view).plain  # what is on screen, for tests and transcripts
        self.update(self.describe(view))

    def describe(self, view: View) -> Text:
        trace, base, s = view.trace, view.base, view.session
        key, muted = self._style("status--key"), self._style("status--muted")
        stage = STAGE_BY_NUMBER[view.step]
        text = Text()
        text.append(f"Step {stage.number}/{LAST} {stage.title}", self._style("status--step"))
        text.append("  │  ", muted)
        text.append(" ".join(trace.prompt) + f" → target {trace.target}")
        text.append("\n")
        p, p_old = float(trace["probs"].max()), float(base["probs"].max())
        text.append("prediction ", muted)
        if view.changed and (base.prediction != trace.prediction or fmt(p) != fmt(p_old)):
            text.append(f"{base.prediction} {fmt(p_old)} → ", muted)
        text.append(f"{trace.prediction} {fmt(p)}", key)
        text.append("  loss ", muted)
        if view.changed and fmt(base.loss) != fmt(trace.loss):
            text.append(f"{fmt(base.loss)} → ", muted)
            text.append(f"{fmt(trace.loss)}{_arrow(base.loss, trace.loss)}", key)
        else:
            text.append(fmt(trace.loss), key)
        n_edited = sum(len(v) for v in view.edited.values())
        if n_edited:
            text.append(f"  │  {n_edited} edited weight{'s' if n_edited != 1 else ''}", key)
        if s.can_undo or s.can_redo:
            text.append(f"  │  undo {s.cursor} · redo {len(s.history) - 1 - s.cursor}", muted)
        text.append("\n")
        text.append(s.state.switches.describe())
        against = "the original model" if s.compare_to_original else "the last change"
        text.append(f"  │  marks ▲▼ vs {against} (c)", muted)
        return text

    def _style(self, name: str):
        return self.get_component_rich_style(name, partial=True)


class Inspector(Static):
    """One line about the cell under the cursor: its name, value, and old → new with Δ after a change."""

    DEFAULT_CSS = """
    Inspector { height: auto; max-height: 2; background: $panel; color: $foreground; padding: 0 1; }
    """

    HINT = "Tab: next table · arrows: move the cursor · Enter: edit a weight · ?: every key"

    text = HINT

    def describe(self, detail: str | None) -> None:
        self.text = detail or self.HINT
        self.update(self.text)
