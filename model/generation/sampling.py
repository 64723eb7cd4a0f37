"""Choosing the next token from the logits: greedy, or drawn with temperature, top-k and top-p.

The order is the one Hugging Face's generate() applies: the logits are divided by the temperature,
then only the k most likely tokens are kept (top-k), then only the smallest set of the most likely
whose probabilities add up to at least p (top-p, "nucleus"); what is kept is renormalised. Ties in
likelihood are broken by the lower token id. Temperature 0 means greedy: the most likely token, no
draw.

The randomness is one named generator, numpy.random.Generator(PCG64(seed)), never numpy's global
state. The token placed at position p (0-based, in the whole sequence) uses the number at index p of
that generator's stream of uniform numbers in [0, 1) (Generator.random). So generating three tokens
and then two more gives the same five as generating five at once, and undoing an appended token and
appending again draws the same number. PCG64 and Generator.random are integer arithmetic, the same on
every machine: the draw u is bit for bit the same everywhere. The draw decides: walking the kept
distribution in vocabulary order, the token is the first whose running total exceeds u × the total.
Only if u fell within a rounding error (~1e-16) of a boundary between two tokens could a machine whose
exp() rounds differently pick the neighbour; the tests compare the chosen tokens exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tinytui.model import checks, ops

MAX_SEED = 2**63 - 1


@dataclass(frozen=True)
class Sampling:
    """How the next token is chosen. temperature 0: greedy. top_k None: every token; top_p 1: all."""

    temperature: float = 0.0
    top_k: int | None = None
    top_p: float = 1.0
    seed: int = 0

    @property
    def greedy(self) -> bool:
        return self.temperature == 0.0

    def describe(self) -> str:
        """One short line: 'greedy', or 'T 0.8 · top-k 5 · top-p 0.9 · seed 1'."""
        if self.greedy:
            return "greedy"
        parts = [f"T {self.temperature:g}"]
        if self.top_k is not None:
            parts.append(f"top-k {self.top_k}")
        if self.top_p < 1.0:
            parts.append(f"top-p {self.top_p:g}")
        return " · ".join([*parts, f"seed {self.seed}"])


def temperature(value: object) -> float:
    """A temperature as typed or given: a finite number ≥ 0 (0 = greedy)."""
    t = _number(value, "temperature")
    if t < 0:
        raise checks.Invalid(f"temperature {t:g} is below 0 (0 is greedy; 0.7, 1 or 1.5 sample)")
    return t


def top_k(value: object, n_vocab: int) -> int | None:
    """A top-k: a whole number from 1 to the vocabulary's size; None keeps every token."""
    if value is None:
        return None
    k = _whole(value, "top-k")
    if not 1 <= k <= n_vocab:
        raise checks.Invalid(f"top-k {k} is outside 1–{n_vocab} (the vocabulary has {n_vocab} tokens)")
    return k


def top_p(value: object) -> float:
    """A top-p: a number in (0, 1]; 1 keeps every token."""
    p = _number(value, "top-p")
    if not 0 < p <= 1:
        raise checks.Invalid(f"top-p {p:g} is outside (0, 1]: 0.9 keeps the likeliest tokens up to 90%")
    return p


def seed(value: object) -> int:
    """A seed: a whole number from 0 to 2⁶³ − 1."""
    s = _whole(value, "seed")
    if not 0 <= s <= MAX_SEED:
        raise checks.Invalid(f"seed {s} is outside 0–{MAX_SEED}")
    return s


def checked(
    temperature_: object = 0.0,
    top_k_: object = None,
    top_p_: object = 1.0,
    seed_: object = 0,
    *,
    n_vocab: int,
) -> Sampling:
    """Sampling from values as typed or given, each checked; Invalid (one line) for the first bad one."""
    return Sampling(temperature(temperature_), top_k(top_k_, n_vocab), top_p(top_p_), seed(seed_))


def _number(value: object, what: str) -> float:
    if isinstance(value, str):
        try:
            return checks.number(value)
        except checks.Invalid as exc:
            raise checks.Invalid(f"{what}: {exc}") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise checks.Invalid(f"{what}: {value!r} is not a finite number")
    return float(value)


