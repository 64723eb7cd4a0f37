"""The current step's tables: what it makes, the weights it uses, and what it reads from earlier steps.

After an edit the same widgets get new specs, so focus and cursors stay. When the step changes the
widgets already mounted are reused for the new step's tables (a pool by kind, in screen order): a
section heading stays a Static, a table a Grid, the bars a LogitBars, a row of heads a SideBySide;
only what the new step has more of is mounted, and what it has fewer of is hidden, not removed, so
that once every step has been seen a step change mounts nothing (a mount costs a restyle and a
layout pass of its own).

The presenter view (tinytui.tui.controllers.presenter_controller) shows one page at a time: a page is one row
of a section (a table, or the heads side by side) under its section's heading; show_page(None) shows them all.
"""

from __future__ import annotations

from textual.containers import Horizontal, ScrollableContainer, Vertical
from textual.widget import Widget
from textual.widgets import Static

from tinytui.present.backward_tables import pane_sections
from tinytui.present.cells import all_items
from tinytui.present.grid_spec import Item, LogitsSpec, Section
from tinytui.present.view import View, ViewPart
from tinytui.tui.widgets.grid.grid import Grid
from tinytui.tui.widgets.lean import KeptBackground, SettledSize
from tinytui.tui.widgets.logits_pane import LogitBars


class SideBySide(SettledSize, Horizontal):
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


class Heading(SettledSize, Static):
    """A section's title ("Step 9 makes"); kept across steps, laid out again only when its words change."""

    def __init__(self, title: str, **kwargs) -> None:
        super().__init__(title, **kwargs)
        self.title_text = title

    def say(self, title: str) -> None:
        if title != self.title_text:
            self.title_text = title
            self.update(title)


def make_widget(item: Item, role: str) -> Widget:
    if isinstance(item, LogitsSpec):
        return LogitBars(item, role=role)
    return Grid(item)


def _in_roles(widget: Widget, roles: tuple[str, ...]) -> bool:
    """Whether a pooled widget (a table, or a row of them) already carries these roles' classes."""
    parts = widget.children if isinstance(widget, SideBySide) else (widget,)
    return len(parts) == len(roles) and all(part.has_class(role) for part, role in zip(parts, roles))


def _role_of(item: Item, role: str) -> str:
    """The role class a widget showing item takes: a table's own (its spec says), the bars' section's."""
    return role if isinstance(item, LogitsSpec) else item.role


def _kind(item: Item) -> type[Widget]:
    return LogitBars if isinstance(item, LogitsSpec) else Grid


def _reuse(widget: Widget, item: Item, role: str) -> None:
    """Show another step's item in a widget already mounted (cursor back to the top left)."""
    if isinstance(widget, LogitBars):
        widget.reset(item, role)  # type: ignore[arg-type]
    else:
        widget.reset(item)  # type: ignore[attr-defined]


