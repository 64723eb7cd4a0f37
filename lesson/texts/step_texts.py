"""Each stage's explanation, written from the trace: what the step does, then what this run shows.

stages.py gives every Stage one of these as `explain`; call it with the current trace. A sentence that
quotes a number reads it off the trace; a sentence that only holds for some runs (the chapter's
"the first row is 1.0000", "how and much tie", "24 of 32 are zero") is said only when the numbers make
it true, and something correct is said otherwise. Sizes and labels come from the model's config.
Our own words throughout (the chapter's figures carry over, its sentences do not).
"""

from __future__ import annotations

import numpy as np

from tinytui.lesson.texts.switched_words import norm_switched, positions_switched
from tinytui.lesson.texts.wording import NUMBERED, at, first_block, in_words, listed, sentences
from tinytui.model.trace import Trace


def tokens(trace: Trace) -> str:
    v = trace.cfg.n_vocab
    return (
        f"The model never sees letters. Each word of the prompt is looked up in the vocabulary of "
        f"{in_words(v)} tokens and replaced by its index in that list; after this step everything is "
        "arithmetic on numbers."
    )


def embed(trace: Trace) -> str:
    dims = trace.cfg.dims
    shown = listed(list(dims)) if len(dims) <= 6 else f"{dims[0]} to {dims[-1]}"
    if all(NUMBERED.match(d) for d in dims):
        names = (
            f"The {in_words(len(dims))} columns are only numbered ({shown}), so no column has a "
            "meaning fixed in advance."
        )
    else:
        names = (
            f"The columns carry names ({listed(list(dims))}), so you can read off what each token stands for."
        )
    return sentences(
        "Each id picks out one row of E and copies it: no arithmetic happens at this step.",
        names,
    )


def pe(trace: Trace) -> str:
    cfg = trace.cfg
    d, T = cfg.d_model, len(trace.prompt)
    general = (
        "Attention on its own treats the prompt as an unordered set, so each position's place has to be "
        "written into its vector."
    )
    who = "This run" if positions_switched(trace) else "This model"  # the switch, not the model's own
    if cfg.positions == "rope" and not trace.switches.positional_encoding:
        return sentences(
            general,
            f"{who} has rotary positions, switched off here: PE is all zeros and step 6 leaves every "
            f"query and key unturned, so {_order_left(trace)}.",
            positions_switched(trace),
        )
    if cfg.positions == "rope":
        return sentences(
            general,
            f"{who} adds nothing here: PE is all zeros. Its positions are rotary: at step 6 each "
            "query and key row is turned by an angle that grows with its position, so the scores at step 7 "
            "depend on how far apart two tokens are.",
            positions_switched(trace),
        )
    if cfg.positions == "none":
        return sentences(
            general, "This model has no positional encoding: PE is all zeros.", positions_switched(trace)
        )
    if not trace.switches.positional_encoding:
        return sentences(
            general,
            "Here the encoding is switched off: every PE row is zero, so nothing in the vectors says "
            "which token came first.",
        )
    if cfg.learned_positions:
        return sentences(
            general,
            f"This model learned its positions: PE is the first {in_words(T)} of the {cfg.n_ctx} rows of "
            f"its table P ({cfg.n_ctx} × {d}), trained like any other weight, so no formula says what a "
            "row holds and the backward pass sends P a gradient.",
        )
    waves = (d + 1) // 2
    to = f"({listed(list(cfg.dims))} in turn)" if d <= 8 else "(the one in the same column)"
    columns = (
        f"Each column is the sine or cosine of one wave, added at step 4 to one dimension {to}; the "
        "waves say nothing about what those dimensions mean."
    )
    if waves == 1:
        return sentences(
            general,
            f"With d = {d} there is a single wave, advancing one radian per token, which tells "
            "neighbours apart but repeats every few tokens.",
            columns,
        )
    columns = sentences(columns, positions_switched(trace))
    slow = 10000.0 ** (2 * (waves - 1) / d)
    ratio = f"{slow:.0f}" if slow >= 10 else f"{slow:.1f}"
    moves = "hardly moves" if T / slow < 0.2 else "moves only a little"
    return sentences(
        general,
        f"With d = {d} there are {in_words(waves)} waves: the fastest advances one radian per token and "
        f"tells neighbours apart, the slowest turns {ratio}× more slowly and {moves} across "
        f"{in_words(T)} token{'s' if T != 1 else ''}.",
        columns,
    )


