"""The status line (prediction, probability, loss, switches — always on screen) and the cell inspector.

Both lay out words present/ makes: the bar's pieces are tinytui.present.status_words', the inspector's
provenance tinytui.present.provenance_words'; here they are fitted to the rows and styled."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.cache import LRUCache
from textual.geometry import Region
from textual.strip import Strip
from textual.visual import Visual, visualize
from textual.widget import Widget

from tinytui.present.provenance_words import KEYS_HINT, Explained, inspector_text
from tinytui.present.status_words import status_lines
from tinytui.present.view import View, ViewPart
from tinytui.tui.widgets.looks import Look, ThemeStyles


def _pack(lines: list[list[Text]], width: int, rule_style) -> Text:
    """Each line of pieces on one row of this width, so the bar keeps its height at any width and after
    any change: a piece that does not fit what is left of its row goes on to the next row, before that
    row's last piece (the edited count and undo beside the switches, ahead of the ▲▼ legend), and is left
    out when it fits there neither; a row's first piece alone too long is cut with "…". The first row's
    pieces never move (the prompt is in the tokens' table)."""
    out = Text(end="")
    spill: list[Text] = []
    for n, pieces in enumerate(lines):
        if n:
            out.append("\n")
        if spill and pieces:
            pieces = [*pieces[:-1], *spill, pieces[-1]]
        spill = []
        used = 0
        for piece in pieces:
            room = width - used - (len(RULE) if used else 0)
            if piece.cell_len <= room:
                if used:
                    out.append(RULE, rule_style)
                    used += len(RULE)
                out.append_text(piece)
                used += piece.cell_len
            elif not used:
                cut = piece.copy()
                cut.truncate(width, overflow="ellipsis")
                out.append_text(cut)
                used = width
            elif n:
                spill.append(piece)
    return out


ROWS = 3  # the bar's height at every width (_pack): the step, the prediction and loss, the switches
RULE = "  │  "  # between two pieces of a line
PROMPT_KEPT = 24  # the prompt is cut to fit beside the step's name only while this much of it is left


def _fit_first(pieces: list[Text], width: int) -> list[Text]:
    """The step's name and the prompt on one line: a prompt too long to fit beside the name loses its
    first tokens ("… fox runs in the forest at → target night"), so the bar keeps its height from step
    to step; the whole prompt is in the tokens' table."""
    where, prompt = pieces
    room = width - len(where) - len(RULE)
    if len(prompt) <= room or room < PROMPT_KEPT:
        return pieces
    at = prompt.plain.find(" ", len(prompt) - room + 1)  # a whole token goes, never part of one
    if at < 0:
        return pieces
    return [where, Text("…").append_text(prompt[at:])]


def _says(view: View) -> tuple:
    """What the bar's words (present/status_words) read of a view: two views alike in it are worded
    alike. The runs by identity (the cache compares the view it keeps, so an id is not reused)."""
    edited = sum(len(cells) for cells in view.edited.values())
    return (
        id(view.trace), id(view.base), view.changed, view.here, view.mode, view.practice is None,
        view.curve, edited, view.undo, view.switches, view.lr, view.notes, view.compare_to_original,
    )  # fmt: skip


class StatusBar(ViewPart, Widget):
    """Where the run stands: step, prompt, prediction and loss (old → new after a change), switches."""

    view: View | None = None
    DEFAULT_CSS = """
    StatusBar { height: 3; width: 100%; background: $panel; padding: 0 1; }
    """
    # the words' styles by the names status_words gives them (widgets/looks.py)
    LOOKS: ClassVar[Mapping[str, Look]] = MappingProxyType(
        {
            "key": Look("accent", text_style="bold"),
            "muted": Look("foreground-muted"),
            "step": Look("primary", text_style="bold"),
        }
    )

    @property
    def text(self) -> str:
        """What the bar says, unwrapped (tests and transcripts): made when asked, not on every change."""
        return self.describe(self.view).plain if self.view is not None else ""

    def show(self, view: View) -> None:
        width = self.content_size.width
        first = self.view is None
        self.view = view
        if first:
            self.refresh()
            return
        for y in range(ROWS):  # only the lines that say something else (a step: the first)
            if self._drawn.get(y) != self._shows(y, width):
                self.refresh(Region(0, y, self.size.width, 1))

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.looks = ThemeStyles(self.LOOKS)
        self._drawn: dict[int, tuple] = {}  # line y -> what it was last drawn from
        # each line by what it says: b and Esc, a step and the next, go back and forth between a few
        self._strips: LRUCache[tuple[int, tuple], Strip] = LRUCache(4 * ROWS)
        self._split: tuple[Text | None, list[Text]] = (None, [])  # describe's text, as its lines

    def render_line(self, y: int) -> Strip:
        """Line y of the bar, drawn again only when its words or their styles changed."""
        width = self.content_size.width
        key = self._shows(y, width)
        self._drawn[y] = key
        strip = self._strips.get((y, key))
        if strip is not None:
            return strip
        lines = self._lines(width)
        if y < len(lines):  # the cells Visual.to_strips would draw, at about a fifth of its cost
            line = lines[y]
            segments = list(line.render(self.app.console))
            strip = Strip(segments, line.cell_len).crop(0, width).apply_style(self.visual_style.rich_style)
        else:
            strip = Strip.blank(width, self.visual_style.rich_style)
        self._strips[(y, key)] = strip
        return strip

    def _lines(self, width: int) -> list[Text]:
        if self.view is None:
            return []
        text = self._described_text(self.view, width)
        if self._split[0] is not text:
            self._split = (text, list(text.split("\n")))
        return self._split[1]

    def _shows(self, y: int, width: int) -> tuple:
        """What line y is drawn from: when it is the same, the line drawn last time stands."""
        lines = self._lines(width)
        line = lines[y] if y < len(lines) else None
        said = None if line is None else (line.plain, tuple(line.spans))
        return said, width, self.app.theme

    # the texts of the last few views by what they say (_says), each by width: b and Esc, a step and
    # back, say what was said before
    _described: LRUCache[tuple, tuple[View, dict[int, Text]]] | None = None

    def describe(self, view: View, width: int = 0) -> Text:
        """Lines of pieces; a piece never breaks, so a narrow terminal gets more lines, not broken words.
        (Asked for the text, the height and the drawing, at two widths, and made once for each.)"""
        return self._described_text(view, width).copy()

    def _described_text(self, view: View, width: int) -> Text:
        """describe's text as kept (not to be changed: describe gives a copy)."""
        if self._described is None:
            self._described = LRUCache(4)
        key = (_says(view), self.app.theme)
        kept = self._described.get(key)
        if kept is None or kept[0].trace is not view.trace or kept[0].base is not view.base:
            kept = self._described[key] = (view, {})
        text = kept[1].get(width)
        if text is None:
            muted = self._style("muted")
            lines = self.lines(view)
            if width > 0:
                lines[0] = _fit_first(lines[0], width)
            text = kept[1][width] = _pack(lines, width if width > 0 else 10_000, muted)
        return text

    def lines(self, view: View) -> list[list[Text]]:
        """The bar's lines of pieces (present/status_words), in this widget's styles."""
        return status_lines(view, self._semantic)

    def _semantic(self, name: str) -> Style:
        """A style the words name ("step", "key", "muted"): the bar's look of that name."""
        return self._style(name)

    def _style(self, name: str) -> Style:
        return self.looks.style(name, self.app.theme, self.app.theme_variables)


class Inspector(Widget):
    """The cell under the cursor: why it has its value (the formula, the operands' numbers, the result),
    its old value and Δ after a change, and what f follows. While the cursor is on a table it has 3 lines
    (2 on a small screen) whatever the cell says: the tables above keep their place as the cursor moves
    (and nothing is laid out again); with no cell to explain, one line of keys.

    Its words are wrapped and drawn as a Static would draw them (Visual.to_strips), kept by what they say
    (b, Esc and the arrows go back and forth between a few cells), and only its lines that say something
    else are drawn again."""

    DEFAULT_CSS = """
    Inspector { height: 1; background: $panel; color: $foreground; padding: 0 1; }
    """

    HINT = KEYS_HINT  # what it says with no cell to explain

    detail: str | None = None
    why: Explained | None = None
    hint = ""

    def __init__(self, text: str = HINT, **kwargs) -> None:
        super().__init__(**kwargs)
        self.text = text
        self._texts: dict[tuple, tuple[Explained | None, str]] = {}  # what was shown -> its words
        self._strips: LRUCache[tuple, list[Strip]] = LRUCache(16)  # (words, size, style) -> its lines

    def render(self) -> Text:
        return Text(self.text)

    def describe(self, detail: str | None, why: Explained | None = None, hint: str = "") -> None:
        """Show a cell: its own line (detail), and with a Why its provenance; hint says what f does."""
        self.detail, self.why, self.hint = detail, why, hint
        self._show()

    def on_resize(self) -> None:
        self._show()

    def lines_allowed(self) -> int:
        width, height = self.app.size
        return 3 if width >= 100 and height >= 30 else 2

    def _show(self) -> None:
        lines = self.lines_allowed()
        height = lines if self.detail or self.why is not None else 1
        now = self.styles.height.value if self.styles.height is not None else None
        if height != now:
            self.styles.height = height  # a layout: the tables' view is shorter or taller
            if now is not None and height > now:  # keep the cursor's cell in the shorter view
                self.call_after_refresh(self._keep_cursor_in_view)
        width = self.content_size.width or max(self.app.size.width - 2, 20)
        # b, Esc and the arrows go back and forth between a few cells: each one's words made once
        key = (self.detail, id(self.why), self.hint, width, lines)
        kept = self._texts.get(key)
        if kept is None or kept[0] is not self.why:
            if len(self._texts) >= 16:
                self._texts.clear()
            words = inspector_text(self.detail, self.why, self.hint, width, lines)
            kept = self._texts[key] = (self.why, words)
        text = kept[1]
        if text == self.text:
            return
        old, self.text = self.text, text
        if self.size.height != height:  # not laid out at this height yet: every line is drawn anew
            self.refresh()
            return
        for y in range(height):
            if self._line(old, y) != self._line(text, y):
                self.refresh(Region(0, y, self.size.width, 1))

    def _lines(self, text: str) -> list[Strip]:
        """The words' lines at the widget's size, as a Static of this text draws them."""
        width, height = self.size
        style = self.visual_style
        key = (text, width, height, style)
        strips = self._strips.get(key)
        if strips is None:
            strips = Visual.to_strips(self, visualize(self, Text(text)), width, height, style)
            self._strips[key] = strips
        return strips

    def _line(self, text: str, y: int) -> Strip:
        strips = self._lines(text)
        return strips[y] if y < len(strips) else Strip.blank(self.size.width, self.visual_style.rich_style)

    def render_line(self, y: int) -> Strip:
        return self._line(self.text, y)

    def _keep_cursor_in_view(self) -> None:
        scroll = getattr(self.app.focused, "scroll_to_cursor", None)
        if scroll is not None:
            scroll()
