"""The app's main screen: a key is drawn as soon as the screen has taken in all it changed.

Textual draws a screen on a timer that ticks at most MAX_FPS times a second and sleeps while nothing
changes. The first change after a quiet moment waits for the timer's next tick: up to 17 ms at 60 fps,
or two ticks when the timer skipped one. And a tick that comes while a key's changes are still on their
way (the timer ran late behind the key's own work) draws half of them, and the rest a frame later: a
second layout and drawing of the screen for one key.

MainScreen draws when it goes idle with something to draw, once every widget it shows has said what
changed, if no frame was drawn within one frame period. Its timer's tick waits, a few ticks at most,
while a widget has not said so yet. Changes that come faster than the frame rate still wait for the
timer, so the screen is never drawn more often than Textual would draw it.
"""

from __future__ import annotations

import asyncio
from math import inf
from time import monotonic
from typing import Any

from textual.reactive import Reactive
from textual.screen import UPDATE_PERIOD, Screen
from textual.timer import Timer
from textual.widget import Widget

_TICKS_WAITED = 3  # at most, for a widget that has not said what changed (then drawn as Textual would)


class MainScreen(Screen):
    # Textual's Screen repaints the whole screen when the focus moves. The widget that lost the focus
    # and the one that took it restyle and draw themselves; the rest of the screen is unchanged.
    focused: Reactive[Widget | None] = Reactive(None, repaint=False)

    _last_frame = -inf
    _ticks_waited = 0

    def _on_idle(self, event: Any) -> None:
        # Screen._on_idle runs after this (it is the next handler in the MRO) and starts the timer.
        if monotonic() - self._last_frame >= UPDATE_PERIOD and self._has_something_to_draw():
            # a turn of the event loop first: what other widgets' tasks have to say comes in before
            asyncio.get_running_loop().call_soon(self._draw_if_all_is_in)

    def _draw_if_all_is_in(self) -> None:
        if self._message_queue.empty() and self._has_something_to_draw():
            self._on_timer_update()

    def _has_something_to_draw(self) -> bool:
        if self.app._batch_count or not self.is_current:
            return False
        asked = (self._layout_required, self._scroll_required, self._repaint_required, self._dirty_widgets)
        return any(asked) and self._every_widget_has_asked()

    def _every_widget_has_asked(self) -> bool:
        # A widget asked to refresh tells the screen when it next goes idle itself. One that has not
        # told it yet would be drawn a frame later, on its own: the screen waits for it instead.
        for widget in self._compositor.visible_widgets:
            if widget is self:  # the screen's own flags say what it will draw (above)
                continue
            if widget._repaint_required or widget._layout_required or widget._scroll_required:
                return False
        return True

    @property
    def _update_timer(self) -> Timer:
        # Screen's own timer, ticking into _on_tick (Screen makes it on first use, under its own name)
        if self._Screen__update_timer is None:  # type: ignore[attr-defined]
            self._Screen__update_timer = self.set_interval(  # type: ignore[attr-defined]
                UPDATE_PERIOD, self._on_tick, name="screen_update", pause=True
            )
        return self._Screen__update_timer  # type: ignore[attr-defined]

    def _on_tick(self) -> None:
        # the timer ticks in a task of its own: what widgets said may still wait in the screen's queue
        taken_in = self._message_queue.empty() and self._every_widget_has_asked()
        if self._ticks_waited < _TICKS_WAITED and not taken_in:
            self._ticks_waited += 1  # the timer goes on; the idle that follows the widget's word draws
            return
        self._on_timer_update()

    def _on_timer_update(self) -> None:
        self._last_frame = monotonic()
        self._ticks_waited = 0
        super()._on_timer_update()
