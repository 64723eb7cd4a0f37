"""The watch pane (W): whether it is shown. Shown, it stays beside every step, so an edit's effect on
the prediction and on block 0's attention can be watched from the step that made it.

The pane itself (tinytui.tui.widgets.watch_pane.WatchPane) is a ViewPart, so every change redraws it; this
controller only flips the app's -watching class, which the pane's CSS reads (at 80 columns the pane
then takes the step list's place).
"""

from __future__ import annotations

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
        # the pane's CSS shows it; it then draws the last view it was given (it skips drawing while hidden)
        self.host.set_class(shown, WATCHING)  # type: ignore[attr-defined]

    def note(self) -> str:
        return "now shown" if self.shown else "now hidden"
