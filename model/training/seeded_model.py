"""A new model with seeded random weights, of any size within model files' bounds (tinytui new).

Initialisation: every weight matrix is drawn from N(0, 1/fan_in) (LeCun normal: standard deviation
1/√fan_in, fan_in the number of inputs summed into each output), and the biases b_1, b_2 are zero. Why
not GPT-2's N(0, 0.02): that scale is tuned for d_model 768. Here a model may be 4 wide, and 1/√fan_in
keeps every layer's output near unit size whatever the width, so (a) an embedding row is about as large
as the sinusoidal positional encoding it is added to (values in [−1, 1]) instead of 50 times smaller,
and (b) the tied unembedding gives logits of about unit size (z is layer-normed, each of its d values
about 1, times d weights of variance 1/d), so the first loss is near log(vocab) and training starts
with useful gradients. Fan-ins: E (read backwards as the unembedding, z · E[v]) d_model; W_Q, W_K, W_V
d_model; W_O n_heads × d_head; W_1 d_model; W_2 d_ff.

Draws come from numpy's default_rng(seed) in the order Params lists the parameters ("E", then each
block's W_Q … b_2), so the same sizes, vocabulary and seed give the same weights, bit for bit, and
save() then writes the same bytes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from tinytui.model import checks
from tinytui.model.config import ModelConfig
from tinytui.model.io.document import ModelFile
from tinytui.model.io.field_checks import LIMITS, MAX_TEXT
from tinytui.model.params import Params, param_shapes

# The chapter's eight tokens, its prompt and its target: what `tinytui new` uses when given no word list.
DEFAULT_VOCAB = ("a", "chuck", "how", "much", "wood", "woodchuck", "would", ".")
DEFAULT_PROMPT = ("a", "woodchuck", "would", "chuck")
DEFAULT_TARGET = "wood"
DEFAULT_N_CTX = 16
MAX_SEED = 2**63 - 1
# Every size may be at its model-file bound, but not all at once: 48 blocks of d_model 4096 and d_ff
# 16384 would be 10 billion weights (80 GB). GPT-2 small (124 million) fits under this; a model this
# large takes seconds to draw and a gigabyte or two to hold.
MAX_PARAMETERS = 200_000_000


@dataclass(frozen=True)
class Sizes:
    """The sizes a new seeded model is made with (tinytui new): its widths, heads, blocks and context
    length. sizes() makes one from typed text, each checked against model files' bounds."""

    d_model: int
    n_heads: int
    d_head: int
    d_ff: int
    n_blocks: int
    n_ctx: int = DEFAULT_N_CTX


def whole(value: object, field: str, low: int = 1, high: int | None = None) -> int:
    """A whole number from typed text or an int, low ≤ value ≤ high; checks.Invalid (where=field) if not."""
    if isinstance(value, str):
        s = value.strip()
        if not re.fullmatch(r"[+-]?[0-9]{1,20}", s):
            raise checks.Invalid(f"{checks.shown(s)} is not a whole number", field)
        value = int(s)
    if isinstance(value, bool) or not isinstance(value, int):
        raise checks.Invalid(f"{value!r} is not a whole number", field)
    if value < low:
        raise checks.Invalid(f"{value} is less than {low}", field)
    if high is not None and value > high:
        raise checks.Invalid(f"{value} is larger than tinytui allows ({high})", field)
    return value


def sizes(
    d_model: object,
    n_heads: object,
    d_ff: object,
    n_blocks: object,
    d_head: object = None,
    n_ctx: object = DEFAULT_N_CTX,
) -> Sizes:
    """Checked sizes, each within model files' bounds (files.LIMITS). d_head None: d_model / n_heads,
    which must then divide evenly. Invalid's where names the field that is wrong ("divisible": d_model
    and n_heads, when d_head is not given and n_heads does not divide d_model)."""
    d = whole(d_model, "d_model", 1, LIMITS["d_model"])
    h = whole(n_heads, "n_heads", 1, LIMITS["n_heads"])
    ff = whole(d_ff, "d_ff", 1, LIMITS["d_ff"])
    blocks = whole(n_blocks, "n_blocks", 1, LIMITS["weights.blocks"])
    ctx = whole(n_ctx, "n_ctx", 1, LIMITS["n_ctx"])
    if d_head is None:
        if d % h:
            raise checks.Invalid(f"d_model {d} is not divisible by {h} heads (give d_head)", "divisible")
        dh = d // h
        if dh > LIMITS["d_head"]:
            raise checks.Invalid(f"d_model / n_heads = {dh} is larger than tinytui allows", "d_head")
    else:
        dh = whole(d_head, "d_head", 1, LIMITS["d_head"])
    return Sizes(d, h, dh, ff, blocks, ctx)


