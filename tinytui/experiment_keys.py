"""The experiment switches in the app: bindings, palette commands and the one action they share.

Rows come from tinytui.experiments.EXPERIMENTS; nothing here knows any switch by name.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations
from typing import TYPE_CHECKING

from textual.binding import Binding

from tinytui.experiments import EXPERIMENT_BY_ID, EXPERIMENTS

if TYPE_CHECKING:
    from tinytui.app import PaletteCommand, TinyTuiApp

# The chapter's two experiments (mask, positional encoding) stay in the footer; the rest are in the help
# screen and the palette, so the footer still fits 80 columns.
IN_FOOTER = {"toggle-mask", "toggle-pe"}


def experiment_bindings() -> list[Binding]:
    return [
        Binding(e.key, f"experiment('{e.id}')", e.footer, show=e.id in IN_FOOTER, id=e.id, tooltip=e.help)
        for e in EXPERIMENTS
        if e.key
    ]


def run_experiment(app: TinyTuiApp, experiment_id: str) -> None:
    exp = EXPERIMENT_BY_ID[experiment_id]
    if app.apply(exp.apply, exp.palette) is not None:
        now = app.session.state.switches.describe()
        app.notify(f"{now}\n{exp.help}", title=exp.palette, timeout=4)


def swap_positions(app: TinyTuiApp, i: int, j: int) -> None:
    if app.apply(lambda s: s.swap_positions(i, j), f"swap positions {i} and {j}") is not None:
        app.notify(f"Prompt is now: {' '.join(app.session.state.prompt)}", title="Swapped", timeout=3)


def experiment_commands(app: TinyTuiApp) -> Iterable[PaletteCommand]:
    from tinytui.app import PaletteCommand

    switches = app.session.state.switches
    for e in EXPERIMENTS:
        state = "on" if e.is_on(switches) else "off"
        key = f" (key {e.key})" if e.key else ""
        yield PaletteCommand(
            f"{e.palette} — chapter setting is {state}", e.help + key, lambda i=e.id: run_experiment(app, i)
        )
    prompt = app.session.state.prompt
    for i, j in combinations(range(len(prompt)), 2):
        yield PaletteCommand(
            f"Swap positions {i} and {j} ({prompt[i]} ↔ {prompt[j]})",
            "Reorder the prompt: with PE and the mask off, only the order of the outputs changes",
            lambda i=i, j=j: swap_positions(app, i, j),
        )
