"""The command palette's entries and the key bindings, both made from the one table of actions.

TinyTuiCommands lists what the app's palette_commands() offers now; binding_of makes an action's key
binding (its id is the action's, so a user's keymap can rebind it).
"""

from __future__ import annotations

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.markup import escape

from tinytui.tui.actions import ACTIONS, Action, PaletteCommand


class TinyTuiCommands(Provider):
    """The command palette's entries, all from the app's palette_commands()."""

    def _commands(self) -> list[PaletteCommand]:
        offered = getattr(self.app, "palette_commands", None)
        return list(offered()) if offered is not None else []

    async def discover(self) -> Hits:
        for c in self._commands():
            yield DiscoveryHit(escape(c.title), c.run, help=escape(c.help))  # E[id_p] is not markup

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for c in self._commands():
            if (score := matcher.match(c.title)) > 0:
                yield Hit(score, matcher.highlight(c.title), c.run, help=escape(c.help))


_GROUPS = {a.group: Binding.Group(a.group) for a in ACTIONS if a.group}


def binding_of(action: Action) -> Binding:
    group = _GROUPS.get(action.group)
    return Binding(
        action.keys, f"do('{action.id}')", action.footer, show=action.show, id=action.id,
        tooltip=action.help, group=group, priority=action.priority,
    )  # fmt: skip
