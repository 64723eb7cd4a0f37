"""Generation in the app: + appends the next token to the prompt (greedy, or drawn with the session's
temperature, top-k, top-p and seed), and the palette sets those. The choosing and the appending are the
session's (tinytui.session.next_token); step 14 shows the choice and step 6 the KV cache
(tinytui.present.next_token_grids). An append is a prompt change: u undoes it, a recording replays it.
"""

from __future__ import annotations

from collections.abc import Callable

from tinytui.session.state import Event
from tinytui.tui.actions import Host

HINTS = {
    "temperature": "0 is greedy (the most likely token); above 0 draws: 0.7 sharper, 1 as is, 1.5 flatter",
    "top_k": "draw only from the k likeliest tokens: 1 to the vocabulary's size; empty keeps all",
    "top_p": "draw only from the likeliest tokens whose probabilities reach p: above 0, at most 1 (1: all)",
    "seed": "the generator's seed, a whole number ≥ 0: the same seed draws the same numbers on every machine",
}
TITLES = {"temperature": "Temperature", "top_k": "Top-k", "top_p": "Top-p", "seed": "Seed"}


class GenerationController:
    def __init__(self, host: Host) -> None:
        self.host = host

    def append(self) -> None:
        from tinytui.session import next_token

        event = self.host.apply(next_token.append_next, "append the next token")
        if isinstance(event, Event):
            new = event.data["new"]
            self.host.notify(
                f"Appended {new[-1]!r} at position {len(new) - 1} · step 6 shows the KV cache, step 14 the "
                "next choice (u undoes)",
                timeout=4,
            )

    def ask(self, setting: str) -> None:
        """Ask for one setting (temperature, top_k, top_p or seed) and set it."""
        from tinytui.tui.screens.ask_screen import AskScreen

        host = self.host
        now = host.session.sampling
        shown = {"temperature": f"{now.temperature:g}", "top_k": "" if now.top_k is None else str(now.top_k),
                 "top_p": f"{now.top_p:g}", "seed": str(now.seed)}  # fmt: skip

        def submit(text: str) -> str | None:
            refused: list[str] = []
            changed = host.apply(_setter(setting, text), TITLES[setting].lower(), refused.append)
            if changed is None:
                return refused[0] if refused else "not done"
            host.notify(f"Next token: {host.session.sampling.describe()}", timeout=3)
            return None

        host.push_screen(
            AskScreen(f"Set the {TITLES[setting].lower()}", shown[setting], HINTS[setting], submit)
        )

    def greedy(self) -> None:
        self.host.apply(_setter("temperature", "0"), "greedy")
        self.host.notify("Next token: greedy, the most likely", timeout=3)

    def note(self, *setting: str) -> str:  # the palette passes an action's args
        return "now " + self.host.session.sampling.describe()


def _setter(setting: str, text: str) -> Callable:
    from tinytui.session import next_token

    return lambda session: next_token.set_sampling(session, **{setting: text})
