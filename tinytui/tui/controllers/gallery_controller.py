"""The gallery view: open it (v) from any step and close it (v or Esc) back at the same step.

The gallery marks what changed since the comparison run (View.base) in every painting, rule and
circuit, and some of those (a head's strokes, the circuits) are computed from the weights that made
the comparison trace: the trace carries them (Trace.params). (It once kept its own list of the last 16
traces with their weights, which held up to 16 traces alive: at GPT-2 small 20 MB a move.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tinytui.tui.actions import Host

if TYPE_CHECKING:  # the gallery's screen (its paintings and their analyses) is imported when it opens
    from tinytui.model.params import Params
    from tinytui.present.view import View


class GalleryController:
    def __init__(self, host: Host) -> None:
        self.host = host

    def params_of(self, view: View) -> Params | None:
        """The weights that made the view's comparison trace; None when not known (then the marks of
        the weights' own products compare with today's weights)."""
        session = self.host.session
        if session.is_original(view.base):  # (never runs the original model again just to compare)
            return session.model.params
        return view.base.params

    def is_open(self) -> bool:
        from tinytui.tui.screens.gallery_screen import GalleryScreen

        return any(isinstance(s, GalleryScreen) for s in self.host.screen_stack)  # type: ignore[attr-defined]

    def open(self) -> None:
        if self.is_open():
            return
        if self.host.session.practising:  # its paintings are the values practice asks for
            self.host.bell()
            self.host.notify("The gallery shows the values you are working out: k ends practice first.")
            return
        from tinytui.tui.screens.gallery_screen import GalleryScreen

        self.host.push_screen(GalleryScreen(self.host.view(), self.params_of))
