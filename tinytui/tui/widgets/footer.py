"""The footer: one line of the keys that apply now, fitted to the width, on Textual's public API.

Textual's Footer mounts a widget per key and lets the last ones run off a narrow screen (at 60 columns
it showed `^p palettep` and no n or p). This footer is one widget that draws one line: it reads the
screen's active bindings (those marked show, once per action, as Textual's Footer does) and keeps, in
this order, what must stay: stepping (n, p and what takes their keys: the presenter's tables, a replay's
next event), then ? Help and q Quit, then the palette's ^p, then the other keys left to right, those
that give way to a mode's key (Action.yields) after them, the keys only a wide screen has room for
(tinytui.tui.actions.Action.narrow) last. It is spaced as Textual's
Footer when all of that fits, tighter when not. A click on a key presses it; the pointer over a key shows
what it does."""

from __future__ import annotations

from contextlib import nullcontext
from typing import ClassVar, NamedTuple

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.screen import Screen
from textual.strip import Strip
from textual.visual import Visual, visualize
from textual.widget import Widget

from tinytui.tui.actions import ACTION_BY_ID, ACTIONS

STEPPING = frozenset(
    f"do('{a.id}')" for a in ACTIONS if a.id in ("next-event", "presenter-next", "presenter-previous")
) | frozenset({"do('next-step')", "do('previous-step')"})
ALWAYS = frozenset({"do('help')", "do('quit')"})
WIDE_ONLY = frozenset(f"do('{a.id}')" for a in ACTIONS if a.show and not a.narrow)
YIELDING = frozenset(f"do('{a.id}')" for a in ACTIONS if a.show and a.yields)
RULE = "▏"  # before the palette's key, as Textual's Footer draws it
DIM = Style(dim=True)  # a key shown that does not apply now


# a NamedTuple: made as the app starts, and its class costs a sixth of a frozen dataclass's (which
# compiles five methods from source); equal and hashable by value all the same
class FooterItem(NamedTuple):
    """One key the footer can show."""

    key: str  # the key to press ("question_mark")
    shown_key: str  # as drawn ("?")
    description: str  # "Help"
    action: str  # "do('help')"
    enabled: bool
    tooltip: str

    def width(self, wide: bool) -> int:
        # wide: " n Next " as Textual's Footer spaces it; tight: "n Next" and one space after
        return len(self.shown_key) + len(self.description) + (3 if wide else 2)


def rank(item: FooterItem, index: int) -> tuple[int, int]:
    """The order keys are kept in when the line is short (smaller first); index breaks ties so the keys
    on the left stay."""
    if item.action in STEPPING:
        return (0, index)
    if item.action in ALWAYS:
        return (1, index)
    if item.action in WIDE_ONLY:
        return (4, index)
    if item.action in YIELDING:  # after the wide-only keys, before the others (Action.yields)
        return (3, len(ACTIONS) + index)
    return (3, index)


PALETTE_RANK = (2, 0)


def fit(
    items: list[FooterItem], palette: FooterItem | None, width: int
) -> tuple[list[FooterItem], FooterItem | None, bool]:
    """The keys that fit in width, in their order, the palette's key if it fits, and whether the wide
    spacing fits them all."""
    if _width(items, palette, wide=True) <= width:
        return list(items), palette, True
    kept, shown_palette = list(items), palette
    ranked: list[tuple[tuple[int, int], FooterItem]] = [(rank(it, i), it) for i, it in enumerate(items)]
    if palette is not None:
        ranked.append((PALETTE_RANK, palette))
    for _, item in sorted(ranked, key=lambda pair: pair[0], reverse=True):  # the least needed first
        if _width(kept, shown_palette, wide=False) <= width:
            break
        if item is palette:
            shown_palette = None
        else:
            kept.remove(item)
    return kept, shown_palette, False


def _width(items: list[FooterItem], palette: FooterItem | None, wide: bool) -> int:
    total = sum(item.width(wide) for item in items)
    if palette is not None:
        total += len(RULE) + palette.width(False)
    return total