def parse_vocab(text: str, source: str = "<vocab>") -> tuple[str, ...]:
    """Tokens from a word list, one per line (spaces around a word are ignored). Refused, with the line
    number: a blank line, a duplicate, a token with a space inside (a prompt is split on spaces), control
    characters, a token longer than model files allow; and more tokens than they allow."""
    tokens: list[str] = []
    seen: dict[str, int] = {}
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final newline ends the last line; it is not a blank line
    for n, line in enumerate(lines, start=1):
        word = line.removesuffix("\r").strip(" \t")
        if not word:
            raise ValueError(f"{source}: line {n}: blank line (one token per line)")
        if any(c.isspace() for c in word):
            raise ValueError(
                f"{source}: line {n}: {checks.shown(word)} has a space in it (one token per line)"
            )
        try:
            checks.plain_text(word, "token", MAX_TEXT["token"])
        except checks.Invalid as exc:
            raise ValueError(f"{source}: line {n}: {exc}") from None
        if word in seen:
            raise ValueError(f"{source}: line {n}: {checks.shown(word)} repeats line {seen[word]}")
        seen[word] = n
        tokens.append(word)
        if len(tokens) > LIMITS["vocab"]:
            raise ValueError(f"{source}: more than {LIMITS['vocab']} tokens, the most tinytui allows")
    if not tokens:
        raise ValueError(f"{source}: no tokens (one token per line)")
    return tuple(tokens)


def init_arrays(cfg: ModelConfig, seed: int) -> dict[str, np.ndarray]:
    """N(0, 1/fan_in) weights, zero biases, drawn in param_shapes order from default_rng(seed)."""
    rng = np.random.default_rng(seed)
    fan_in = {
        "W_Q": cfg.d_model,
        "W_K": cfg.d_model,
        "W_V": cfg.d_model,
        "W_O": cfg.n_heads * cfg.d_head,
        "W_1": cfg.d_model,
        "W_2": cfg.d_ff,
    }
    arrays: dict[str, np.ndarray] = {}
    for name, shape in param_shapes(cfg).items():
        local = name.rsplit(".", 1)[-1]
        if local in ("b_1", "b_2"):
            arrays[name] = np.zeros(shape)
        else:
            arrays[name] = rng.normal(0.0, 1.0 / np.sqrt(fan_in.get(local, cfg.d_model)), shape)
    return arrays


def parameter_count(s: Sizes, n_vocab: int) -> int:
    per_block = 3 * s.n_heads * s.d_model * s.d_head + s.n_heads * s.d_head * s.d_model
    per_block += 2 * s.d_model * s.d_ff + s.d_ff + s.d_model
    return n_vocab * s.d_model + s.n_blocks * per_block


def neutral_dims(d_model: int) -> tuple[str, ...]:
    """Dimension names that claim nothing: d0, d1, … (a dimension of learned weights means what training
    made it mean, not what a name says)."""
    return tuple(f"d{i}" for i in range(d_model))


def with_neutral_dims(params: Params) -> Params:
    """The same weights, their dimensions named d0, d1, …"""
    cfg = replace(params.cfg, dims=neutral_dims(params.cfg.d_model))
    return Params(cfg, {name: params[name] for name in params})


def config(s: Sizes, vocab: Sequence[str]) -> ModelConfig:
    return ModelConfig(
        vocab=tuple(vocab),
        dims=neutral_dims(s.d_model),
        d_model=s.d_model,
        n_heads=s.n_heads,
        d_head=s.d_head,
        d_ff=s.d_ff,
        n_blocks=s.n_blocks,
        n_ctx=s.n_ctx,
    )


def new_model(
    s: Sizes,
    vocab: Sequence[str] = DEFAULT_VOCAB,
    prompt: Sequence[str] | None = None,
    target: str | None = None,
    seed: int = 0,
    name: str = "new",
    about: str = "",
) -> ModelFile:
    """A model of sizes s with seeded random weights. prompt/target None: the chapter's, when the
    vocabulary has their tokens. checks.Invalid (where "prompt", "target", "seed", "name", "about")
    for anything that cannot be used; nothing is half made."""
    seed = whole(seed, "seed", 0, MAX_SEED)
    vocab = tuple(vocab)
    if len(set(vocab)) != len(vocab) or not vocab:
        raise checks.Invalid("the vocabulary must be distinct tokens, at least one", "vocab")
    if len(vocab) > LIMITS["vocab"]:
        raise checks.Invalid(f"{len(vocab)} tokens is more than tinytui allows ({LIMITS['vocab']})", "vocab")
    total = parameter_count(s, len(vocab))
    if total > MAX_PARAMETERS:
        raise checks.Invalid(
            f"these sizes make {total:,} parameters, more than tinytui makes ({MAX_PARAMETERS:,}): "
            "choose smaller ones",
            "sizes",
        )
    if prompt is None:
        if not set(DEFAULT_PROMPT) <= set(vocab):
            raise checks.Invalid("the vocabulary lacks the chapter's prompt: give one", "prompt")
        prompt = DEFAULT_PROMPT
    if target is None:
        if DEFAULT_TARGET not in vocab:
            raise checks.Invalid("the vocabulary lacks the chapter's target: give one", "target")
        target = DEFAULT_TARGET
    try:
        prompt = checks.prompt(tuple(prompt), vocab, s.n_ctx)
    except checks.Invalid as exc:
        raise checks.Invalid(str(exc), "prompt") from None
    try:
        target = checks.target(target, vocab)
    except checks.Invalid as exc:
        raise checks.Invalid(str(exc), "target") from None
    for field, text in (("name", name), ("about", about)):
        try:
            checks.plain_text(text, field, MAX_TEXT[field])
        except checks.Invalid as exc:
            raise checks.Invalid(str(exc), field) from None
    cfg = config(s, vocab)
    return ModelFile(name, about, Params(cfg, init_arrays(cfg, seed)), tuple(prompt), target)
