"""Moving through the sixteen steps (the backward walk hands n, p and jumps to the learning controller),
scrolling, the theme, the help screen and quitting."""

from __future__ import annotations

from collections.abc import Iterable

from tinytui import themes
from tinytui.actions import Host, PaletteCommand
from tinytui.model.stages import FIRST, LAST, STAGES


class StepController:
    def __init__(self, host: Host) -> None:
        self.host = host

    def next(self) -> None:
        host = self.host
        if host.session.mode.backward:  # the backward walk: next is one step further back
            return host.learning.walk(1)
        if host.session.step == LAST:
            host.bell()
            host.notify(f"Step {LAST} is the last step.", timeout=2)
            return
        host.apply(lambda s: s.next(), "next step")

    def previous(self) -> None:
        host = self.host
        if host.session.mode.backward:
            return host.learning.walk(-1)
        if host.session.step == FIRST:
            host.bell()
            host.notify(f"Step {FIRST} is the first step.", timeout=2)
            return
        host.apply(lambda s: s.prev(), "previous step")

    def goto(self, step: int) -> None:
        if self.host.session.mode.backward:
            return self.host.learning.walk_to(step)
        self.host.apply(lambda s: s.goto(step), f"go to step {step}")

    def scroll(self, pages: int) -> None:
        self.host.scroll_main(pages)

    def cycle_theme(self) -> None:
        host = self.host
        host.theme = themes.next_theme(host.theme)
        host.notify(f"Theme: {host.theme} (t for the next; ctrl+p → Theme for all)", timeout=3)

    def help(self) -> None:
        self.host.show_help()

    def quit(self) -> None:
        self.host.exit()

    def palette(self) -> Iterable[PaletteCommand]:
        for stage in STAGES:
            yield PaletteCommand(
                f"Go to step {stage.number}: {stage.title}",
                stage.formula,
                lambda n=stage.number: self.goto(n),
            )
