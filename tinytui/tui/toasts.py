"""The app's notices: which are live, how long a notice about one step stays, and where they sit.

A notice never covers the inspector's lines or the row the cursor is on: the notices sit at the bottom
right, above the inspector and the footer, unless the cursor's row is down there; then they sit at the top
right, under the status bar. A notice about what a step shows (a refusal, "Step 16 is the last step", the
note on an edit) goes when the step changes; one about a file or a setting (saved, recording, screenshot,
a warning at start) stays its time. A new refusal takes the last refusal's place rather than piling up, and
a switch's notice the last switch's (it says how every switch is now). At most three are shown.

They are drawn by tinytui.tui.widgets.notice_board.NoticeBoard, one on the main screen and one on each of
our screens opened over it while there is a notice to show there (every board draws the same notices, so
a notice raised while the parameter browser or a dialog is open is seen on it). Each notice goes after its
timeout (a timer of the app) or when clicked. Nothing of Textual's toasts is used.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial

from textual.app import App
from textual.command import CommandPalette
from textual.notifications import SeverityLevel
from textual.widget import Widget

from tinytui.tui.screens.too_small_screen import TooSmallScreen
from tinytui.tui.widgets.notice_board import Notice, NoticeBoard, board_width

# notices about a file or the session, which stay when the step changes
LASTING_TITLES = frozenset(
    {"Saved", "Not saved", "Screenshot", "No screenshot", "Recording saved", "Recording in memory",
     "Replayed to the end", "Training"}
)  # fmt: skip
SHOWN = 3  # notices on screen at most: a fourth takes the oldest's place
TOP = 3  # rows above the notices when they sit at the top (app.tcss: the status bar's usual height)
BOTTOM = 4  # rows below them at the bottom: the footer and the inspector's three lines at most


def lasting(note: Notice) -> bool:
    """Whether a notice stays when the step changes: a file's, the recording's, a warning at start."""
    if note.title in LASTING_TITLES:
        return True
    return note.severity != "information" and not note.title.startswith("Not ")


class Toasts:
    """The notices the app has raised and not taken away, and the boards that draw them."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.live: list[Notice] = []  # oldest first
        self.turn = 0  # one more for each key or click: a notice raised with a step change is about it
        self.where: object = None  # the step shown (and whether walking back), to tell a change
        self.high = False  # the notices sit at the top (the cursor's row is where they would sit below)
        self.boards: list[NoticeBoard] = []
        self._watching = False  # subscribed to the app's screen changes
        self._holding = 0  # inside held(): placing waits for its end
        self._placing_held = False

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
        about the same. Else a fourth notice takes the oldest's place."""
        note = Notice(message, title, severity, timeout, markup, replaces, self.turn)
        old = [n for n in self.live if replaces and n.replaces == replaces]
        if not old and len(self.live) >= SHOWN:
            old = self.live[:1]
        for gone in old:
            self._drop(gone)
        self.live.append(note)
        self._start(note)
        self.fit()
        return note

    def refuse(self, message: str, title: str, severity: SeverityLevel, timeout: float) -> Notice:
        """Say why something was not done, in place of the last such notice."""
        return self.notify(message, title, severity, timeout, markup=False, replaces="refusal")

    def dismiss(self, note: Notice) -> None:
        """Take a notice away (clicked, or its time is up)."""
        if note in self.live:
            self._drop(note)
            self.fit()

    def withdraw(self, about: str) -> None:
        """Take away the live notice about this ("refusal": what was refused is now done)."""
        gone = [note for note in self.live if note.replaces == about]
        for note in gone:
            self._drop(note)
        if gone:
            self.fit()

    def clear(self) -> None:
        for note in list(self.live):
            self._drop(note)
        self.fit()

    def _drop(self, note: Notice) -> None:
        self.live.remove(note)
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

    # ---- where they sit ------------------------------------------------------------------------------
    def rows(self, screen_width: int) -> int:
        """Rows the notices take on a screen this wide."""
        width, console = board_width(screen_width), self.app.console
        return sum(note.height(width, console) for note in self.live)

    def fit(self) -> None:
        """Place the notices again (after a change, or a new screen size) and draw them."""
        if self.app.screen_stack:  # not before the app has a screen (a notice from __init__)
            self.place(self.app.focused, *self.app.size)

    @contextmanager
    def held(self) -> Iterator[None]:
        """The notices are placed once, when what is inside is done: a key that takes one notice away and
        raises another (b: the walk's notice about the step before goes, the new one comes) moves the
        board once, or not at all when the new notice takes the old one's rows, rather than hiding it
        and laying the screen out to show it again."""
        self._holding += 1
        try:
            yield
        finally:
            self._holding -= 1
            if not self._holding and self._placing_held:
                self._placing_held = False
                self.fit()

    def place(self, focused: Widget | None, width: int, height: int) -> None:
        """Put the notices where they cover neither the inspector nor the cursor's row: at the bottom,
        unless the cursor's row is among the rows they take there, then at the top; when it is among the
        rows they would take at either, the oldest notices go until one place is clear."""
        if self._holding:
            self._placing_held = True  # placed when the hold ends, with the focus and size of then
            return
        row = cursor_row(focused)
        below = height - BOTTOM
        top = self._under_the_status_line()
        while True:
            rows = self.rows(width)
            low = row is None or not below - rows <= row < below
            high = row is not None and not top <= row < top + rows
            if low or high or len(self.live) <= 1:
                break
            self._drop(self.live[0])  # neither place is clear of the cursor (a small screen): fewer
        self.high = not low and high
        self.draw(top if self.high else below - rows, (width, height))

    def _under_the_status_line(self) -> int:
        """The first row under the status line (it grows a line for undo, learning or a narrow screen)."""
        for status in self.app.screen.query("#status"):
            return max(TOP, status.region.bottom)
        return TOP

    # ---- the boards ----------------------------------------------------------------------------------
    def board(self) -> NoticeBoard:
        """A new board drawing these notices (the main screen's, in the app's compose)."""
        board = NoticeBoard(self)
        self.boards.append(board)
        return board

    def forget(self, board: NoticeBoard) -> None:
        if board in self.boards:
            self.boards.remove(board)

    def draw(self, y: int, size: tuple[int, int]) -> None:
        """Every board shows the live notices; the screen on top gets a board when it has none."""
        for note in self.live:
            self._start(note)
        self._follow_screens()
        screen = self.app.screen
        if self.live and self._ours(screen) and not any(b.parent is screen for b in self.boards):
            screen.mount(self.board())
        for board in self.boards:
            board.show(self.live, y, size)

    def _ours(self, screen: object) -> bool:
        """Whether a screen opened over the main one gets a board of its own: not the command palette (a
        notice raised while it is open shows when it closes), nor the too-small notice over everything."""
        covering = isinstance(screen, (CommandPalette, TooSmallScreen))
        return screen is not self.app.screen_stack[0] and not covering

    def _follow_screens(self) -> None:
        """Once the app runs: a screen opened or closed gets the notices drawn on it."""
        if not self._watching and self.app.is_running:
            self._watching = True
            self.app.screen_change_signal.subscribe(self.app, lambda _screen: self.fit())


def cursor_row(widget: Widget | None) -> int | None:
    """The screen row of a table's cursor, or None when the focused widget has no cell cursor."""
    if widget is None:
        return None
    cell_region = getattr(widget, "cell_region", None)  # the step view's: the cursor's cell, scrolled
    cell = cell_region() if cell_region is not None else None
    if cell is None:  # not a view of tables, or a step without one
        return None
    return widget.content_region.y + cell.y - round(widget.scroll_offset.y)
