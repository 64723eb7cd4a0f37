"""What decided a next token when the numbers on screen do not: a tie.

Greedy takes the most likely token; when two or more share the largest logit it takes the lowest id
(tinytui.model.generation.sampling), and when the runner-up's p prints the same to 4 decimals the
reader cannot see why it lost. A top-k cut through tokens of one logit keeps the lower ids. Each case is
said in one sentence, for `tinytui generate` and the next-token table at step 14.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tinytui.model.generation import sampling
from tinytui.report.print_window import quoted_names


@dataclass(frozen=True)
class PickTie:
    """A tie that decided a pick: a few words for a table's title, and the sentence that says it all."""

    short: str  # "tie: lower id"
    said: str  # "'wood' and 'woodchuck' share the largest logit, 1.0648; greedy takes the lowest id, 'wood'"
    ids: tuple[int, ...]  # the tokens of the tie, picked or not


def pick_tie(chosen: sampling.Pick, vocab) -> PickTie | None:
    """What decided a pick that the numbers alone do not (None when they do): greedy's pick among tokens
    of the same largest logit, or over a runner-up whose p prints the same; a top-k cut that keeps some
    tokens of one logit and drops others."""
    s, token = chosen.sampling, chosen.token
    logits = chosen.logits
    if s.greedy:
        first = sampling.tied_for_first(logits)
        if len(first) > 1:
            return PickTie(
                "tie: lower id",
                f"{quoted_names(first, vocab)} share the largest logit, {logits[token]:.4f}; greedy takes "
                f"the lowest id, {vocab[token]!r}",
                first,
            )
        if len(logits) < 2:
            return None
        rest = np.where(np.arange(len(logits)) == token, -np.inf, logits)
        second = int(np.argmax(rest))
        p, q = f"{chosen.before[token]:.4f}", f"{chosen.before[second]:.4f}"
        if p != q:
            return None
        return PickTie(
            "p alike, ℓ larger",
            f"{vocab[token]!r} and {vocab[second]!r} both print p = {p}, but {vocab[token]!r}'s logit is "
            f"larger (by {logits[token] - logits[second]:.1e}), so greedy takes it",
            (token, second),
        )
    if s.top_k is None:
        return None
    kept, left = sampling.cut_tie(logits, s.top_k)
    if not left:
        return None
    return PickTie(
        f"top-k {s.top_k} split a tie",
        f"top-k {s.top_k} splits a tie at logit {logits[kept[0]]:.4f}: it keeps {quoted_names(kept, vocab)} "
        f"and drops {quoted_names(left, vocab)} (of equal logits, the lower id is kept)",
        (*kept, *left),
    )
