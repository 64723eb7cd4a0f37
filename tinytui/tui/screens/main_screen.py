"""The main screen's containers that a child covers cell for cell: Textual draws none of their own
lines (Widget.BLANK, its public switch for that), so a frame that redraws the step does not draw the
screen and the body under it again too.

The screen holds the bars and the body, which fill it; the body the sidebar and the step view (and the
watch pane), which fill it. The sidebar is not one of them: it draws the rule right of the step list.
"""

from __future__ import annotations

from textual.containers import Horizontal
from textual.screen import Screen


class MainScreen(Screen):
    BLANK = True


class Body(Horizontal):
    BLANK = True
