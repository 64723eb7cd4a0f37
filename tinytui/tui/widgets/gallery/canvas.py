"""The gallery's one drawing widget: the page chosen (and the day's stage) as lines of text, redrawn from
the View.

The pages come laid out from tinytui.present.gallery_pages; this widget picks one for its width, inks it
(drawing.py) and draws it again after every change, a new theme or a new window size. It draws on the
Line API (TextLines, text_lines.py) and scrolls itself: a change redraws only the lines that differ.
"""

from __future__ import annotations

from tinytui.present.gallery_pages import PAGES, gallery_page, n_stages
from tinytui.present.gallery_runs import ComparedWeights
from tinytui.present.view import View, ViewPart
from tinytui.tui.widgets.gallery.drawing import Ink, drawn
from tinytui.tui.widgets.text_lines import TextLines


class GalleryPanel(ViewPart, TextLines, can_focus=True):
    """The page shown; the arrows, PageUp/PageDown, Home and End scroll it."""

    DEFAULT_CSS = "GalleryPanel { width: 100%; height: 1fr; padding: 0 0 0 1; }"

    def __init__(self, view: View, base_params: ComparedWeights, **kwargs) -> None:
        super().__init__(**kwargs)
        self.view = view
        self.base_params = base_params  # the weights of the run the marks compare with
        self.page = PAGES[0][0]
        self.stage = 0

    @property
    def text(self) -> str:
        """What is drawn, as plain text, unscrolled (tests read it)."""
        return self.plain

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.redraw())
        self.redraw()

    def on_resize(self) -> None:
        self.redraw()

    def show(self, view: View) -> None:
        self.view = view
        self.redraw()

    @property
    def n_stages(self) -> int:
        return n_stages(self.view)

    def choose(self, page: str | None = None, stage: int | None = None) -> None:
        if page is not None:
            self.page = page
        if stage is not None:
            self.stage = max(0, min(stage, self.n_stages - 1))
        self.redraw()

    def redraw(self) -> None:
        if not self.is_mounted:
            return
        self.stage = max(0, min(self.stage, self.n_stages - 1))
        width = max(40, self.app.size.width - 6)  # tables take it all; prose wraps at PROSE (gallery_lines)
        lines = gallery_page(self.view, self.base_params, self.page, self.stage, width)
        self.set_text(drawn(lines, Ink(self.app.theme_variables)))
