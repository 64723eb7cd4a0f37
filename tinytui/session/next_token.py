"""The next token in the debugger: the token the session's sampling picks from the current trace,
appending it, the sampling settings, and what the new position's pass computed and what it reused.

Appending is a prompt change (Session.set_prompt): undoable, recorded and replayed like any prompt
change, so a replay appends the very tokens that were appended. The pick is a pure function of the
current trace and the settings (tinytui.model.generation.sampling: the draw for position p is number p
of Generator(PCG64(seed))), so undoing an append and appending again gives the same token, and
appending N times gives what `tinytui generate --tokens N` prints with the same settings.

The settings are the session's (Session.sampling), like the mode: changing them is not a change to the
model and is not undone, but it is recorded (Kind.SAMPLING), so a replay picks as the user's session did.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, NamedTuple

from tinytui.model import checks
from tinytui.model.generation import sampling
from tinytui.model.generation.sampling import Pick, Sampling
from tinytui.session.session import Session
from tinytui.session.state import Event, Refused


def next_pick(session: Session) -> Pick | None:
    """The token the next append would add, with everything that chose it; None when the prompt
    already fills the model's context."""
    trace = session.trace
    if len(trace.prompt) >= trace.cfg.n_ctx:
        return None
    return sampling.pick(trace["logits"], session.sampling, len(trace.prompt))


def full_line(session: Session) -> str:
    """Why nothing can be appended: the prompt fills the context."""
    n_ctx = session.model.cfg.n_ctx
    return f"the prompt fills the model's context of {n_ctx} positions: nothing more can be appended"


def append_next(session: Session) -> Event:
    """Append the next token (greedy, or drawn with the session's settings) as one prompt change."""
    chosen = next_pick(session)
    if chosen is None:
        raise Refused(full_line(session))
    return session.set_prompt((*session.state.prompt, session.model.cfg.vocab[chosen.token]))


def set_sampling(session: Session, **typed: object) -> Sampling:
    """Change some of the settings (temperature, top_k, top_p, seed: typed text or values; top_k None
    or "" keeps every token); Refused, changing nothing, with the first bad value's one line."""
    now = session.sampling
    n_vocab = session.model.cfg.n_vocab
    check = {
        "temperature": sampling.temperature,
        "top_k": lambda v: sampling.top_k(None if v in ("", None) else v, n_vocab),
        "top_p": sampling.top_p,
        "seed": sampling.seed,
    }
    changes: dict[str, Any] = {}  # field name -> its checked value
    for name, value in typed.items():
        try:
            changes[name] = check[name](value)
        except checks.Invalid as exc:
            raise Refused(str(exc)) from None
    session.set_sampling(replace(now, **changes))
    return session.sampling


# a NamedTuple, not a frozen dataclass: loaded as the app starts, and a frozen dataclass compiles
# its methods from source as its class is made (~3 M instructions; a NamedTuple's ~0.5 M)
class NewPass(NamedTuple):
    """The current state made by appending one token: its position, and per block whether the new
    position's pass reused the earlier K and V rows from the cache (False: they changed, so a cache
    would have had to compute them again: the mask is off and the block is not the first)."""

    position: int
    reused: tuple[bool, ...]

    def why_not(self, block: int) -> str:
        from tinytui.model.generation import kv_cache  # a new pass's reuse: not loaded to start

        return "" if self.reused[block] else kv_cache.NOT_REUSABLE


def new_pass(session: Session) -> NewPass | None:
    """What the last change was, if it appended one token with nothing else changed; else None."""
    if session.cursor == 0:
        return None
    before, now = session.history[session.cursor - 1], session.state
    grown = len(now.prompt) == len(before.prompt) + 1 and now.prompt[:-1] == before.prompt
    if not grown or now.params is not before.params or now.switches != before.switches:
        return None
    from tinytui.model.generation import kv_cache  # a token appended: the cache's rule

    cfg = session.model.cfg
    first = kv_cache.reusable(cfg, now.switches)
    return NewPass(len(before.prompt), tuple(first or b == 0 for b in range(cfg.n_blocks)))
