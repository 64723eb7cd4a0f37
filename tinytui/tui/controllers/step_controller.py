"""Moving through the sixteen steps (the backward walk hands n, p and jumps to the learning controller),
scrolling, the theme, the help screen, the notice log and quitting."""

from __future__ import annotations

from collections.abc import Iterable

from tinytui import themes
from tinytui.lesson import step_path
from tinytui.lesson.stages import FIRST, LAST, formula_as_run, title_for
from tinytui.lesson.texts.display_names import in_words
from tinytui.tui.actions import Host, PaletteCommand


class StepController:
    def __init__(self, host: Host) -> None:
        self.host = host

    def next(self) -> None:
        host = self.host
        if host.session.mode.backward:  # the backward walk: next is one step further back
            return host.learning.walk(1)
        if host.session.here == host.session.path()[-1]:
            host.bell()
            host.notify(f"Step {LAST} is the last step.", timeout=2)
            return
        host.apply(lambda s: s.next(), "next step")

    def previous(self) -> None:
        host = self.host
        if host.session.mode.backward:
            return host.learning.walk(-1)
        if host.session.here == host.session.path()[0]:
            host.bell()
            host.notify(f"Step {FIRST} is the first step.", timeout=2)
            return
        host.apply(lambda s: s.prev(), "previous step")

    def goto(self, step: int, block: int | None = None) -> None:
        """Go to a step; a block step (5–12) of the current block unless block (0-based) is given."""
        session = self.host.session
        if session.mode.backward:
            return self.host.learning.walk_to(step, block)
        n_blocks = session.model.cfg.n_blocks
        where = step_path.heading(
            step_path.at(step, session.block if block is None else block, n_blocks), n_blocks
        )
        self.host.apply(lambda s: s.goto(step, session.mode.backward, block), f"go to {where}")

    def block(self, delta: int) -> None:
        """The same step in the next (delta +1) or previous (−1) block. Before the blocks, ] goes to the
        first block's first step; after them, [ goes to the last block's first step."""
        session = self.host.session
        n_blocks, here = session.model.cfg.n_blocks, session.here
        first = step_path.FIRST_IN_BLOCK
        if here.block is not None:
            number, block = here.number, here.block + delta
        else:
            number, block = first, (0 if here.number < first else n_blocks - 1)
            if (delta > 0) != (here.number < first):
                block = -1  # nothing that way
        if not 0 <= block < n_blocks:
            self.host.bell()
            if here.block is not None:
                said = f"Block {here.block + 1} is the {'last' if delta > 0 else 'first'} block."
            else:
                said = f"There is no block {'after' if delta > 0 else 'before'} step {here.number}."
            self.host.notify(said, timeout=2)
            return
        self.goto(number, block)

    def many_blocks(self) -> bool:
        return self.host.session.model.cfg.n_blocks > 1

    def scroll(self, pages: int) -> None:
        self.host.scroll_main(pages)

    def cycle_theme(self) -> None:
        host = self.host
        host.theme = themes.next_theme(host.theme)
        host.notify(f"Theme: {host.theme} (t for the next; ctrl+p → Theme for all)", timeout=3)

    def help(self) -> None:
        self.host.show_help()

    def notices(self) -> None:
        """M: every notice of the session, whole (the line above the footer has a row or two)."""
        self.host.show_notices()

    def quit(self) -> None:
        """q: leave at once, or first ask when edited weights are not saved (as R asks before a reset)."""
        host, s = self.host, self.host.session
        if host.recording.ask_before_quit(self.quit):  # recorded events held only in memory come first
            return
        edited = 0
        if s.params is not s.model.params and s.params is not host.edits.saved_params:
            edited = sum(len(cells) for cells in s.edited_cells().values())
        if not edited:
            host.leave()
            return
        question = (
            f"Quit? {edited:,} edited weight{'s are' if edited != 1 else ' is'} not saved and will be lost. "
            "(ctrl+s saves the model to a file.)"
        )

        from tinytui.tui.screens.confirm_screen import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes:
                host.leave()

        host.push_screen(ConfirmScreen(question, "Quit", "Stay"), answered)

    def palette(self) -> Iterable[PaletteCommand]:
        trace = self.host.session.trace  # each step as this model runs it (RMSNorm, a gate, W_U, …)
        n_blocks = trace.cfg.n_blocks
        for step in step_path.forward(n_blocks):
            heading = step_path.heading(step, n_blocks)
            yield PaletteCommand(
                f"Go to {heading}: {title_for(step.stage, trace.cfg, trace.switches)}",
                in_words(formula_as_run(step.stage, trace.switches, trace.cfg)),
                lambda n=step.number, b=step.block: self.goto(n, b),
            )
