"""The app's notices: which are live, how long a notice about one step stays, and what the log keeps.

A notice about what a step shows (a refusal, "Step 16 is the last step", the note on an edit) goes when
the step changes; one about a file or a setting (saved, recording, screenshot, a warning at start) stays
its time. A new refusal takes the last refusal's place rather than piling up, and a switch's notice the
last switch's (it says how every switch is now). At most three are live. Each goes after its timeout (a
timer of the app) or when clicked; the log keeps the session's last notices whole (M opens it).

They are drawn by tinytui.tui.widgets.notice_line.NoticeLine, a line of its own above the footer that
never changes size: one on the main screen, and one on each of our screens opened over it while there is
a notice to show there (every line draws the same notices). Nothing of Textual's toasts is used.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial

from textual.app import App
from textual.command import CommandPalette
from textual.notifications import SeverityLevel

from tinytui.model.checks import short_values
from tinytui.tui.screens.too_small_screen import TooSmallScreen
from tinytui.tui.widgets.notice_line import Notice, NoticeLine

# notices about a file or the session, which stay when the step changes
LASTING_TITLES = frozenset(
    {"Saved", "Not saved", "Screenshot", "No screenshot", "Recording saved", "Recording in memory",
     "Replayed to the end", "Training"}
)  # fmt: skip
SHOWN = 3  # notices live at most: a fourth takes the oldest's place
LOGGED = 100  # notices the log keeps, the newest


def lasting(note: Notice) -> bool:
    """Whether a notice stays when the step changes: a file's, the recording's, a warning at start."""
    if note.title in LASTING_TITLES:
        return True
    return note.severity != "information" and not note.title.startswith("Not ")


class Toasts:
    """The notices the app has raised and not taken away, the log of them, and the lines that draw them."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.live: list[Notice] = []  # oldest first
        self.log: deque[Notice] = deque(maxlen=LOGGED)  # every notice raised, oldest first
        self.turn = 0  # one more for each key or click: a notice raised with a step change is about it
        self.where: object = None  # the step shown (and whether walking back), to tell a change
        self.lines: list[NoticeLine] = []
        self._watching = False  # subscribed to the app's screen changes
        self._holding = 0  # inside held(): drawing waits for its end
        self._drawing_held = False

    def notes(self) -> list[Notice]:
        """The live notices, oldest first (each with .message, .title, .severity)."""
        return list(self.live)

    # ---- raising and taking away ---------------------------------------------------------------------
    def notify(
        self,
        message: str,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float = 5.0,
        markup: bool = True,
        replaces: str = "",
    ) -> Notice:
        """Raise a notice. replaces: what it is about ("switches"); it takes the place of the live notice
        about the same. Else a fourth notice takes the oldest's place. A value typed into it too long to
        read (a 5,000-character file name) is cut to its start and end, as the command line's refusals
        cut it, in the line and in the log."""
        when = time.strftime("%H:%M:%S")
        note = Notice(short_values(message), title, severity, timeout, markup, replaces, self.turn, when)
        old = [n for n in self.live if replaces and n.replaces == replaces]
        if not old and len(self.live) >= SHOWN:
            old = self.live[:1]
        for gone in old:
            self._drop(gone)
        self.live.append(note)
        self.log.append(note)
        self._start(note)
        self.draw()
        return note

    def refuse(self, message: str, title: str, severity: SeverityLevel, timeout: float) -> Notice:
        """Say why something was not done, in place of the last such notice."""
        return self.notify(message, title, severity, timeout, markup=False, replaces="refusal")

    def dismiss(self, note: Notice) -> None:
        """Take a notice away (clicked, or its time is up)."""
        if note in self.live:
            self._drop(note)
            self.draw()

    def withdraw(self, about: str) -> None:
        """Take away the live notice about this ("refusal": what was refused is now done)."""
        gone = [note for note in self.live if note.replaces == about]
        for note in gone:
            self._drop(note)
        if gone:
            self.draw()

    def clear(self) -> None:
        for note in list(self.live):
            self._drop(note)
        self.draw()

    def _drop(self, note: Notice) -> None:
        self.live.remove(note)
        note.taken_away()
        if note.timer is not None:
            note.timer.stop()
            note.timer = None

    def _start(self, note: Notice) -> None:
        """Set its time running (once the app runs: a notice raised before waits for it)."""
        if note.timer is None and self.app.is_running:
            note.timer = self.app.set_timer(note.timeout, partial(self.dismiss, note), name="notice")

    def input_taken(self) -> None:
        self.turn += 1

    def step_shown(self, where: object) -> None:
        """The app shows a step: when it is another one, the notices about the one before go."""
        changed = self.where is not None and where != self.where
        self.where = where
        if changed:
            gone = [n for n in self.live if n.turn != self.turn and not lasting(n)]
            for note in gone:
                self._drop(note)
            if gone:
                self.draw()

    @contextmanager
    def held(self) -> Iterator[None]:
        """The notices are drawn once, when what is inside is done: a key that takes one notice away and
        raises another (b: the walk's notice about the step before goes, the new one comes) repaints the
        line once, with what it says at the end."""
        self._holding += 1
        try:
            yield
        finally:
            self._holding -= 1
            if not self._holding and self._drawing_held:
                self._drawing_held = False
                self.draw()

    # ---- the lines -----------------------------------------------------------------------------------
    def line(self) -> NoticeLine:
        """A new line drawing these notices (the main screen's, in the app's compose)."""
        line = NoticeLine(self, classes="notices")
        self.lines.append(line)
        line.show(self.newest_first())
        return line

    def forget(self, line: NoticeLine) -> None:
        if line in self.lines:
            self.lines.remove(line)

    def newest_first(self) -> list[Notice]:
        return self.live[::-1]

    def draw(self) -> None:
        """Every line shows the live notices; the screen on top gets a line when it has none."""
        if self._holding:
            self._drawing_held = True  # drawn when the hold ends
            return
        for note in self.live:
            self._start(note)
        self._follow_screens()
        if self.app.screen_stack:  # not before the app has a screen (a notice from __init__)
            screen = self.app.screen
            if self.live and self._ours(screen) and not any(line.parent is screen for line in self.lines):
                screen.mount(self.line())
        notices = self.newest_first()
        for line in self.lines:
            line.show(notices)

    def _ours(self, screen: object) -> bool:
        """Whether a screen opened over the main one gets a line of its own: not the command palette (a
        notice raised while it is open shows when it closes), the too-small notice over everything, nor
        the notice log (it shows them all)."""
        from tinytui.tui.screens.notice_log_screen import NoticeLogScreen  # when a notice is first drawn

        covering = isinstance(screen, (CommandPalette, TooSmallScreen, NoticeLogScreen))
        return screen is not self.app.screen_stack[0] and not covering

    def _follow_screens(self) -> None:
        """Once the app runs: a screen opened or closed gets the notices drawn on it."""
        if not self._watching and self.app.is_running:
            self._watching = True
            self.app.screen_change_signal.subscribe(self.app, lambda _screen: self.draw())
