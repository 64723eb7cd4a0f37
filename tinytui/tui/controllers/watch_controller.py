"""The watch pane (W): whether it is shown. Shown, it stays beside every step, so an edit's effect on
the prediction and on block 0's attention can be watched from the step that made it.

The pane itself (tinytui.tui.widgets.watch_pane.WatchPane) is a ViewPart, so every change redraws it; this
controller mounts it the first time it is shown (beside the step, #body's child after #main: the first
screen neither builds nor styles a pane it does not show) and flips the app's -watching class, which the
pane's CSS reads (at 80 columns the pane then takes the step list's place).
"""

from __future__ import annotations

from typing import Any

from tinytui.tui.actions import Host

WATCHING = "-watching"


class WatchController:
    def __init__(self, host: Host) -> None:
        self.host = host
        self.shown = False  # off by default, at every size

    def toggle(self) -> None:
        self.set_shown(not self.shown)

    def set_shown(self, shown: bool) -> None:
        self.shown = shown
        if shown:
            self._mount_pane()
        # the pane's CSS shows it; it then draws the last view it was given (it skips drawing while hidden)
        self.host.set_class(shown, WATCHING)  # type: ignore[attr-defined]

    def _mount_pane(self) -> None:
        """The pane, given the view now, mounted beside the step the first time it is shown."""
        host: Any = self.host
        if host.query("#watch"):
            return
        from tinytui.tui.widgets.watch_pane import WatchPane

        pane = WatchPane(id="watch")
        pane.show(host.view())  # drawn once mounted (WatchPane.on_show)
        host.query_one("#body").mount(pane, after="#main")

    def note(self) -> str:
        return "now shown" if self.shown else "now hidden"
