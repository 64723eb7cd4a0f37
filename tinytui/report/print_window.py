"""Which part of a big table a printed report shows: `tinytui print`, handouts and transcripts at GPT-2 size.

Pure numpy, no drawing (step_report.py builds the tables, render.py draws them). A table of at most CELLS
cells and COLS_WHOLE columns is shown whole, as it always was: every table of the chapter's model and
the presets is (of the tiny checkpoint, all but its vectors of 360 logits). A bigger one (GPT-2's E is
50,257 × 768, its logits 50,257 long, a block's W_1 768 × 3,072) is shown as a window, and its note
says honestly how much is left out and where all of it is (`tinytui trace --only NAME`):

- a vocabulary axis keeps the tokens a reader asks about: E's rows are the prompt's tokens and the
  target (and at a step that shows the logits, the most likely tokens too); a vector over the
  vocabulary (ℓ, p, ∂L/∂ℓ) keeps the TOP most likely tokens and the target;
- an axis of the prompt (tokens, queries, keys, P's positions) keeps the prompt's positions, up to ROWS;
- any other axis its first EDGE entries.

Only the kept cells are ever formatted: a window of E is ~10 × 16 numbers, not 38 million.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CELLS = 16_384  # the app's tables use the same bound (widgets/windows.py): every model before GPT-2 fits
COLS_WHOLE = 256  # and at most this many columns (a d 64 preset's hidden layer has 256 units)
ROWS = 64  # rows of the prompt kept at most
EDGE = 16  # a plain axis: its first EDGE entries (16 columns of numbers fit a wide terminal)
TOP = 10  # a vector over the vocabulary: its most likely tokens (the target comes on top)
PROMPT_AXES = ("tokens", "queries", "keys", "positions")


def most_likely(probs: np.ndarray, k: int) -> np.ndarray:
    """The ids of the k most likely tokens, most likely first (equal probabilities: the lower id first)."""
    p = np.asarray(probs, dtype=float)
    k = max(0, min(k, p.size))
    if k == 0:
        return np.zeros(0, dtype=int)
    # every token at least as likely as the k-th: argpartition alone would split a tie at the edge anyhow
    picked = np.arange(p.size) if k == p.size else np.flatnonzero(p >= -np.partition(-p, k - 1)[k - 1])
    return picked[np.lexsort((picked, -p[picked]))][:k]


@dataclass(frozen=True)
class Picks:
    """The vocabulary entries a run's big tables keep: E's rows (the prompt's ids, then the target's),
    and the tokens a vector over the vocabulary keeps (the most likely, then the target)."""

    rows: tuple[int, ...]  # the prompt's ids in order (each once), then the target's
    top: tuple[int, ...]  # the TOP most likely, most likely first, then the target if not among them
    n_tokens: int  # the prompt's length (an axis of positions keeps that many)


def picks_of(trace) -> Picks:
    """A run's Picks, from its ids, probabilities and target (argpartition: 50,257 tokens, one pass)."""
    vocab = trace.cfg.vocab
    target = [trace.cfg.token_id(trace.target)] if trace.target in vocab else []
    rows = tuple(dict.fromkeys([*(int(i) for i in trace["ids"]), *target]))
    best = most_likely(trace["probs"], TOP)  # by probability, equal ones by id
    top = tuple(dict.fromkeys([*(int(i) for i in best), *target]))
    return Picks(rows, top, len(trace.prompt))


@dataclass(frozen=True)
class Cut:
    """The kept rows and columns of a table (true indices, in the order shown), and what they are."""

    rows: np.ndarray
    cols: np.ndarray
    n_rows: int
    n_cols: int
    rows_are: str = ""  # "the prompt's tokens and the target"; "": the first ones
    cols_are: str = ""

    def caption(self) -> str:
        """What the window shows, for the table's title: '9 of 50,257 rows (the prompt's tokens and the
        target) · columns 0–15 of 768'; an axis kept whole is not mentioned."""
        parts = [_axis(self.rows, self.n_rows, "rows", self.rows_are)]
        parts.append(_axis(self.cols, self.n_cols, "columns", self.cols_are))
        return " · ".join(p for p in parts if p)

    def note(self, name: str) -> str:
        """The honest line under the table: '… 50,242 more rows and 752 more columns not shown (all of it,
        50,257 × 768: tinytui trace --only E)'; '… 50,246 more columns not shown (all 50,257: …)'."""
        rest = [
            f"{n - len(kept):,} more {noun}"
            for kept, n, noun in ((self.rows, self.n_rows, "rows"), (self.cols, self.n_cols, "columns"))
            if n > len(kept)
        ]
        shape = f"{self.n_rows:,} × {self.n_cols:,}"
        whole = f"all {self.n_cols:,}" if self.n_rows == 1 else f"all of it, {shape}"
        return f"… {' and '.join(rest)} not shown ({whole}: tinytui trace --only {name})"


def _axis(kept: np.ndarray, n: int, noun: str, what: str) -> str:
    if len(kept) == n:
        return ""
    if what:
        return f"{len(kept):,} of {n:,} {noun} ({what})"
    return f"{noun} {kept[0]}–{kept[-1]} of {n:,}"


def cut(
    n_rows: int, n_cols: int, row_axis: str, col_axis: str, picks: Picks | None, logits_rows: bool = False
) -> Cut | None:
    """The window of a table with these axes (None: shown whole; always so without picks, which is how
    the app asks: its grids window big tables themselves, widgets/windows.py). logits_rows: a vocabulary
    axis of rows (E's) keeps the most likely tokens too, as at the step that shows the logits."""
    if picks is None or (n_rows * n_cols <= CELLS and n_cols <= COLS_WHOLE):
        return None
    rows, rows_are = _kept(n_rows, row_axis, picks, logits_rows, is_rows=True)
    cols, cols_are = _kept(n_cols, col_axis, picks, False, is_rows=False)
    return Cut(rows, cols, n_rows, n_cols, rows_are, cols_are)


def _kept(n: int, axis: str, picks: Picks, logits_rows: bool, is_rows: bool) -> tuple[np.ndarray, str]:
    if n == 1:
        return np.zeros(1, dtype=int), ""
    if axis == "vocab":
        if is_rows:  # E's rows: what steps 2 and 14 read
            ids = picks.rows + (picks.top if logits_rows else ())
            what = "prompt, target, top logits" if logits_rows else "the prompt's tokens and the target"
            return np.array(list(dict.fromkeys(ids))[:ROWS], dtype=int), what
        among = len(picks.top) <= TOP  # the target is one of the most likely
        return np.array(picks.top, dtype=int), f"the {TOP} most likely" + (
            ", the target among them" if among else " and the target"
        )
    if axis in PROMPT_AXES:
        return np.arange(min(n, picks.n_tokens, ROWS)), ""
    return np.arange(min(n, ROWS if axis in PROMPT_AXES else EDGE)), ""
