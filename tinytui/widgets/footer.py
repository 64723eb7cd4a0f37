"""The footer: Textual's, less the keys that only fit a wide screen.

At 80 columns the footer must still end with ? Help and q Quit, so an action that is shown only when it
applies and is said elsewhere on a narrow screen (f and F: the inspector's line names them; the
presenter's n and p: the table's heading does) is left out of the compact footer
(tinytui.actions.Action.narrow)."""

from __future__ import annotations

from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from tinytui.actions import ACTIONS

WIDE_ONLY = frozenset(f"do('{a.id}')" for a in ACTIONS if a.show and not a.narrow)


class TinyFooter(Footer):
    _composed: tuple | None = None  # what the keys shown were made from (see bindings_changed)

    def _signature(self) -> tuple:
        shown = tuple(
            (b.key, b.description, b.action, enabled, tooltip, b.group.description if b.group else None)
            for (_, b, enabled, tooltip) in self.screen.active_bindings.values()
            if b.show
        )
        return shown, self.compact, self.show_command_palette

    def bindings_changed(self, screen) -> None:
        # Textual builds every key of the footer again whenever any widget refreshes its bindings (each
        # edit, each cursor move onto a computed cell): a fifth of an edit's time. Only when what the
        # footer shows changed is it built again.
        if self._composed is not None and screen is self.screen and self._signature() == self._composed:
            return
        super().bindings_changed(screen)

    def compose(self):
        if self._bindings_ready:
            self._composed = self._signature()
        for widget in super().compose():
            if self.compact and isinstance(widget, FooterKey) and widget.action in WIDE_ONLY:
                continue
            yield widget

    def watch_compact(self) -> None:
        # the keys it leaves out depend on it: lay the footer out again when it changes (app._fit sets it)
        if self.is_mounted:
            self.call_after_refresh(self.recompose)
