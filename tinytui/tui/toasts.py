"""The app's notices (Textual's toasts): where they sit and how long a notice about one step stays.

A notice never covers the inspector's lines or the row the cursor is on: the notices sit at the bottom
right, above the inspector and the footer, unless the cursor's row is down there; then they sit at the top
right, under the status bar. A notice about what a step shows (a
refusal, "Step 16 is the last step", the note on an edit) goes when the step changes; one about a file or
a setting (saved, recording, screenshot, a warning at start) stays its time. A new refusal takes the last
refusal's place rather than piling up.

Textual's public API only: notices are posted as textual.notifications.Notify messages carrying a
Notification this module keeps, and taken away with App.clear_notifications() (those that stay are
posted again with the time they have left, so they do not start over).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

from textual.app import App
from textual.notifications import Notification, Notify, SeverityLevel
from textual.widget import Widget

# notices about a file or the session, which stay when the step changes
LASTING_TITLES = frozenset(
    {"Saved", "Not saved", "Screenshot", "No screenshot", "Recording saved", "Recording in memory",
     "Replayed to the end", "Training"}
)  # fmt: skip
HIGH = "-toasts-high"  # the app's class while the notices sit at the top
SHOWN = 3  # notices on screen at most: a fourth takes the oldest's place
TOP = 3  # rows above the notices when they sit at the top (app.tcss: the status bar's usual height)
BOTTOM = 4  # rows below them at the bottom: the footer and the inspector's three lines at most


def lasting(note: Notification) -> bool:
    """Whether a notice stays when the step changes: a file's, the recording's, a warning at start."""
    if note.title in LASTING_TITLES:
        return True
    return note.severity != "information" and not note.title.startswith("Not ")


def toast_height(note: Notification, screen_width: int) -> int:
    """Rows a notice takes at most, its gap above included: Textual's Toast is 60 columns wide (at most
    half the screen), with a border, a column of padding each side and a row above and below."""
    width = max(min(60, screen_width // 2) - 3, 8)
    lines = [note.title] if note.title else []
    lines += note.message.splitlines() or [""]
    return 3 + sum(len(textwrap.wrap(line, width)) or 1 for line in lines)


@dataclass
class Toasts:
    """The notices the app has raised and not taken away, and when each was raised."""

    app: App
    live: list[tuple[Notification, int]] = field(default_factory=list)  # (notice, turn raised in)
    turn: int = 0  # one more for each key or click: a notice raised with a step change is about it
    where: object = None  # the step shown (and whether walking back), to tell a change
    refusal: Notification | None = None

    def notify(
        self, message: str, title: str, severity: SeverityLevel, timeout: float, markup: bool = True
    ) -> Notification:
        note = Notification(message, title, severity, timeout, markup=markup)
        shown = [pair for pair in self.live if not pair[0].has_expired]
        if len(shown) >= SHOWN:
            oldest = shown[0][0]
            self._keep(lambda n, turn: n is not oldest)
        self.live.append((note, self.turn))
        self.app.post_message(Notify(note))
        if self.app.screen_stack:  # not before the app has a screen (a notice from __init__)
            self.place(self.app.focused, *self.app.size)
        return note

    def refuse(self, message: str, title: str, severity: SeverityLevel, timeout: float) -> None:
        """Say why something was not done, in place of the last such notice."""
        if self.refusal is not None:
            gone = self.refusal
            self._keep(lambda note, turn: note is not gone)
        self.refusal = self.notify(message, title, severity, timeout, markup=False)

    def input_taken(self) -> None:
        self.turn += 1

    def step_shown(self, where: object) -> None:
        """The app shows a step: when it is another one, the notices about the one before go."""
        changed = self.where is not None and where != self.where
        self.where = where
        if changed:
            now = self.turn
            self._keep(lambda note, turn: turn == now or lasting(note))

    def _keep(self, keep) -> None:  # type: ignore[no-untyped-def]
        """Take away every notice but those keep(notice, turn) holds to, which stay with the time they
        have left."""
        shown = [(note, turn) for note, turn in self.live if not note.has_expired]
        kept = [(note, turn) for note, turn in shown if keep(note, turn)]
        self.live = kept
        if len(kept) != len(shown):
            self.app.clear_notifications()  # at once: what goes is not drawn again
            self.app.call_later(self._show_again, [note for note, _ in kept])

    def _show_again(self, notes: list[Notification]) -> None:
        """Show the kept notices again, once the app has taken every notice posted before (it handles its
        messages in order): as new notices, since Textual's rack would not show one under its old
        identity once taken away."""
        self.app.clear_notifications()
        for i, (note, turn) in enumerate(self.live):
            if any(note is kept for kept in notes) and not note.has_expired:
                again = Notification(
                    note.message, note.title, note.severity, note.time_left, markup=note.markup
                )
                self.live[i] = (again, turn)
                if note is self.refusal:
                    self.refusal = again
                self.app.post_message(Notify(again))

    def rows(self, screen_width: int) -> int:
        """Rows the notices on screen take at most."""
        return sum(toast_height(note, screen_width) for note, _ in self.live if not note.has_expired)

    def place(self, focused: Widget | None, width: int, height: int) -> None:
        """Put the notices where they cover neither the inspector nor the cursor's row: at the bottom,
        unless the cursor's row is among the rows they take there, then at the top; when it is among the
        rows they would take at either, the oldest notices go until one place is clear."""
        row = cursor_row(focused)
        below = height - BOTTOM
        while True:
            rows = self.rows(width)
            low = row is None or not below - rows <= row < below
            high = row is not None and not TOP <= row < TOP + rows
            shown = [note for note, _ in self.live if not note.has_expired]
            if low or high or len(shown) <= 1:
                break
            oldest = shown[0]  # neither place is clear of the cursor (a small screen): fewer notices
            self._keep(lambda note, turn, oldest=oldest: note is not oldest)
        up = not low and high
        self.app.set_class(up, HIGH)
        # Docked at the bottom either way, raised by its margin: Textual's rack keeps an empty row for
        # each notice taken away early, above the notices, where the top of the screen hides them.
        margin = max(BOTTOM, height - TOP - self.rows(width)) if up else BOTTOM
        for rack in self.app.screen.query("ToastRack"):
            rack.styles.margin = (0, 0, margin, 0)


def cursor_row(widget: Widget | None) -> int | None:
    """The screen row of a table's cursor, or None when the focused widget has no cell cursor."""
    if widget is None:
        return None
    cell_region = getattr(widget, "cell_region", None)
    if cell_region is None:
        return None
    try:
        cell = cell_region()  # the step view: the cursor's cell in its scrolled space
    except TypeError:
        cell = cell_region(getattr(widget, "row", 0), getattr(widget, "col", 0))  # one table's widget
    return widget.content_region.y + cell.y - round(widget.scroll_offset.y)
