"""The names a person reads: one table shared by the transcript, `tinytui print` and its handouts.

tinytui.model.names gives every tensor one internal name ("blocks.0.x_mid", "grad.z"); display() turns it
into what the chapter and the app's tables write: x′, h_pre, MHA, ℓ, ∂L/∂z. cell() names one weight cell
with the axis labels the app's grids use, e.g. W_O[h1.k0, thing], E[a, thing], b_1[unit 3].
"""

from __future__ import annotations

import re
from typing import Any

from tinytui.model import names

# block-local and model-wide names -> what the chapter writes (a name not listed is shown as it is)
DISPLAY = {
    "ids": "id",
    "emb": "E[id]",
    "pe": "PE",
    "x": "x",
    "mask": "mask",
    "ln1.mean": "μ",
    "ln1.var": "σ²",
    "x_norm": "x_n",
    "mha": "MHA",
    "x_mid": "x′",
    "x_mid_norm": "x′_n",
    "hidden_pre": "h_pre",
    "hidden": "hidden",
    "ffn": "FFN",
    "y": "y",
    "z": "z",
    "logits": "ℓ",
    "probs": "p",
    "loss": "L",
    "grad_logits": "∂L/∂ℓ",
    "logits_stepped": "ℓ′",
    "probs_stepped": "p′",
    "loss_stepped": "L′",
    "E.lookup": "E (lookup share)",
    "E.unembed": "E (unembedding share)",
}
PER_HEAD = {"q": "Q", "k": "K", "v": "V", "scores": "S", "attn": "A", "head": "head"}


def display(name: str, n_blocks: int = 1) -> str:
    """How a tensor, weight or gradient is named for people: 'blocks.0.x_mid' -> 'x′',
    'blocks.0.attn.2' -> 'A_2', 'grad.blocks.0.hidden_pre' -> '∂L/∂h_pre'; with several blocks the
    block is added as names.label() adds it: 'x′ (block 2)'."""
    if name.startswith(names.GRAD):
        return "∂L/∂" + display(name[len(names.GRAD) :], n_blocks)
    block, local = names.split(names.canonical(name))
    base, _, head = local.rpartition(".")
    per_head = base in PER_HEAD and head.isdigit()
    shown = f"{PER_HEAD[base]}_{head}" if per_head else DISPLAY.get(local, local)
    if block is None or n_blocks == 1:
        return shown
    return f"{shown} (block {block + 1})"


Axes = tuple[str, tuple[str, ...], tuple[str, ...]]


def param_axes(cfg: Any, name: str, ndim: int, length: int = 0) -> Axes:
    """A weight's table axes as the app's grids label them: (corner, row labels, column labels).
    A per-head weight (ndim 3) has these per head; a vector (ndim 1) has one row, named after it."""
    short = names.split(names.canonical(name))[1]
    if short == "E":
        return "vocab", tuple(cfg.vocab), tuple(cfg.dims)
    if ndim == 3:
        return "dims", tuple(cfg.dims), tuple(cfg.head_dim_labels())
    if ndim == 1:
        cols = cfg.unit_labels() if length == cfg.d_ff else cfg.dims
        return "", (short,), tuple(cols)
    if short == "W_O":
        heads = tuple(f"h{h + 1}.{k}" for h in range(cfg.n_heads) for k in cfg.head_dim_labels())
        return "heads", heads, tuple(cfg.dims)
    if short == "W_1":
        return "dims", tuple(cfg.dims), tuple(cfg.unit_labels())
    if short == "P":  # GPT-2's learned positions: one row per position of the context
        return "positions", tuple(cfg.position_labels()), tuple(cfg.dims)
    if short in ("b_Q", "b_K", "b_V"):  # GPT-2's attention biases: one row per head
        return "heads", tuple(cfg.head_labels()), tuple(cfg.head_dim_labels())
    return "units", tuple(cfg.unit_labels()), tuple(cfg.dims)


def cell(cfg: Any, name: str, index: tuple[int, ...] | list[int], shape: tuple[int, ...]) -> str:
    """One weight cell as the app labels it: 'W_O[h1.k0, thing]', 'W_Q[h2: action, k1]', 'b_1[unit 3]'.
    An index outside the weight's shape falls back to the numbers ('W_O[9,0]')."""
    index = tuple(int(i) for i in index)
    shown = names.label(names.canonical(name), cfg.n_blocks)
    if len(index) != len(shape) or any(not 0 <= i < n for i, n in zip(index, shape)):
        return f"{shown}[{','.join(str(i) for i in index)}]"
    _, rows, cols = param_axes(cfg, name, len(shape), shape[-1] if shape else 0)
    if len(index) == 3:
        h, r, c = index
        where = f"h{h + 1}: {rows[r]}, {cols[c]}"
    elif len(index) == 1:
        where = cols[index[0]]
    else:
        where = f"{rows[index[0]]}, {cols[index[1]]}"
    return f"{shown}[{where}]"


# internal names that prose from the model's tables (the backward rules) may spell out
_IN_PROSE = ("x_mid_norm", "x_mid", "hidden_pre", "mha", "logits_stepped", "probs_stepped", "grad_logits")
_PROSE = re.compile(r"(?<![\w.])(" + "|".join(_IN_PROSE) + r")(?![\w])")


def in_words(text: str) -> str:
    """Text with any internal tensor name in it shown by its display name: '∂L/∂mha' -> '∂L/∂MHA'."""
    return _PROSE.sub(lambda m: DISPLAY[m.group(1)], text)