class TinyFooter(Widget, can_focus=False):
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "tiny-footer--key",
        "tiny-footer--description",
        "tiny-footer--rule",
    }
    DEFAULT_CSS = """
    TinyFooter {
        dock: bottom;
        height: 1;
        width: 1fr;
        color: $footer-foreground;
        background: $footer-background;
        & > .tiny-footer--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        & > .tiny-footer--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        & > .tiny-footer--rule { color: $foreground 20%; }
        &:hover { pointer: pointer; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._items: tuple[list[FooterItem], FooterItem | None] = ([], None)
        self._spans: list[tuple[int, int, FooterItem]] = []  # (x0, x1, key) as last drawn
        # the line by what it shows (the keys, the width, the theme): b and Esc, or a step that turns
        # keys on and off, go back and forth between a few lines, each drawn once
        self._lines: dict[tuple, tuple[Strip, list[tuple[int, int, FooterItem]]]] = {}
        self._shown_keys: dict[tuple[str, str | None], str] = {}  # (key, key_display) -> as drawn
        # the bindings are read as the line is first drawn: as the app starts they change three times
        # more (the screen shown, the step list focused), each a read of some 110 bindings for nothing
        self._unread = True

    # ---- what is shown -------------------------------------------------------------------------
    def on_mount(self) -> None:
        # within the change that moved the bindings, not a message later: the footer is drawn with it
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed, immediate=True)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen) -> None:
        if screen is not self.screen or self._unread:  # not drawn yet: read when it is
            return
        items = self.read(screen)
        if items != self._items:
            self._items = items
            self.refresh()

    def read(self, screen: Screen) -> tuple[list[FooterItem], FooterItem | None]:
        """The keys marked show that apply now, once per action, and the palette's key."""
        app = self.app
        items: list[FooterItem] = []
        actions: set[str] = set()
        palette = None
        checking = getattr(app, "checking_bindings", None)  # TinyTuiApp's: each check worked out once
        with checking() if checking is not None else nullcontext():
            active_bindings = screen.active_bindings
        for active in active_bindings.values():
            binding = active.binding
            if binding.key == app.COMMAND_PALETTE_BINDING and app.ENABLE_COMMAND_PALETTE:
                palette = FooterItem(
                    binding.key,
                    self._shown_key(binding),
                    binding.description,
                    binding.action,
                    active.enabled,
                    binding.tooltip or binding.description,
                )
                continue
            if not binding.show or binding.action in actions:
                continue
            actions.add(binding.action)
            items.append(
                FooterItem(
                    binding.key,
                    self._shown_key(binding),
                    binding.description,
                    binding.action,
                    active.enabled,
                    active.tooltip or binding.tooltip or _help(binding.action),
                )
            )
        return items, palette

    def _shown_key(self, binding: Binding) -> str:
        """The key as the app draws it ("?" for question_mark), asked of the app once per key."""
        key = (binding.key, binding.key_display)
        shown = self._shown_keys.get(key)
        if shown is None:
            if len(self._shown_keys) >= 256:
                self._shown_keys.clear()
            shown = self._shown_keys[key] = self.app.get_key_display(binding)
        return shown

    def _current(self) -> tuple[list[FooterItem], FooterItem | None]:
        """The keys to draw: read now if they have not been since the footer was mounted."""
        if self._unread and self.is_mounted:
            self._unread = False
            self._items = self.read(self.screen)
        return self._items

    def shown(self) -> list[FooterItem]:
        """The keys drawn now, left to right, the palette's last."""
        items, palette = self._current()
        kept, palette, _ = fit(items, palette, self.size.width or 10_000)
        return [*kept, *([palette] if palette else [])]

    def labels(self) -> list[str]:
        """The words drawn now, left to right ("Next", …, "Help", "Quit", "palette")."""
        return [item.description for item in self.shown()]

    def text(self) -> str:
        """The line drawn now, as plain text."""
        return self.render().plain

    # ---- drawing -------------------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        width = self.size.width
        items, palette = self._current()
        key = (tuple(items), palette, width, self.app.theme)
        kept = self._lines.get(key)
        if kept is None:
            line = self.render()  # sets _spans, where each key is drawn
            strip = Visual.to_strips(self, visualize(self, line), width, 1, self.visual_style)[0]
            if len(self._lines) >= 32:
                self._lines.clear()
            kept = self._lines[key] = (strip, self._spans)
        self._spans = kept[1]
        return kept[0]

    def render(self) -> Text:
        items, palette = self._current()
        width = self.size.width
        kept, palette, wide = fit(items, palette, width)
        key_style = self.get_component_rich_style("tiny-footer--key")
        words_style = self.get_component_rich_style("tiny-footer--description")
        line = Text(no_wrap=True, overflow="crop", end="")
        spans: list[tuple[int, int, FooterItem]] = []

        def put(item: FooterItem, wide: bool) -> None:
            x0 = line.cell_len
            dim = Style() if item.enabled else DIM
            key = f" {item.shown_key} " if wide else item.shown_key
            words = f"{item.description} " if wide else f" {item.description}"
            line.append(key, key_style + dim)
            line.append(words, words_style + dim)
            if not wide:
                line.append(" ")  # the gap between keys, in the footer's own colours
            spans.append((x0, line.cell_len, item))

        for item in kept:
            put(item, wide)
        if palette is not None:  # at the right end, spaced tight at any width (as Textual's Footer has it)
            right = len(RULE) + palette.width(False)
            line.append(" " * max(0, width - line.cell_len - right))
            line.append(RULE, self.get_component_rich_style("tiny-footer--rule"))
            put(palette, False)
        self._spans = spans
        return line

    def on_click(self, event: events.Click) -> None:
        item = self._at(event.x)
        if item is None:
            return
        if item.enabled:
            self.app.simulate_key(item.key)
        else:
            self.app.bell()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        item = self._at(event.x)
        self.tooltip = item.tooltip if item is not None else None

    def _at(self, x: int) -> FooterItem | None:
        return next((item for x0, x1, item in self._spans if x0 <= x < x1), None)


def _help(action: str) -> str:
    """The action's sentence, for a binding that has no tooltip of its own."""
    name = action.removeprefix("do('").removesuffix("')")
    found = ACTION_BY_ID.get(name)
    return found.help if found else ""
