"""The current step's tables: what it makes, the weights it uses, and what it reads from earlier steps.

Rebuilt when the step changes; after an edit the same widgets get new specs, so focus and cursors stay.
"""

from __future__ import annotations

from textual.containers import Horizontal, ScrollableContainer, Vertical
from textual.widget import Widget
from textual.widgets import Static

from tinytui.widgets.backward import pane_sections
from tinytui.widgets.cells import Item, LogitsSpec, Section, all_items
from tinytui.widgets.grid import Grid
from tinytui.widgets.logits import LogitBars
from tinytui.widgets.view import View, ViewPart


class SideBySide(Horizontal):
    """Tables that belong together (one per head) side by side, stacked when they do not fit."""

    DEFAULT_CSS = """
    SideBySide { height: auto; width: auto; }
    SideBySide.-stacked { layout: vertical; }
    SideBySide > * { margin-right: 1; }
    """

    def on_resize(self) -> None:
        self._fit()

    def on_mount(self) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        grids = [c for c in self.children if isinstance(c, Grid)]
        needed = sum(g.natural_width() + 1 for g in grids)
        self.set_class(len(grids) > 1 and needed > self._room(), "-stacked")

    def _room(self) -> int:
        """The visible width: this row is as wide as its tables, so measure the scrolling pane around it."""
        for node in self.ancestors:
            if isinstance(node, ScrollableContainer):
                return node.scrollable_content_region.width
        return self.size.width


def make_widget(item: Item, role: str) -> Widget:
    if isinstance(item, LogitsSpec):
        return LogitBars(item, role=role)
    return Grid(item)


class StepPanes(ViewPart, Vertical):
    DEFAULT_CSS = """
    /* as wide as the widest table, at least the view: #main then scrolls sideways instead of cutting */
    StepPanes { height: auto; width: auto; min-width: 100%; }
    StepPanes > .section { margin-top: 1; padding: 0 1; color: $foreground-muted; text-style: bold; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.signature: tuple = ()
        self.items: dict[str, Widget] = {}

    def show(self, view: View) -> None:
        sections = pane_sections(view)  # the step's own, or the backward walk's, ∂L/∂w beside when asked
        signature = (
            view.step,
            tuple((s.title, tuple(tuple(i.key for i in row) for row in s.rows)) for s in sections),
        )
        if signature == self.signature:
            for item in all_items(sections):
                widget = self.items[item.key]
                widget.set_spec(item)  # type: ignore[attr-defined]
            return
        self._rebuild(sections)
        self.signature = signature

    def _rebuild(self, sections: list[Section]) -> None:
        focused = self.app.focused
        had_focus = focused is not None and focused in self.walk_children()
        self.remove_children()
        self.items = {}
        widgets: list[Widget] = []
        for section in sections:
            widgets.append(Static(section.title, classes="section"))
            for row in section.rows:
                made = [make_widget(item, section.role) for item in row]
                for item, w in zip(row, made):
                    self.items[item.key] = w
                widgets.append(SideBySide(*made) if len(made) > 1 else made[0])
        self.mount_all(widgets)
        if isinstance(self.parent, ScrollableContainer):  # a new step starts at its top
            self.parent.scroll_home(animate=False)
        if had_focus:
            first = next((w for w in self.items.values() if isinstance(w, Grid)), None)
            if first is not None:
                self.call_after_refresh(first.focus)

    def grids(self) -> list[Grid]:
        return [w for w in self.items.values() if isinstance(w, Grid)]

    def grid(self, key: str) -> Grid:
        widget = self.items[key]
        assert isinstance(widget, Grid)
        return widget
