"""The parameter browser: one weight matrix from any step, editable in place, with the status line above."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from tinytui.model.backward import grad_name
from tinytui.model.names import canonical, label
from tinytui.widgets.backward import gradient_grid
from tinytui.widgets.cells import param_grid
from tinytui.widgets.grid import Grid
from tinytui.widgets.status import Inspector, StatusBar
from tinytui.widgets.view import View, ViewPart


class ParamScreen(ViewPart, ModalScreen[None]):
    # A modal screen hides the app's keys, so the ones that make sense here are repeated.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close", id="params-close"),
        Binding("u,ctrl+z", "app.do('undo')", "Undo", id="params-undo"),
        Binding("ctrl+r,ctrl+y", "app.do('redo')", "Redo", id="params-redo"),
        Binding("c", "app.do('compare')", "Compare", id="params-compare"),
        Binding("d", "app.do('gradient-overlay')", "∂L/∂w", id="params-gradients"),
    ]
    DEFAULT_CSS = """
    ParamScreen { align: center top; }
    ParamScreen > VerticalScroll {
        width: 100%; height: 1fr; border: round $secondary; background: $surface; overflow-x: auto;
    }
    ParamScreen .hint { color: $foreground-muted; padding: 0 1; }
    """

    def __init__(self, name: str, view: View) -> None:
        super().__init__()
        self.param = name
        self.first_view = view

    def compose(self) -> ComposeResult:
        yield StatusBar(id="params-status")
        with VerticalScroll() as box:
            shown = label(canonical(self.param), self.first_view.trace.cfg.n_blocks)
            box.border_title = f"Parameter {shown} — Esc returns to the step"
            yield Static(
                "Arrows move · Enter or e edits (Enter commits, Esc cancels) · u undoes, ctrl+r redoes · "
                "everything downstream recomputes at once",
                classes="hint",
            )
            yield Grid(param_grid(self.first_view, self.param))
            yield Grid(self._gradient(self.first_view), id="params-gradient")  # d shows it
        yield Inspector(id="params-inspector")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(StatusBar).show(self.first_view)
        self.query_one(Grid).focus()
        self.query_one("#params-gradient").display = self.first_view.mode.gradients

    def show(self, view: View) -> None:
        self.query_one(Grid).set_spec(param_grid(view, self.param))
        gradient = self.query_one("#params-gradient", Grid)
        gradient.set_spec(self._gradient(view))
        gradient.display = view.mode.gradients

    def _gradient(self, view: View):
        return gradient_grid(view, grad_name(canonical(self.param)), "param")
