"""Small helpers the step texts share: numbers as the app prints them, counts in words, lists, the
block-0 tensors a one-block text reads."""

from __future__ import annotations

import re

import numpy as np

from tinytui.model.config import ModelConfig
from tinytui.model.names import prefix
from tinytui.model.trace import Trace

SAME = 1e-9  # two values closer than this are "the same" (a tie, a copied column)

WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven")
NUMBERED = re.compile(r"^[A-Za-z_]{0,3}\d+$")  # generic axis labels such as d0, dim3, t12


def num(x: float) -> str:
    s = f"{x:.4f}"
    return "0.0000" if s == "-0.0000" else s


def about(x: float) -> str:
    """A rounded figure for prose ('about 1.5', 'to 3.25'): two decimals, trailing zeros dropped."""
    s = f"{round(float(x), 2):.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def quoted(token: str) -> str:
    """A token as the prose names it, in quotes, so that 'a' or 'is' is not read as an English word
    ('is'; a token with an apostrophe in it goes in double quotes: "'s")."""
    return f"'{token}'" if "'" not in token else f'"{token}"'


def at(prompt, j: int, where: str = "at position") -> str:
    """Position j's token as the prose names it: quoted, and with its position when the token stands at
    more than one place in the prompt ("'a' at position 1"), as the tables' 1:a does, so a sentence about
    "a a a a" says which 'a' it means. where: the words before the number ("at" in a list of facts)."""
    token = prompt[j]
    said = quoted(token)
    return f"{said} {where} {j}" if list(prompt).count(token) > 1 else said


def in_words(k: int) -> str:
    return WORDS[k] if 0 <= k < len(WORDS) else f"{k:,}"  # 50,257 as the count tables write it


def tops_as_shown(values, shown=num) -> list[int]:
    """The indices of every value that reads as the largest does, at the precision it is shown with
    (`shown`): two sizes both printed 1.12 are a tie to the reader, however they differ further down."""
    vals = [float(v) for v in values]
    if not vals:
        return []
    top = shown(max(vals))
    return [i for i, v in enumerate(vals) if shown(v) == top]


def kv_sharing(cfg: ModelConfig) -> str:
    """' over 2 key/value heads' when the query heads share them (grouped-query attention), else ''."""
    if cfg.n_kv_heads == cfg.n_heads:
        return ""
    return f" over {cfg.n_kv_heads} key/value head{'s' if cfg.n_kv_heads != 1 else ''}"


def listed(items: list[str]) -> str:
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def block_tensor(trace: Trace, local: str, block: int = 0) -> np.ndarray:
    return trace[prefix(block) + local]


def first_block(trace: Trace) -> str:
    """How to name 'the block' the numbers come from: the only one, the first of several, or the block a
    block step's text is about (steps.focus gives such a trace its block)."""
    if trace.cfg.n_blocks == 1:
        return "the block"
    block = getattr(trace, "block", None)
    return "the first block" if block is None else f"block {block + 1}"


def sentences(*sentences: str) -> str:
    return " ".join(s for s in sentences if s)


def tied_groups(logits: np.ndarray) -> list[list[int]]:
    """The ids of tokens with exactly the same logit, a group for each value shared by several, in the
    order of each group's first token. One sort, not a comparison of every pair (50,257 tokens are 1.3
    billion pairs); NaN ties nothing, and −0.0 ties 0.0, as == has it."""
    _, first, inverse, counts = np.unique(
        logits, return_index=True, return_inverse=True, return_counts=True, equal_nan=False
    )
    shared = sorted((first[u], u) for u in np.flatnonzero(counts > 1))
    return [np.flatnonzero(inverse == u).tolist() for _, u in shared]


# ---- 1–4: from words to vectors -------------------------------------------------------------------
