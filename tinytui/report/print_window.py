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


DECIMALS = 4  # every list of probabilities writes them so (tables.fmt): "prints the same" means at 4 decimals
NAMED = 3  # a tie note names this many tokens left out, then counts the rest


@dataclass(frozen=True)
class Ranked:
    """A list of the k most likely tokens as it is shown, and the tokens it leaves out that a reader could
    not tell from its last one: exactly as likely (the list kept the lower id), or less likely by less
    than the printed digits show."""

    ids: tuple[int, ...]  # most likely first; equal ones by id
    tied: tuple[int, ...] = ()  # left out, exactly as likely as the last one shown
    alike: tuple[int, ...] = ()  # left out, less likely than the last one shown but printed the same

    @property
    def cut_a_tie(self) -> bool:
        """Whether the list's cut leaves out a token that reads as likely as its last one."""
        return bool(self.tied or self.alike)

    def shown_too(self, ids) -> Ranked:
        """This list when the tokens ids are shown anyway (the target, below the list): they are no
        longer left out."""
        also = {int(i) for i in ids}
        tied = tuple(i for i in self.tied if i not in also)
        return Ranked(self.ids, tied, tuple(i for i in self.alike if i not in also))

    def mark(self, vocab) -> str:
        """The short note after the last token shown: 'ties much' (left out, exactly as likely), 'much
        prints the same' (left out, a little less likely), 'ties much, would, how +3'; '' when neither."""
        parts = []
        if self.tied:
            parts.append(f"ties {_listed(self.tied, vocab)}")
        if self.alike:
            parts.append(f"{_listed(self.alike, vocab)} print{'s' if len(self.alike) == 1 else ''} the same")
        return "; ".join(parts)

    def signs(self, vocab) -> str:
        """The mark at its shortest, beside the last one shown: '= much' (exactly as likely), '≈ much'
        (printed the same), '= much, would +3'; '' when neither."""
        kinds = (("=", self.tied), ("≈", self.alike))
        return " ".join(f"{sign} {_listed(ids, vocab)}" for sign, ids in kinds if ids)

    def note(self, vocab) -> str:
        """The mark as a line of its own, naming the last token shown: 'how ties much', 'much prints the
        same as how'; '' when the cut leaves no such token out."""
        if not self.cut_a_tie:
            return ""
        last = vocab[self.ids[-1]]
        parts = []
        if self.tied:
            parts.append(f"{last} ties {_listed(self.tied, vocab)}")
        if self.alike:
            parts.append(
                f"{_listed(self.alike, vocab)} print{'s' if len(self.alike) == 1 else ''} the same as {last}"
            )
        return "; ".join(parts)

    def sentence(self, vocab, probs) -> str:
        """The same in words, with the value: "'how' ties 'much' at 0.0742, left out: of equal ones a
        list keeps the lower id" ('' when the cut leaves no such token out)."""
        last = self.ids[-1] if self.ids else None
        if last is None or not self.cut_a_tie:
            return ""
        value = f"{float(probs[last]):.{DECIMALS}f}"
        said = []
        if self.tied:
            said.append(
                f"{vocab[last]!r} ties {quoted_names(self.tied, vocab)} at {value}, left out: of equal ones "
                "a list keeps the lower id"
            )
        if self.alike:
            one = len(self.alike) == 1
            said.append(
                f"{quoted_names(self.alike, vocab)}, left out, also print{'s' if one else ''} as {value} but "
                f"{'is' if one else 'are'} a little less likely than {vocab[last]!r}"
            )
        return "; ".join(said)

    def among_others(self, vocab, probs) -> str:
        """The same for the line that stands for the tokens left out: "among them 'much' ties 'how'
        exactly", "among them 48 also print 0.0004, below 't26147'" ('' when none)."""
        if not self.cut_a_tie:
            return ""
        last = vocab[self.ids[-1]]
        value = f"{float(probs[self.ids[-1]]):.{DECIMALS}f}"
        said = []
        for ids, exact in ((self.tied, True), (self.alike, False)):
            if not ids:
                continue
            who = quoted_names(ids, vocab) if len(ids) <= NAMED else f"{len(ids):,}"
            one = len(ids) == 1
            if exact:
                said.append(f"among them {who} tie{'s' if one else ''} {last!r} exactly")
            else:
                said.append(f"among them {who} also print{'s' if one else ''} {value}, below {last!r}")
        return "; ".join(said)


