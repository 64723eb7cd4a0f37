"""The presenter view (z, or `tinytui --large`), for a projector: one table at a time, with more room.

On, the step list is hidden and the step's tables are shown one at a time, each under its section's
heading ("Step 8 makes · table 1 of 3"), starting with the table the step makes. n and p walk through
the step's tables first and then on to the next or previous step (which opens on its first table, or,
going back, its last), so a talk is given with n alone. The app's -presenting class gives every table
and heading more space (app.tcss). The tables are the same: the step view shows one page.
"""

from __future__ import annotations

from tinytui.tui.actions import Host

PRESENTING = "-presenting"


class PresenterController:
    def __init__(self, host: Host, on: bool = False) -> None:
        self.host = host
        self.on = on

    def start(self) -> None:
        """At mount: the --large choice takes effect once the panes exist."""
        if self.on:
            self.set_on(True)

    def toggle(self) -> None:
        self.set_on(not self.on)

    def set_on(self, on: bool) -> None:
        self.on = on
        self.host.set_class(on, PRESENTING)  # type: ignore[attr-defined]
        panes = self._panes()
        panes.show_page(panes.focused_page() if on else None)
        self.host.refresh_bindings()

    def presenting(self) -> bool:
        return self.on

    def note(self) -> str:
        return "now on" if self.on else "now off"

    # ---- n and p while presenting ---------------------------------------------------------------
    def next(self) -> None:
        panes = self._panes()
        if panes.page is not None and panes.page + 1 < panes.page_count():
            panes.show_page(panes.page + 1)
            return
        here = self.host.session.here, self.host.session.mode.backward
        self.host.steps.next()  # the next step opens on its first table (the step view starts at page 0)
        if (self.host.session.here, self.host.session.mode.backward) == here:
            panes.show_page(panes.page)  # the last step: stay on its last table

    def previous(self) -> None:
        panes = self._panes()
        if panes.page:
            panes.show_page(panes.page - 1)
            return
        here = self.host.session.here, self.host.session.mode.backward
        self.host.steps.previous()
        if (self.host.session.here, self.host.session.mode.backward) != here:
            panes.show_page(panes.page_count() - 1)  # back into a step: at its last table

    def _panes(self):
        from tinytui.tui.widgets.step_view import StepView

        return self.host.query_one(StepView)  # type: ignore[attr-defined]
