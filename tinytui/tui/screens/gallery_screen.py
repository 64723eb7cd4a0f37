"""The gallery: the run retold for a reader who is not technical, one key away from any step.

Each prompt position is a painting, a block is a day: artists (the heads) paint in the morning, a filter
(the FFN) in the evening, and the finished gallery predicts the next painting. Pages: the day in stages,
the artists' two rules, each head's circuits, the attribution of the answer, and the scale card. It is
redrawn from the View after every change (undo, c, the switches work here too), marks and all.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from tinytui.present.gallery_pages import PAGES
from tinytui.present.gallery_runs import ComparedWeights
from tinytui.present.view import View
from tinytui.tui.widgets.gallery.canvas import GalleryPanel
from tinytui.tui.widgets.status_bar import StatusBar

# The app's keys that change the run still work here (a modal screen hides the app's own bindings).
_PASSED = (
    ("u,ctrl+z", "undo", "Undo"),
    ("ctrl+r,ctrl+y", "redo", "Redo"),
    ("c", "compare", "Compare"),
    ("m", "toggle-mask", "Mask"),
    ("o", "toggle-pe", "PE"),
    ("l", "toggle-norm-kind", "Norm"),
    ("O", "toggle-positions", "Positions"),
    ("H", "cycle-heads", "Heads"),
    ("t", "cycle-theme", "Theme"),
    ("w", "save-screenshot", "Screenshot"),
)


class GalleryScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,v", "dismiss", "Back to the step", id="gallery-close"),
        Binding("n,right,space", "stage(1)", "Next stage", id="gallery-next"),
        Binding("p,left", "stage(-1)", "Prev stage", id="gallery-previous"),
        *(
            Binding(str(i), f"page('{key}')", title, show=False, id=f"gallery-page-{key}")
            for i, (key, title) in enumerate(PAGES, 1)
        ),
        Binding("tab", "page_step(1)", "Next page", id="gallery-next-page"),
        Binding("shift+tab", "page_step(-1)", "Previous page", show=False, id="gallery-previous-page"),
        *(Binding(keys, f"app.do('{action}')", label, show=False, id=f"gallery-{action}")
          for keys, action, label in _PASSED),
    ]  # fmt: skip
    DEFAULT_CSS = """
    GalleryScreen { align: center top; }
    GalleryScreen > #gallery-pages { height: 1; width: 100%; background: $panel; padding: 0 1; }
    GalleryScreen > GalleryPanel { border: round $secondary; background: $surface; }
    """

    def __init__(self, view: View, base_params: ComparedWeights) -> None:
        super().__init__()
        self.first_view = view
        self.base_params = base_params

    def compose(self) -> ComposeResult:
        yield StatusBar(id="gallery-status")
        yield Static(id="gallery-pages")
        panel = GalleryPanel(self.first_view, self.base_params, id="gallery-panel")
        panel.border_title = "The gallery — v or Esc returns to the step"
        yield panel
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(StatusBar).show(self.first_view)
        self.panel.focus()
        self._tabs()

    @property
    def panel(self) -> GalleryPanel:
        return self.query_one(GalleryPanel)

    def action_stage(self, delta: int) -> None:
        panel = self.panel
        moment = panel.stage + delta
        if panel.page != "day":  # the stages are the day's: n and p bring it back where it was
            moment = panel.stage
        elif not 0 <= moment < panel.n_stages:
            self.app.bell()
            return
        panel.choose("day", moment)
        self.panel.scroll_home(animate=False)
        self._tabs()

    def action_page(self, page: str) -> None:
        self.panel.choose(page)
        self.panel.scroll_home(animate=False)
        self._tabs()

    def action_page_step(self, delta: int) -> None:
        keys = [k for k, _ in PAGES]
        self.action_page(keys[(keys.index(self.panel.page) + delta) % len(keys)])

    def _tabs(self) -> None:
        line = Text(no_wrap=True, overflow="ellipsis")
        panel = self.panel
        for i, (key, title) in enumerate(PAGES, 1):
            if i > 1:
                line.append("  ")
            label = f" {i} {title} "
            if key == panel.page:
                line.append(f"▶{label}", "bold reverse")
            else:
                line.append(f" {label}")
        line.append("   (1–5 or Tab: pages)")
        self.query_one("#gallery-pages", Static).update(line)
