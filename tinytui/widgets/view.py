"""The one snapshot every pane draws from, and the marker for widgets the app re-renders after a change."""

from __future__ import annotations

from dataclasses import dataclass

from model import Trace, TraceDiff
from tinytui.session import Session


@dataclass(frozen=True)
class View:
    """(trace, diff, step) plus what goes with them, taken from the session right after a change."""

    session: Session
    trace: Trace
    base: Trace  # what the highlights compare to: the trace before the last change, or the original
    diff: TraceDiff
    step: int
    edited: dict[str, list[tuple[int, ...]]]  # parameter cells that differ from the model file

    @classmethod
    def of(cls, session: Session) -> View:
        return cls(session, session.trace, session.base, session.diff, session.step, session.edited_cells())

    @property
    def changed(self) -> bool:
        """Whether anything differs from the comparison trace (then old → new is worth showing)."""
        return not self.diff.empty


class ViewPart:
    """Mixin for widgets that redraw from a View. The app calls show() on every one after each change."""

    def show(self, view: View) -> None:
        raise NotImplementedError
