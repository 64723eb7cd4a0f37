"""The items (tables and texts) a session's current step shows, by key: what tests of the panes read."""

from __future__ import annotations

from tinytui.present.backward_tables import pane_sections
from tinytui.present.view import View
from tinytui.session.session import Session


def items_at(s: Session) -> dict:
    return {item.key: item for sec in pane_sections(View.of(s)) for row in sec.rows for item in row}
