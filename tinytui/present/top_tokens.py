"""Which vocabulary tokens a probability list shows: all of a short vocabulary, the most likely of a long one.

Pure numpy (no Textual). A vocabulary of 50,257 tokens is never turned into 50,257 rows: argpartition finds
the few most likely in one pass, and only those are sorted. The target is always shown (after the top ones
when it is not among them), and what is left out is summed up in one line: how many, and their total
probability, so the bars still account for all of p.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

LONG_VOCAB = 16  # a vocabulary longer than this shows its most likely tokens only
TOP = 10  # how many of them (the target comes on top of these when it is not among them)


@dataclass(frozen=True)
class Shown:
    """Which tokens a probability list shows, in the order shown, and how many are left out with their
    probability together."""

    ids: tuple[int, ...]  # the token ids shown, in the order shown
    ranked: bool  # by probability (a long vocabulary), else in vocabulary order
    others: int  # tokens left out
    others_p: float  # their probability together
    tie: str = ""  # tokens left out that read as likely as the last one ranked (Ranked.among_others), or ''

    def line(self) -> str:
        """The line that stands for the tokens left out ('' when none is), saying so when some of them
        read as likely as the last one ranked."""
        if not self.others:
            return ""
        noun = "token" if self.others == 1 else "tokens"
        tie = f" · {self.tie}" if self.tie else ""
        return f"⋯ {self.others:,} other {noun}, together p = {self.others_p:.4f}{tie}"


def shown_tokens(
    probs: np.ndarray, target: int | None, limit: int = LONG_VOCAB, top: int = TOP, vocab=None
) -> Shown:
    """All tokens when there are at most `limit`; else the `top` most likely, then the target if it is not
    one of them, and how many are left out with their total probability; given the vocabulary, what it
    says of tokens left out that read as likely as the last one ranked."""
    from tinytui.report.print_window import ranked  # one way of picking the top tokens, shared

    p = np.asarray(probs, dtype=float)
    if p.size <= limit:
        return Shown(tuple(range(p.size)), False, 0, 0.0)
    best = ranked(p, top)
    ids = list(best.ids)
    if target is not None and target not in ids:
        ids.append(int(target))
        best = best.shown_too([target])
    rest = float(p.sum() - p[ids].sum())
    tie = best.among_others(vocab, p) if vocab is not None else ""
    return Shown(tuple(ids), True, p.size - len(ids), max(0.0, rest), tie)
