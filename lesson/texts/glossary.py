"""The ? screen's glossary and the inspector's word on a label, in the numbers of the model being run.

The glossary is written for the chapter's model (tinytui.tui.controllers.why_controller.GLOSSARY); the
entries that quote a size or a choice of that model (its named dimensions, d_head, the heads, d_ff, the
norm, the positions) are said again here for the model at hand, so woodland's ? screen does not call
its sixteen numbered dimensions "the four named dimensions". The chapter's model gets the chapter's
glossary back unchanged. Terms that stand for a shape of label ("unit 3", "h1, h2, head 1") stay as
they are: the inspector finds an entry by them.
"""

from __future__ import annotations

from collections.abc import Sequence

from tinytui.lesson.texts.wording import NUMBERED, in_words
from tinytui.model.config import ModelConfig

DIMS_TERM = "thing action quantifier wood"  # the chapter's term for its named dimensions
SWITCHES_TERM = "mask on/off, PE on/off"  # the status line's switches


def dims_term(cfg: ModelConfig) -> str:
    """How the glossary names the model's dimensions: all of them when few, else the first and last."""
    dims = list(cfg.dims)
    return " ".join(dims) if len(dims) <= 6 else f"{dims[0]} … {dims[-1]}"


def for_model(glossary: Sequence[tuple[str, str]], cfg: ModelConfig) -> tuple[tuple[str, str], ...]:
    """The glossary with every entry that quotes the chapter's sizes said for this model."""
    d, dh, heads = cfg.d_model, cfg.d_head, cfg.n_heads
    named = not all(NUMBERED.match(x) for x in cfg.dims)
    kind = "named" if named else "numbered"
    dims = f"the {in_words(d)} {kind} dimensions of every vector (d_model = {d})"
    if not named:
        dims += ": a column's number says nothing of what it holds"
    if cfg.n_kv_heads != heads:
        each = f"each reads its own q, and k and v from one of {in_words(cfg.n_kv_heads)} key/value heads"
    else:
        each = "each reads its own q, k and v"
    who = "the single attention head" if heads == 1 else f"the {in_words(heads)} attention heads"
    rows = "a column of W_gate and W_up, a row of W_down" if cfg.gated else "a column of W_1, a row of W_2"
    if cfg.norm == "rms":
        norm = "a row after RMSNorm: divided by its root mean square, no mean taken away"
        norm += ", then scaled by its gain" if cfg.norm_affine else ""
    else:
        norm = "a row after layer norm: mean 0, variance 1 across the dimensions"
        norm += ", then scaled by its gain and shifted by its bias" if cfg.norm_affine else ""
    positions = {
        "rope": "a token's embedding row, PE (all zeros: RoPE turns q and k instead), and x = E[id]",
        "none": "a token's embedding row, PE (all zeros: no positions), and x = E[id]",
        "learned": "a token's embedding row, its position's row of the learned table P, and their sum "
        "x = E[id] + PE",
    }
    rows_of = (
        "each query head's q rows and each key/value head's k and v rows"
        if cfg.n_kv_heads != heads
        else "each head's q, k and v rows"
    )
    said = {
        DIMS_TERM: dims,
        "k0, k1": f"a head's own dimensions: {rows_of} have d_head = {dh} of them",
        "h1, h2, head 1": f"{who}; {each}" if heads > 1 else f"{who}; it reads its own q, k and v",
        "unit 3": f"one of the feed-forward layer's d_ff = {cfg.d_ff} hidden units ({rows})",
        "x_n, x′_n": norm,
    }
    if cfg.positions in positions:
        said["E[id], PE, x"] = positions[cfg.positions]
    renamed = {}
    if cfg.positions == "rope":  # the status line names the positions switch RoPE (status_words)
        renamed[SWITCHES_TERM] = "mask on/off, RoPE on/off"
        said[SWITCHES_TERM] = (
            "the causal mask, the rotary positions (q and k turned): each can be switched off (m, o)"
        )
    out = []
    for term, meaning in glossary:
        shown = dims_term(cfg) if term == DIMS_TERM else renamed.get(term, term)
        out.append((shown, said.get(term, meaning)))
    return tuple(out)
