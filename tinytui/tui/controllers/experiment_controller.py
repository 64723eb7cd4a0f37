"""The experiment switches (rows of tinytui.tui.experiments.EXPERIMENTS) and reordering the prompt."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

from tinytui.lesson.texts.change_note import change_note
from tinytui.model.switches import ACTIVATION_NAMES, came, defaults
from tinytui.tui.actions import Host, PaletteCommand
from tinytui.tui.experiments import EXPERIMENT_BY_ID

SWITCHES = "switches"  # a switch's notice says how every switch is now: the next takes its place


class ExperimentController:
    def __init__(self, host: Host) -> None:
        self.host = host
        self._written: dict = {}  # the names each step writes, for the notes' changed steps (bounded there)

    def run(self, experiment_id: str) -> None:
        exp = EXPERIMENT_BY_ID[experiment_id]
        before = self.host.session.trace
        if self.host.apply(exp.apply, exp.palette) is not None:
            after = self.host.session.trace
            now = after.switches.describe()
            what = came(before.switches, after.switches)
            d = self.host.session.diff_between(before, after)
            note = change_note(
                before, after, ", ".join(what) or "switches as they were", d, written=self._written
            )
            # what changed first: the status line already shows how every switch is now
            self.host.notify(f"{note}\n{now}", title=exp.palette, timeout=8, replaces=SWITCHES)

    def ablate_in_block(self, block: int, head: int) -> None:
        """Zero one head's output in one block only (block 0-based, head 1-based), or bring it back."""
        host = self.host
        before = host.session.trace
        now = before.switches.with_block_head(block, head)
        off = now.is_ablated(block, head)
        what = f"head {head} of block {block + 1} {'ablated' if off else 'back'}"
        if host.apply(lambda s: s.set_switches(now), what) is not None:
            after = host.session.trace
            d = host.session.diff_between(before, after)
            note = change_note(before, after, what, d, written=self._written)
            said = host.session.trace.switches.describe()
            host.notify(f"{note}\n{said}", title=what.capitalize(), timeout=8, replaces=SWITCHES)

    def ablate_head(self, head: int) -> None:
        """Zero one head's output in every block, or bring it back (head 1-based): the palette's toggle
        for heads past the two the switch table names (a model of four heads, say)."""
        host = self.host
        before = host.session.trace
        off = head not in before.switches.ablated_heads
        what = f"head {head} {'ablated' if off else 'back'}"
        if host.apply(lambda s: s.toggle("ablated_heads", head), what) is not None:
            after = host.session.trace
            d = host.session.diff_between(before, after)
            note = change_note(before, after, what, d, written=self._written)
            host.notify(
                f"{note}\n{after.switches.describe()}", title=what.capitalize(), timeout=8, replaces=SWITCHES
            )

    def note(self, experiment_id: str) -> str:
        """For the palette: whether the switch is now as the chapter (or the model) has it. The activation
        is measured against the model's own: GPT-2's GELU, a gated model's SiLU, the chapter's ReLU."""
        exp = EXPERIMENT_BY_ID[experiment_id]
        switches = self.host.session.state.switches
        if experiment_id == "toggle-activation":
            own = defaults(self.host.session.model.cfg).activation
            name = ACTIVATION_NAMES[switches.activation]
            if switches.activation == own:
                return f"now {name}, the model's own"
            return f"now {name}, not the model's own {ACTIVATION_NAMES[own]}"
        return f"now {exp.on_words}" if exp.is_on(switches) else "now changed"

    def has_second_head(self) -> bool:
        """Whether the model has a head 2 to ablate (a one-head model's only head is H's)."""
        return self.host.session.model.cfg.n_heads > 1

    def swap_positions(self, i: int, j: int) -> None:
        host = self.host
        if host.apply(lambda s: s.swap_positions(i, j), f"swap positions {i} and {j}") is not None:
            host.notify(f"Prompt is now: {' '.join(host.session.state.prompt)}", title="Swapped", timeout=3)

    def palette(self) -> Iterable[PaletteCommand]:
        cfg, sw = self.host.session.model.cfg, self.host.session.state.switches
        if cfg.n_blocks > 1:  # one head of one block (H and the head toggles act on every block)
            for block in range(cfg.n_blocks):
                for head in range(1, cfg.n_heads + 1):
                    state = "now ablated" if (block, head) in sw.ablated else "now on"
                    yield PaletteCommand(
                        f"Ablate head {head} of block {block + 1} only (toggle)",
                        f"Its output in that block becomes zeros; the other blocks keep theirs · {state}",
                        lambda b=block, h=head: self.ablate_in_block(b, h),
                    )
        for head in range(3, cfg.n_heads + 1):  # heads 1 and 2 are rows of the switch table
            state = "now ablated" if head in sw.ablated_heads else "now on"
            yield PaletteCommand(
                f"Ablate head {head} (toggle)",
                f"Head {head}'s output becomes zeros: what is left is the other heads' · {state}",
                lambda h=head: self.ablate_head(h),
            )
        prompt = self.host.session.state.prompt
        for i, j in combinations(range(len(prompt)), 2):
            yield PaletteCommand(
                f"Swap positions {i} and {j} ({prompt[i]} ↔ {prompt[j]})",
                "Reorder the prompt: with PE and the mask off, only the order of the outputs changes",
                lambda i=i, j=j: self.swap_positions(i, j),
            )
