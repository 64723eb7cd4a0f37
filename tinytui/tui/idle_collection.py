"""What the keys let go of, freed while the app waits for the next one: a full pass of the cycle collector
once the app has been idle for a moment after a key or a click.

Every line a Textual widget draws is a reference cycle: Strip.adjust_cell_length, asked for the width
the line already has, keeps the line in its own cache. So the lines a widget's caches let go of (and
whatever a cycle reaches: a dropped layout's tables) are freed by the cycle collector, not when the last
reference goes; kept for a while, they are in its oldest generation by then. CPython collects that
generation only once the objects that survived into it have grown by a quarter since its last full pass,
which a session whose live objects stay the same size does not reach: at d_model 64 the resident memory
grew 0.7 MB a round of (b, b, an edit, u, m, m) for 20 rounds without one full pass (benchmarks/
bench_view.py --memory). A full pass here takes a few milliseconds (some 120,000 objects), out of any
key's way unless a key comes in the very moment it runs.
"""

from __future__ import annotations

import gc
import time

from textual.app import App

IDLE = 2.0  # seconds without a key or a click before the pass: longer than the gap between two keys


class IdleCollection:
    """One full pass of the cycle collector after input, once the app has been idle for `idle` seconds."""

    def __init__(self, app: App, idle: float = IDLE) -> None:
        self.app = app
        self.idle = idle
        self._last = 0.0  # when the last key or click came (time.monotonic)
        self.waiting = False  # for a pause: input came since the last pass

    def input_taken(self) -> None:
        """A key or a click: what it let go of is collected once the app is idle."""
        self._last = time.monotonic()
        if not self.waiting and self.app.is_running:
            self.waiting = True
            self.app.set_timer(self.idle, self._when_idle, name="idle collection")

    def _when_idle(self) -> None:
        left = self._last + self.idle - time.monotonic()
        if left > 0:  # input came while the timer ran: wait for the rest of the pause
            self.app.set_timer(left, self._when_idle, name="idle collection")
            return
        self.waiting = False
        gc.collect()