def _whole(value: object, what: str) -> int:
    if isinstance(value, str):
        text = value.strip()
        if not text.lstrip("+-").isdigit() or len(text) > 30:
            raise checks.Invalid(f"{what}: {checks.shown(text)} is not a whole number")
        return int(text)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise checks.Invalid(f"{what}: {value!r} is not a whole number")
    return int(value)


def uniform(seed_: int, position: int) -> float:
    """The number at index `position` of Generator(PCG64(seed))'s stream of uniforms in [0, 1)."""
    from numpy.random import PCG64, Generator  # only a draw needs it: a session starts greedy

    return float(Generator(PCG64(seed_)).random(position + 1)[position])


def order(logits: np.ndarray) -> np.ndarray:
    """Token ids from the most likely to the least; equal logits in id order."""
    return np.argsort(-np.asarray(logits), kind="stable")


def most_likely(logits: np.ndarray) -> int:
    """order(logits)[0] without sorting the rest: the first id of the largest logit."""
    return int(np.argmax(logits))


def tied_for_first(logits: np.ndarray) -> tuple[int, ...]:
    """Every token whose logit is the largest, the lowest id first. Two or more: a tie, and greedy's pick
    (the first of them) was decided by the id, not by the model."""
    logits = np.asarray(logits)
    return tuple(int(i) for i in np.flatnonzero(logits == logits.max()))


def cut_tie(logits: np.ndarray, k: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A top-k cut through equal logits: the kept and the left-out tokens whose logit equals the k-th
    most likely's ((), () when the cut falls between two different logits or keeps every token)."""
    logits = np.asarray(logits)
    if not 0 < k < len(logits):
        return (), ()
    ranked = order(logits)
    edge = logits[ranked[k - 1]]
    if logits[ranked[k]] != edge:
        return (), ()
    kept, rest = ranked[:k], ranked[k:]
    return tuple(kept[logits[kept] == edge].tolist()), tuple(rest[logits[rest] == edge].tolist())


def distribution(logits: np.ndarray, s: Sampling) -> np.ndarray:
    """The distribution the token is drawn from (V,), in vocabulary order: temperature, then top-k,
    then top-p, renormalised; greedy puts all of it on the most likely token."""
    logits = np.asarray(logits, dtype=np.float64)
    if s.greedy:
        out = np.zeros_like(logits)
        out[most_likely(logits)] = 1.0
        return out
    ranked = order(logits)
    with np.errstate(over="ignore"):  # a tiny temperature: every other token underflows to exactly 0
        scaled = (logits - logits.max()) / s.temperature
    probs = ops.softmax(scaled)
    keep = np.ones(len(logits), dtype=bool)
    if s.top_k is not None:
        keep[ranked[s.top_k :]] = False
        probs = _renormalised(probs, keep)
    if s.top_p < 1.0:
        kept = ranked[keep[ranked]]  # the kept tokens, most likely first
        running = np.cumsum(probs[kept])
        n = min(int(np.searchsorted(running, s.top_p, side="left")) + 1, len(kept))
        keep[kept[n:]] = False
        probs = _renormalised(probs, keep)
    return probs


def _renormalised(probs: np.ndarray, keep: np.ndarray) -> np.ndarray:
    kept = np.where(keep, probs, 0.0)
    return kept / kept.sum()


def draw_token(probs: np.ndarray, u: float) -> int:
    """The first token, in vocabulary order, whose running total of probs exceeds u × the total."""
    running = np.cumsum(probs)
    return int(np.searchsorted(running, u * running[-1], side="right"))


@dataclass(frozen=True)
class Pick:
    """One token chosen: where it goes, the logits (before anything), the softmax of them, the
    distribution drawn from (after temperature, top-k, top-p), the uniform number used (None when
    greedy) and the token's id."""

    position: int
    logits: np.ndarray
    before: np.ndarray
    probs: np.ndarray
    draw: float | None
    token: int
    sampling: Sampling


def pick(logits: np.ndarray, s: Sampling, position: int) -> Pick:
    """Choose the token for `position` from the logits of the position before it."""
    logits = np.array(logits, dtype=np.float64)  # a copy: it is frozen below
    probs = distribution(logits, s)
    if s.greedy:
        u, token = None, most_likely(logits)
    else:
        u = uniform(s.seed, position)
        token = draw_token(probs, u)
    for arr in (logits, probs):
        arr.setflags(write=False)
    before = ops.softmax(logits)
    before.setflags(write=False)
    return Pick(position, logits, before, probs, u, token, s)