def _order_left(trace: Trace) -> str:
    """What still tells the tokens' order apart once no position is added or turned."""
    if trace.switches.causal_mask:
        blocks = "the block" if trace.cfg.n_blocks == 1 else "the blocks"
        return f"word order reaches {blocks} only through the causal mask"
    return "with the mask off too, nothing marks word order"


def add(trace: Trace) -> str:
    cfg = trace.cfg
    T, d = len(trace.prompt), cfg.d_model
    how = (
        f"Meaning and position are summed into the same {in_words(d)} numbers per token rather than placed "
        "side by side."
        if trace.switches.positional_encoding
        else "With the positional encoding off, nothing is added: x is the embedding rows as they are."
    )
    if cfg.positions == "rope" and not trace.switches.positional_encoding:
        how = (
            "Nothing is added: x is the embedding rows as they are. With the positional encoding off, step 6 "
            "does not turn queries and keys either."
        )
    elif cfg.positions == "rope":
        who = "This run" if positions_switched(trace) else "This model"
        how = (
            f"Nothing is added: x is the embedding rows as they are. {who} marks position later, by "
            "turning queries and keys at step 6."
        )
    elif cfg.positions == "none":
        how = "Nothing is added: x is the embedding rows as they are (this model has no positions)."
    places = f"{T} position{'s' if T != 1 else ''}"
    given = f"These {T * d} numbers ({places} × {d}) are all that {first_block(trace)} is given"
    if cfg.positions == "rope" and trace.switches.positional_encoding:  # the turn reads p, not x
        given += (
            ", with each row's position for the turn at step 6; everything later is computed from them and "
            "those angles."
        )
    else:
        given += "; everything later is computed from them."
    return sentences(how, positions_switched(trace), given)


# ---- 5–12: the block --------------------------------------------------------------------------------


def _small_variance(trace: Trace) -> str:
    """Where ε shows: a row whose variance is so small that ε keeps its normalised variance visibly
    below 1 (var / (var + ε) at the two decimals prose quotes)."""
    var = trace["blocks.0.ln1.var"]
    p = int(np.argmin(var))
    after = float(var[p] / (var[p] + trace.cfg.eps))
    if f"{after:.2f}" == "1.00":
        return ""
    return (
        f"But beside a variance as small as {var[p]:.4f} (row {at(trace.prompt, p)}) ε is not "
        f"negligible: that row comes out with variance {after:.4f}, not 1"
        + (" (before the gain and bias)." if trace.cfg.norm_affine else ".")
    )


def norm1(trace: Trace) -> str:
    if trace.switches.norm == "post":
        return (
            "Post-norm (the 2017 arrangement): the sublayer reads the stream x as it is, so this table is x "
            "unchanged beside its mean and variance; the normalising happens after each residual add "
            "instead, which puts a norm on the residual path."
        )
    if trace.cfg.norm == "rms":
        scaled = (
            "; then each column is scaled by its gain (ln1_g). There is no bias."
            if trace.cfg.norm_affine
            else ". There is no gain and no bias, as in the chapter's LayerNorm."
        )
        return sentences(
            "RMSNorm: each row is divided by the square root of the mean of its squares (plus ε), looking "
            "at no other token. No mean is taken away, so a row keeps its sign pattern and only its size "
            f"is set{scaled}",
            norm_switched(trace),
            "Normalising before the sublayer (pre-norm) keeps the residual path free of norms, which is what "
            "lets deep stacks train.",
        )
    gain = (
        "Then each column is scaled by its gain (ln1_g) and shifted by its bias (ln1_b), learned weights "
        "that let the model undo the normalising where it helps."
        if trace.cfg.norm_affine
        else ""
    )
    return sentences(
        "Each row is rescaled on its own to mean 0 and variance 1, looking at no other token; ε keeps a "
        "row of equal values from dividing by zero.",
        _small_variance(trace),
        gain,
        norm_switched(trace),
        "Normalising before the sublayer (pre-norm) keeps the residual path free of norms, which is what "
        "lets deep stacks train.",
    )
