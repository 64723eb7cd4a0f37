"""The list of the sixteen steps: the current one marked, and how many values each step's output changed."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.widget import Widget

from tinytui.model.stages import STAGES
from tinytui.widgets.view import View, ViewPart


class StepList(ViewPart, Widget, can_focus=True):
    """Click a step to go there; with the list focused, up and down move between steps."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", "Previous step", show=False, id="steps-up"),
        Binding("down", "move(1)", "Next step", show=False, id="steps-down"),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"steps--current", "steps--count", "steps--title"}
    DEFAULT_CSS = """
    StepList { height: auto; width: 100%; }
    StepList > .steps--current { background: $tt-current-step; text-style: bold; }
    StepList > .steps--count { color: $warning; text-style: bold; }
    StepList > .steps--title { color: $foreground; }
    """

    class Chosen(Message):
        def __init__(self, step: int) -> None:
            super().__init__()
            self.step = step

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.step = 1
        self.backward = False
        self.counts: dict[int, int] = {}

    def show(self, view: View) -> None:
        self.step = view.step
        self.backward = view.mode.backward  # the walk marks its step ◀: the gradient flows up the list
        self.counts = view.diff.per_stage(view.trace.cfg.n_heads)
        self.refresh()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(STAGES)

    def line(self, number: int, width: int) -> Text:
        stage = STAGES[number - 1]
        count = self.counts.get(number, 0)
        badge = f" Δ{count}" if count else ""
        here = number == self.step
        head = f"{('◀' if self.backward else '▸') if here else ' '}{number:>2} "
        room = max(width - len(head) - len(badge), 0)
        if room < 8:  # a narrow list shows numbers and counts only; the status line names the step
            title = ""
        elif len(stage.title) > room:
            title = stage.title[: room - 1] + "…"
        else:
            title = stage.title
        text = Text(no_wrap=True, overflow="ignore", end="")
        text.append(head)
        text.append(title.ljust(room), self.get_component_rich_style("steps--title", partial=True))
        text.append(badge, self.get_component_rich_style("steps--count", partial=True))
        if here:
            text.stylize(self.get_component_rich_style("steps--current", partial=True))
        return text

    def render(self) -> Text:
        width = self.content_size.width or 30
        return Text("\n", end="").join(self.line(s.number, width) for s in STAGES)

    def text(self) -> str:
        return self.render().plain

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None and 0 <= offset.y < len(STAGES):
            self.post_message(self.Chosen(offset.y + 1))

    def action_move(self, delta: int) -> None:
        self.post_message(self.Chosen(min(max(self.step + delta, 1), len(STAGES))))