def tie_legend(lists) -> str:
    """What the lines under these lists mean (Ranked.note), for the kinds they hold ('' when none does)."""
    said = []
    if any(r.tied for r in lists):
        said.append(
            "'A ties B': B is exactly as likely as A, the last one listed, and is left out (of equal "
            "probabilities a list keeps the lower id)."
        )
    if any(r.alike for r in lists):
        said.append(
            f"'B prints the same as A': B, left out, shows the same {DECIMALS} decimals as A but is a "
            "little less likely."
        )
    return " ".join(said)


def _listed(ids: tuple[int, ...], vocab) -> str:
    more = f" +{len(ids) - NAMED:,}" if len(ids) > NAMED else ""
    return ", ".join(vocab[i] for i in ids[:NAMED]) + more


def quoted_names(ids: tuple[int, ...], vocab) -> str:
    """ "'much'", "'how' and 'much'", "'a', 'how', 'much' and 3 more"."""
    named = [repr(vocab[i]) for i in ids[:NAMED]]
    if len(ids) > NAMED:
        return f"{', '.join(named)} and {len(ids) - NAMED:,} more"
    return named[0] if len(named) == 1 else f"{', '.join(named[:-1])} and {named[-1]}"


def ranked(probs: np.ndarray, k: int) -> Ranked:
    """most_likely's k tokens, with the tokens left out that tie the last one shown, exactly or as printed
    (to DECIMALS places). Two values written alike differ by less than one unit of the last place, so only
    tokens that close to the cut are written out to compare (a 50,257-token vocabulary is not)."""
    p = np.asarray(probs, dtype=float)
    ids = most_likely(p, k)
    if not 0 < len(ids) < p.size:
        return Ranked(tuple(int(i) for i in ids))
    last = p[ids[-1]]
    close = np.flatnonzero(p > last - 10.0**-DECIMALS)
    close = close[~np.isin(close, ids)]
    tied = close[p[close] == last]
    below = close[p[close] < last]
    # written alike: within half a unit of the last place of the written value; only a value at the very
    # edge of that is written out to see which way it rounds
    written = f"{last:.{DECIMALS}f}"
    off = np.abs(p[below] - float(written)) / (0.5 * 10.0**-DECIMALS)
    edge = [int(i) for i in below[np.abs(off - 1) <= 1e-6] if f"{p[i]:.{DECIMALS}f}" == written]
    alike = [*(int(i) for i in below[off < 1 - 1e-6]), *edge]
    alike.sort(key=lambda i: (-p[i], i))  # most likely first, as the list would have gone on
    return Ranked(tuple(int(i) for i in ids), tuple(int(i) for i in tied), tuple(alike))


@dataclass(frozen=True)
class Picks:
    """The vocabulary entries a run's big tables keep: E's rows (the prompt's ids, then the target's),
    and the tokens a vector over the vocabulary keeps (the most likely, then the target)."""

    rows: tuple[int, ...]  # the prompt's ids in order (each once), then the target's
    top: tuple[int, ...]  # the TOP most likely, most likely first, then the target if not among them
    n_tokens: int  # the prompt's length (an axis of positions keeps that many)
    tie: str = ""  # "the 10th ties t44": tokens left out that read as likely as the TOP-th; '' when none


def picks_of(trace) -> Picks:
    """A run's Picks, from its ids, probabilities and target (argpartition: 50,257 tokens, one pass)."""
    vocab = trace.cfg.vocab
    target = [trace.cfg.token_id(trace.target)] if trace.target in vocab else []
    rows = tuple(dict.fromkeys([*(int(i) for i in trace["ids"]), *target]))
    best = ranked(trace["probs"], TOP).shown_too(target)  # by probability, equal ones by id
    top = tuple(dict.fromkeys([*best.ids, *target]))
    # the window cuts tables of ℓ, p and ∂L/∂ℓ alike, each written with its own digits: only an exact tie
    # is the same in all of them
    tie = f"the {TOP}th ties {_listed(best.tied, vocab)}" if best.tied else ""
    return Picks(rows, top, len(trace.prompt), tie)


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
        tie = f" ({picks.tie}, left out)" if picks.tie else ""
        return np.array(picks.top, dtype=int), f"the {TOP} most likely{tie}" + (
            ", the target among them" if among else " and the target"
        )
    if axis in PROMPT_AXES:
        return np.arange(min(n, picks.n_tokens, ROWS)), ""
    return np.arange(min(n, ROWS if axis in PROMPT_AXES else EDGE)), ""
