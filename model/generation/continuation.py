"""Appending N tokens to a prompt, one at a time: each chosen by sampling.pick from the logits at the
last position, each new position run with the KV cache (kv_cache.extend) when it holds, else by a
full recompute. Stops early, with one line saying why, at the model's context length."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tinytui.model.generation import kv_cache
from tinytui.model.generation.sampling import Pick, Sampling, pick
from tinytui.model.params import Params
from tinytui.model.switches import Switches
from tinytui.model.trace import run

MAX_TOKENS = 1024  # the largest context a model file or checkpoint may have


@dataclass(frozen=True)
class Continuation:
    """The prompt, the new tokens in order (each with the Pick that chose it), whether the KV cache
    was used, and why it stopped before N tokens (one line), if it did."""

    prompt: tuple[str, ...]
    tokens: tuple[str, ...]
    picks: tuple[Pick, ...]
    cached: bool
    stopped: str | None = None


def context_full(n_ctx: int, made: int) -> str:
    """The line said when the context is full."""
    return (
        f"stopped after {made} new token{'s' if made != 1 else ''}: the sequence fills the model's "
        f"context of {n_ctx} positions"
    )


def generate(
    params: Params,
    prompt: Sequence[str],
    target: str,
    switches: Switches,
    n: int,
    sampling: Sampling,
    use_cache: bool = True,
) -> Continuation:
    """n new tokens after prompt (0 ≤ n ≤ MAX_TOKENS). use_cache=False recomputes the whole sequence for
    every token (what the cache must equal); the cache is also left out when it does not hold."""
    if not 0 <= n <= MAX_TOKENS:
        raise ValueError(f"{n} tokens: ask for 0 to {MAX_TOKENS}")
    cfg = params.cfg
    seq = list(prompt)
    cached = use_cache and kv_cache.reusable(cfg, switches)
    trace = run(params, seq, target, switches)
    logits, cache = trace["logits"], kv_cache.from_trace(trace, room=n)  # room for every new row
    tokens: list[str] = []
    picks: list[Pick] = []
    stopped = None
    for i in range(n):
        if len(seq) >= cfg.n_ctx:
            stopped = context_full(cfg.n_ctx, len(tokens))
            break
        chosen = pick(logits, sampling, len(seq))
        token = cfg.vocab[chosen.token]
        seq.append(token)
        tokens.append(token)
        picks.append(chosen)
        if i == n - 1 or len(seq) >= cfg.n_ctx:
            continue  # the next position's logits are not needed (or do not exist)
        if cached:
            new = kv_cache.extend(params, cache, token, switches)
            logits, cache = new.logits, new.cache
        else:
            logits = run(params, seq, target, switches)["logits"]
    return Continuation(tuple(prompt), tuple(tokens), tuple(picks), cached, stopped)