class StepPanes(KeptBackground, SettledSize, ViewPart, Vertical):
    DEFAULT_CSS = """
    /* as wide as the widest table, at least the view: #main then scrolls sideways instead of cutting */
    StepPanes { height: auto; width: auto; min-width: 100%; }
    StepPanes > .section { margin-top: 1; padding: 0 1; color: $foreground-muted; text-style: bold; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.signature: tuple = ()
        self.items: dict[str, Widget] = {}
        self.reused = 0  # widgets kept from the step before at the last step change (tests, benchmarks)
        self.page: int | None = None  # the presenter's page (None: every table, the usual view)
        self._pages: list[tuple[str, Heading, Widget | None]] = []  # (section title, its heading, a row)

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
        # what is mounted now, by kind, in screen order: the pool the new step takes from
        pool: dict[tuple, list[Widget]] = {}
        for child in self.children:
            pool.setdefault(self._slot_of(child), []).append(child)
        self.items = {}
        self.reused = 0
        wanted: list[Widget] = []
        self._pages = []
        for section in sections:
            heading = self._take(pool, ("section",))
            if heading is None:
                heading = Heading(section.title, classes="section")
            else:
                assert isinstance(heading, Heading)
                heading.say(section.title)
            wanted.append(heading)
            if not section.rows:
                self._pages.append((section.title, heading, None))
            for row in section.rows:
                slot = ("row", tuple(_kind(i) for i in row)) if len(row) > 1 else ("item", _kind(row[0]))
                widget = self._take(pool, slot, tuple(_role_of(i, section.role) for i in row))
                if widget is None:
                    made = [make_widget(item, section.role) for item in row]
                    widget = SideBySide(*made) if len(made) > 1 else made[0]
                    parts = made
                else:
                    parts = list(widget.children) if isinstance(widget, SideBySide) else [widget]
                    for part, item in zip(parts, row):
                        _reuse(part, item, section.role)
                    if isinstance(widget, SideBySide):
                        widget.call_after_refresh(widget._fit)
                for item, part in zip(row, parts):
                    self.items[item.key] = part
                wanted.append(widget)
                self._pages.append((section.title, heading, widget))
        for left in pool.values():
            for widget in left:
                widget.display = False  # kept for a later step; hidden widgets take no layout
        for widget in wanted:
            widget.display = True
        self._place(wanted)
        if self.page is not None:  # presenting: a new step opens on its first table
            self.show_page(0)
        if isinstance(self.parent, ScrollableContainer):  # a new step starts at its top
            self.parent.scroll_home(animate=False)
        if had_focus:
            first = next((w for w in self.items.values() if isinstance(w, Grid)), None)
            if first is not None and first.is_mounted:
                # a table kept from the pool takes the focus now, in this change's layout (the step
                # starts at its top, where the first table is): after the refresh, the focus moving
                # would set off a second layout (the footer's keys, the inspector)
                self.screen.set_focus(first, scroll_visible=False)  # now: the inspector reads it next
            elif first is not None:
                self.call_after_refresh(first.focus)

    def _take(self, pool: dict[tuple, list[Widget]], slot: tuple, roles: tuple = ()) -> Widget | None:
        """The next widget of the pool for this slot already in these roles, or None (one is made):
        a table changing its role class is restyled by Textual from scratch, and once every step was
        seen the pool holds as many of each kind and role as any step needs."""
        widgets = pool.get(slot)
        if not widgets:
            return None
        same = next((i for i, w in enumerate(widgets) if not roles or _in_roles(w, roles)), None)
        if same is None:
            return None
        self.reused += 1
        return widgets.pop(same)

    @staticmethod
    def _slot_of(widget: Widget) -> tuple:
        if isinstance(widget, SideBySide):
            return ("row", tuple(type(c) for c in widget.children))
        if isinstance(widget, Grid | LogitBars):
            return ("item", type(widget))
        return ("section",)

    def _place(self, wanted: list[Widget]) -> None:
        """Put the widgets in this order: the kept ones moved (if they must), the new ones mounted."""
        ids = {id(w) for w in wanted}
        for i, widget in enumerate(wanted):
            order = [c for c in self.children if id(c) in ids]
            before = wanted[i - 1] if i else None
            if widget.parent is self:
                if before is None and order[0] is not widget:
                    self.move_child(widget, before=order[0])
                elif before is not None and order.index(widget) != order.index(before) + 1:
                    self.move_child(widget, after=before)
            elif before is not None:
                self.mount(widget, after=before)
            elif order:
                self.mount(widget, before=order[0])
            else:
                self.mount(widget)

    # ---- the presenter's pages --------------------------------------------------------------------
    def page_count(self) -> int:
        return len(self._pages)

    def focused_page(self) -> int:
        """The page of the table that has the focus (0 when none of them has)."""
        focused = self.app.focused
        for i, (_, _, widget) in enumerate(self._pages):
            if (
                widget is not None
                and focused is not None
                and (focused is widget or widget in focused.ancestors)
            ):
                return i
        return 0

    def show_page(self, page: int | None) -> None:
        """Show one page (its heading says which of how many), or every table again (None)."""
        self.page = None if page is None else max(0, min(page, len(self._pages) - 1))
        if self.page is None or not self._pages:
            for title, heading, widget in self._pages:
                heading.say(title)
                heading.display = True
                if widget is not None:
                    widget.display = True
            return
        title, shown_heading, shown = self._pages[self.page]
        for _, heading, widget in self._pages:
            heading.display = heading is shown_heading
            if widget is not None:
                widget.display = widget is shown
        n = len(self._pages)
        more = " · n: the next" if self.page + 1 < n else " · n: the next step"
        shown_heading.say(f"{title} · table {self.page + 1} of {n}{more}")
        if isinstance(self.parent, ScrollableContainer):
            self.parent.scroll_home(animate=False)
        grid = shown if isinstance(shown, Grid) else next(iter(shown.query(Grid)), None) if shown else None
        if grid is not None:  # the arrows and the inspector work on the table on screen
            self.call_after_refresh(grid.focus, False)  # not scrolled to: the heading stays on screen

    def grids(self) -> list[Grid]:
        return [w for w in self.items.values() if isinstance(w, Grid)]

    def grid(self, key: str) -> Grid:
        widget = self.items[key]
        assert isinstance(widget, Grid)
        return widget
