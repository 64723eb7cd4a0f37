"""The gallery view: open it (v) from any step and close it (v or Esc) back at the same step.

The gallery marks what changed since the comparison run (View.base) in every painting, rule and
circuit, and some of those (a head's strokes, the circuits) are computed from the weights, which a
trace does not carry. So this controller remembers which weights made each recent trace: it listens to
the session's events (after each one the session's params are the new trace's).
"""

from __future__ import annotations

from tinytui.model.params import Params
from tinytui.model.trace import Trace
from tinytui.present.view import View
from tinytui.tui.actions import Host
from tinytui.tui.screens.gallery_screen import GalleryScreen

KEEP = 16  # traces remembered (undo, redo and c reach back only a step or the original)


class GalleryController:
    def __init__(self, host: Host) -> None:
        self.host = host
        self._made: list[tuple[Trace, Params]] = []
        session = host.session
        self._remember(session.trace, session.params)
        session.listeners.append(lambda event: self._remember(event.after, self.host.session.params))

    def _remember(self, trace: Trace, params: Params) -> None:
        kept = [(t, p) for t, p in self._made if t is not trace][-(KEEP - 1) :]
        self._made = [*kept, (trace, params)]

    def params_of(self, view: View) -> Params | None:
        """The weights that made the view's comparison trace; None when not known (then the marks of
        the weights' own products compare with today's weights)."""
        session = view.session
        if session.is_original(view.base):  # (never runs the original model again just to compare)
            return session.model.params
        for trace, params in reversed(self._made):
            if trace is view.base:
                return params
        return None

    def is_open(self) -> bool:
        return any(isinstance(s, GalleryScreen) for s in self.host.screen_stack)  # type: ignore[attr-defined]

    def open(self) -> None:
        if self.is_open():
            return
        self.host.push_screen(GalleryScreen(self.host.view(), self.params_of))
