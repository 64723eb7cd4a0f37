"""The watch pane: the prediction and one block's attention kept on screen whatever step is shown.

An edit at step 6 can then be watched reaching the prediction: the pane shows the top tokens and the
target as probability bars, each with a ghost of its value before the last change (the bar's lost part
drawn ░, and "was 0.3107" under it), and each head's attention as a small heatmap, one character per
cell, shaded on the theme's heat scale. What changed carries ▲ ▼ ◆ like every other table.

Under the loss, the logit lens: p(target) read off the stream at every point (present/lens_tables.py).
present/watch_data.py reads a View into plain data (watch_spec, which tests read directly), writes it as
the pane's lines of named pieces for the pane's width (watch_lines) and says what the pane shows in its
place while practising; WatchPane styles those lines and draws them on the Line API (TextLines,
text_lines.py): after an edit only the lines that differ are drawn again. The app hides the
pane until W (tinytui.tui.controllers.watch_controller) shows it; at 80 columns it takes the step list's
place, and a line too long for it breaks between its parts.
"""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text

from tinytui.present.lens_tables import LensLine, lens_lines
from tinytui.present.view import View, ViewPart
from tinytui.present.watch_data import (
    BAR,
    NARROW_BAR,
    Line,
    WatchSpec,
    hidden_lines,
    hidden_while_practising,
    watch_lines,
    watch_spec,
)
from tinytui.themes.scale import heat, readable_on
from tinytui.tui.widgets.text_lines import TextLines


class WatchPane(ViewPart, TextLines, can_focus=False):
    """The watch pane (W): the prediction's bars and the attention of the block shown (the first outside
    the blocks), redrawn on every change."""

    SCOPED_CSS = False  # the rules below also say where the pane goes in the app's layout
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "watch--header",
        "watch--muted",
        "watch--bar",
        "watch--ghost",
        "watch--target",
        "watch--predicted",
        "watch--up",
        "watch--down",
        "watch--changed",
    }
    DEFAULT_CSS = """
    WatchPane {
        display: none;
        width: 34;
        height: 100%;
        border-left: vkey $panel-lighten-2;
        padding: 0 0 0 1;
        scrollbar-size-vertical: 1;
        overflow-x: hidden;
        overflow-y: auto;
    }
    .-watching WatchPane { display: block; }
    /* at 80 columns the pane takes the step list's place (the step is still reached with n, p, 1–9) */
    .-narrow WatchPane { width: 28; }  /* the step keeps 52 columns: room for its first tables */
    .-narrow.-watching #sidebar { display: none; }
    WatchPane > .watch--header { color: $primary; text-style: bold; }
    WatchPane > .watch--muted { color: $foreground-muted; }
    WatchPane > .watch--bar { color: $primary; }
    WatchPane > .watch--ghost { color: $foreground-muted; }
    WatchPane > .watch--target { color: $tt-target; text-style: bold; }
    WatchPane > .watch--predicted { color: $tt-predicted; text-style: bold; }
    WatchPane > .watch--up { color: $tt-changed-up; text-style: bold; }
    WatchPane > .watch--down { color: $tt-changed-down; text-style: bold; }
    WatchPane > .watch--changed { text-style: bold underline; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.view: View | None = None
        self.spec: WatchSpec | None = None
        self.lens: tuple[LensLine, ...] = ()  # the logit lens, point by point (present/lens_tables.py)
        self._drawn: tuple | None = None

    def show(self, view: View) -> None:
        self.view = view
        if self.display:
            self.redraw()

    def on_show(self) -> None:
        self.redraw()

    def redraw(self) -> None:
        if self.view is None or not self.is_mounted:
            return
        self.spec = watch_spec(self.view)
        self.lens = lens_lines(self.view)
        bar = NARROW_BAR if self.app.has_class("-narrow") else BAR
        room, tall = self.content_region.width or 30, self.container_size.height
        hidden = hidden_while_practising(self.view)
        key = (self.spec, self.lens, bar, room, tall, self.app.theme, hidden)
        if key != self._drawn:
            self._drawn = key
            if hidden:
                self.set_text(self.styled(hidden_lines(hidden, room)))
                return
            target = self.view.trace.target
            lines = watch_lines(self.spec, self.lens, target, bar, room)
            if len(lines) > tall:  # taller than the pane: its scrollbar takes a column
                room -= self.styles.scrollbar_size_vertical
                lines = watch_lines(self.spec, self.lens, target, bar, room)
            self.set_text(self.styled(lines))

    def on_resize(self) -> None:
        self.redraw()

    # ---- drawing -------------------------------------------------------------------------------
    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"watch--{name}", partial=True) if name else Style()

    def styled(self, lines: tuple[Line, ...]) -> Text:
        """The lines present wrote (watch_data.watch_lines), in this pane's styles: a named piece in its
        component class's, a heatmap's cell on the theme's heat scale."""
        out = Text(no_wrap=True, overflow="ellipsis", end="")
        styles: dict[str, Style] = {}
        variables = self.app.theme_variables
        for n, line in enumerate(lines):
            if n:
                out.append("\n")
            for piece in line:
                if piece.heat is not None:
                    bg = heat(variables, piece.heat)
                    style = Style(
                        bgcolor=bg.rich_color, color=readable_on(bg).rich_color, bold=piece.bold or None
                    )
                else:
                    style = styles.get(piece.style)
                    if style is None:
                        style = styles[piece.style] = self._style(piece.style)
                out.append(piece.text, style)
        return out

    def text(self) -> str:
        """What the pane shows, as plain text, uncut (for tests)."""
        return self.plain
