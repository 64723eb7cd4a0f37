"""The command palette's entries and the key bindings, both made from the one table of actions.

TinyTuiCommands lists what the app's palette_commands() offers, made once when the palette opens (the
palette is modal: nothing it lists changes while it is open), and matches a query against the titles
in one pass over each title: the query's letters in order, as a run where the title has them as one.
Textual's own matcher tries every way the letters could be placed, which grows with the query (80–92 ms
a typed character, 70 s for 800); a query longer than MAX_QUERY matches nothing, at once. binding_of
makes an action's key binding (its id is the action's, so a user's keymap can rebind it). Palette is
Textual's palette with a search glyph every terminal and browser font has. AppThemes is what the
palette's Theme entry lists: tinytui's own themes, those t goes through, not Textual's built-ins.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual.binding import Binding
from textual.command import CommandPalette, DiscoveryHit, Hit, Hits, Provider, SearchIcon
from textual.content import Content
from textual.fuzzy import FuzzySearch
from textual.markup import escape
from textual.style import Style

from tinytui import themes
from tinytui.tui.actions import ACTIONS, Action, PaletteCommand

MAX_QUERY = 120  # characters: longer than any title the palette lists
_SCORE = FuzzySearch()  # only its score(), so hits rank as Textual's own providers' do
_MATCH_STYLE = Style(reverse=True)  # Textual's own, when the palette names none


# Textual's search icon is an emoji (U+1F50E), a missing-glyph box in a browser font without emoji
# (tinytui serve: the page loads no web font) and in some terminals' fonts; ">" is in every font.
SEARCH_GLYPH = ">"


class Palette(CommandPalette):
    """Textual's command palette, its search icon drawn with SEARCH_GLYPH."""

    def on_mount(self) -> None:
        for icon in self.query(SearchIcon):
            icon.icon = SEARCH_GLYPH


def match(query: str, title: str) -> tuple[float, Sequence[int]] | None:
    """(score, the positions of the query's letters in title) or None: case-insensitive, in one pass."""
    q, t = query.lower(), title.lower()
    if len(t) != len(title):  # a letter whose lower case is longer ('İ'): positions must stay the title's
        q, t = query, title
    if not q or len(q) > len(t):
        return None
    at = t.find(q)
    if at >= 0:
        positions: Sequence[int] = range(at, at + len(q))
        return _SCORE.score(t, positions) * (2.0 if q == t else 1.5), positions
    found, start = [], 0
    for letter in q:
        start = t.find(letter, start) + 1
        if not start:
            return None
        found.append(start - 1)
    return _SCORE.score(t, found), found


class TinyTuiCommands(Provider):
    """The command palette's entries, all from the app's palette_commands()."""

    _offered: list[PaletteCommand] | None = None

    def _commands(self) -> list[PaletteCommand]:
        if self._offered is None:  # once a palette: a key typed costs the match alone
            offered = getattr(self.app, "palette_commands", None)
            self._offered = list(offered()) if offered is not None else []
        return self._offered

    async def discover(self) -> Hits:
        for c in self._commands():
            yield DiscoveryHit(escape(c.title), c.run, help=escape(c.help))  # E[id_p] is not markup

    async def search(self, query: str) -> Hits:
        if len(query) > MAX_QUERY:
            return
        style = self.match_style or _MATCH_STYLE
        for c in self._commands():
            if (found := match(query, c.title)) is not None:
                score, positions = found
                shown = Content(c.title)
                for i in positions:
                    if not c.title[i].isspace():
                        shown = shown.stylize(style, i, i + 1)
                yield Hit(score, shown, c.run, text=c.title, help=escape(c.help))


IN_USE = "  (in use)"  # after the theme the app shows now


class AppThemes(Provider):
    """The palette's Theme entry: tinytui's themes in the order t goes through them, the one in use
    marked. Choosing one sets it as t does (the app remembers a theme it is set to)."""

    def _choose(self, name: str) -> Callable[[], None]:
        def choose() -> None:
            self.app.theme = name

        return choose

    def _shown(self, name: str, positions: Sequence[int] = ()) -> Content:
        shown = Content(name)
        style = self.match_style or _MATCH_STYLE
        for i in positions:
            shown = shown.stylize(style, i, i + 1)
        return shown + Content.styled(IN_USE, "dim") if name == self.app.theme else shown

    async def discover(self) -> Hits:
        for name in themes.THEMES:
            yield DiscoveryHit(self._shown(name), self._choose(name), text=name)

    async def search(self, query: str) -> Hits:
        if len(query) > MAX_QUERY:
            return
        for name in themes.THEMES:
            if (found := match(query, name)) is not None:
                score, positions = found
                yield Hit(score, self._shown(name, positions), self._choose(name), text=name)


_GROUPS = {a.group: Binding.Group(a.group) for a in ACTIONS if a.group}


def binding_of(action: Action) -> Binding:
    group = _GROUPS.get(action.group)
    return Binding(
        action.keys, f"do('{action.id}')", action.footer, show=action.show, id=action.id,
        tooltip=action.help, group=group, priority=action.priority,
    )  # fmt: skip
