"""The parameter browser: one weight matrix from any step, editable in place, with the status line above.

A big weight (windows.py) is shown a page at a time: J K move the rows a page down or up, H L the
columns right or left, so every cell of it can be reached and edited."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from tinytui.present.grid_spec import Section
from tinytui.present.param_page import browser_sections, browser_title, first_page
from tinytui.present.view import View, ViewPart
from tinytui.tui.widgets.status_bar import Inspector, StatusBar
from tinytui.tui.widgets.step_view import StepView


class ParamScreen(ViewPart, ModalScreen[None]):
    # A modal screen hides the app's keys, so the ones that make sense here are repeated.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close", id="params-close"),
        Binding("u,ctrl+z", "app.do('undo')", "Undo", id="params-undo"),
        Binding("ctrl+r,ctrl+y", "app.do('redo')", "Redo", id="params-redo"),
        Binding("c", "app.do('compare')", "Compare", id="params-compare"),
        Binding("d", "app.do('gradient-overlay')", "∂L/∂w", id="params-gradients"),
        # a big weight's pages (check_action hides the keys of an axis that fits whole)
        Binding("J,shift+down", "pan(1, 0)", "Rows ↓", id="params-rows-down"),
        Binding("K,shift+up", "pan(-1, 0)", "Rows ↑", id="params-rows-up"),
        Binding("L,shift+right", "pan(0, 1)", "Cols →", id="params-columns-right"),
        Binding("H,shift+left", "pan(0, -1)", "Cols ←", id="params-columns-left"),
    ]
    DEFAULT_CSS = """
    ParamScreen { align: center top; }
    ParamScreen > Vertical {
        width: 100%; height: 1fr; border: round $secondary; background: $surface;
    }
    ParamScreen .hint { color: $foreground-muted; padding: 0 1; }
    """

    def __init__(self, name: str, view: View) -> None:
        super().__init__()
        self.param = name
        self.first_view = view
        self.window = first_page(view, name)  # the page shown; None: all of it

    def compose(self) -> ComposeResult:
        yield StatusBar(id="params-status")
        with Vertical() as box:
            box.border_title = f"{browser_title(self.first_view, self.param)} — Esc returns to the step"
            pages = " · J K: rows a page down/up, H L: columns right/left" if self.window else ""
            yield Static(
                "Arrows move · Enter or e edits (Enter commits, Esc cancels) · u undoes, ctrl+r redoes · "
                f"everything downstream recomputes at once{pages}",
                classes="hint",
            )
            yield StepView(sections_of=self.sections, id="params-view")
        yield Inspector(id="params-inspector")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(StatusBar).show(self.first_view)
        tables = self.query_one(StepView)
        tables.show(self.first_view)
        tables.focus()

    def sections(self, view: View) -> list[Section]:
        return browser_sections(view, self.param, self.window)

    def show(self, view: View) -> None:
        """The step view inside redraws itself (a ViewPart too); nothing else here changes."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action != "pan":
            return True
        win, (d_rows, _) = self.window, parameters
        if win is None:
            return False
        return len(win.rows) < win.n_rows if d_rows else len(win.cols) < win.n_cols

    def action_pan(self, d_rows: int, d_cols: int) -> None:
        """The next page of the weight that way; at its edge, a bell and where the edge is."""
        win = self.window
        if win is None or not self.check_action("pan", (d_rows, d_cols)):
            return
        if win.at_edge(d_rows, d_cols):
            self.app.bell()
            self.notify(win.edge_note(d_rows, d_cols), timeout=2)
            return
        self.window = win.page(d_rows, d_cols)
        self.query_one(StepView).show(self.app.view())  # type: ignore[attr-defined]
        self.app.inspect()  # type: ignore[attr-defined]  # the cursor is on another weight's cell now
