"""Each stage's explanation, written from the trace: what the step does, then what this run shows.

stages.py gives every Stage one of these as `explain`; call it with the current trace. A sentence that
quotes a number reads it off the trace; a sentence that only holds for some runs (the chapter's
"the first row is 1.0000", "how and much tie", "24 of 32 are zero") is said only when the numbers make
it true, and something correct is said otherwise. Sizes and labels come from the model's config.
Our own words throughout (the chapter's figures carry over, its sentences do not).
"""

from __future__ import annotations

import re

import numpy as np

from tinytui.model import count
from tinytui.model.names import prefix
from tinytui.model.trace import Trace

SAME = 1e-9  # two values closer than this are "the same" (a tie, a copied column)

_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven")
_NUMBERED = re.compile(r"^[A-Za-z_]{0,3}\d+$")  # generic axis labels such as d0, dim3, t12


def _f(x: float) -> str:
    s = f"{x:.4f}"
    return "0.0000" if s == "-0.0000" else s


def _about(x: float) -> str:
    """A rounded figure for prose ('about 1.5', 'to 3.25'): two decimals, trailing zeros dropped."""
    s = f"{round(float(x), 2):.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _n(k: int) -> str:
    return _WORDS[k] if 0 <= k < len(_WORDS) else str(k)


def _list(items: list[str]) -> str:
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _b(trace: Trace, local: str, block: int = 0) -> np.ndarray:
    return trace[prefix(block) + local]


def _first_block(trace: Trace) -> str:
    """How to name 'the block' when the model has several (the numbers shown are the first one's)."""
    return "the block" if trace.cfg.n_blocks == 1 else "the first block"


def _join(*sentences: str) -> str:
    return " ".join(s for s in sentences if s)


# ---- 1–4: from words to vectors -------------------------------------------------------------------


def tokens(trace: Trace) -> str:
    v = trace.cfg.n_vocab
    return (
        f"The model never sees letters. Each word of the prompt is looked up in the vocabulary of "
        f"{_n(v)} tokens and replaced by its index in that list; after this step everything is "
        "arithmetic on numbers."
    )


def embed(trace: Trace) -> str:
    dims = trace.cfg.dims
    shown = _list(list(dims)) if len(dims) <= 6 else f"{dims[0]} to {dims[-1]}"
    if all(_NUMBERED.match(d) for d in dims):
        names = (
            f"The {_n(len(dims))} columns are only numbered ({shown}), so no column has a "
            "meaning fixed in advance."
        )
    else:
        names = (
            f"The columns carry names ({_list(list(dims))}), so you can read off what each token stands for."
        )
    return _join(
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
    if not trace.switches.positional_encoding:
        return _join(
            general,
            "Here the encoding is switched off: every PE row is zero, so nothing in the vectors says "
            "which token came first.",
        )
    waves = (d + 1) // 2
    if waves == 1:
        return _join(
            general,
            f"With d = {d} there is a single wave, advancing one radian per token, which tells "
            "neighbours apart but repeats every few tokens.",
        )
    slow = 10000.0 ** (2 * (waves - 1) / d)
    ratio = f"{slow:.0f}" if slow >= 10 else f"{slow:.1f}"
    moves = "hardly moves" if T / slow < 0.2 else "moves only a little"
    return _join(
        general,
        f"With d = {d} there are {_n(waves)} waves: the fastest advances one radian per token and tells "
        f"neighbours apart, the slowest turns {ratio}× more slowly and {moves} across "
        f"{_n(T)} token{'s' if T != 1 else ''}.",
    )


def add(trace: Trace) -> str:
    cfg = trace.cfg
    T, d = len(trace.prompt), cfg.d_model
    how = (
        f"Meaning and position are summed into the same {_n(d)} numbers per token rather than placed "
        "side by side."
        if trace.switches.positional_encoding
        else "With the positional encoding off, nothing is added: x is the embedding rows as they are."
    )
    return _join(
        how,
        f"These {T * d} numbers ({T} positions × {d}) are all that {_first_block(trace)} is given; "
        "everything later is computed from them.",
    )


# ---- 5–12: the block --------------------------------------------------------------------------------


def norm1(trace: Trace) -> str:
    if trace.switches.norm == "post":
        return (
            "Post-norm (the 2017 arrangement): the sublayer reads the stream x as it is, so this table is x "
            "unchanged beside its mean and variance; the normalising happens after each residual add "
            "instead, which puts a norm on the residual path."
        )
    return (
        "Each row is rescaled on its own to mean 0 and variance 1, looking at no other token; ε keeps a "
        "row of equal values from dividing by zero. Normalising before the sublayer (pre-norm) keeps "
        "the residual path free of norms, which is what lets deep stacks train."
    )


def _reads(out: np.ndarray, x_norm: np.ndarray, dims: tuple[str, ...]) -> list[str] | None:
    """The dims that each column of out copies exactly from x_norm, or None if some column copies none."""
    found = []
    for c in range(out.shape[1]):
        same = [j for j in range(x_norm.shape[1]) if np.allclose(out[:, c], x_norm[:, j], rtol=0, atol=SAME)]
        if len(same) != 1:
            return None
        found.append(dims[same[0]])
    return found


def _question(q: list[str] | None, k: list[str] | None) -> str:
    """The chapter's reading of a head, when its query and key copy the dims that reading needs."""
    if q is None or k is None:
        return ""
    if "action" in q and "thing" in k:
        return "'which thing is being acted on?'"
    if "wood" in q and "wood" in k:
        return "'what else here is about wood?'"
    return ""


def qkv(trace: Trace) -> str:
    cfg = trace.cfg
    x_norm = _b(trace, "x_norm")
    rows = "normalised rows" if trace.switches.norm == "pre" else "rows"
    who = (
        f"Each of the {_n(cfg.n_heads)} heads reads the {rows} through its own"
        if cfg.n_heads > 1
        else (f"The single head reads the {rows} through its")
    )
    general = (
        f"{who} three matrices, turning {cfg.d_model} numbers into {cfg.d_head} for its query, its key "
        "and its value."
    )
    said = []
    for h in range(1, cfg.n_heads + 1):
        q = _reads(_b(trace, f"q.{h}"), x_norm, cfg.dims)
        k = _reads(_b(trace, f"k.{h}"), x_norm, cfg.dims)
        question = _question(q, k)
        if question and q and k:
            said.append(
                f"Head {h} asks {question}: its query copies {_list(sorted(set(q), key=cfg.dims.index))}, "
                f"its key {_list(sorted(set(k), key=cfg.dims.index))}."
            )
    if not said:
        said.append("What each head asks is decided by its matrices; step 8 shows where each one looks.")
    return _join(general, *said)


def scores(trace: Trace) -> str:
    dk = trace.cfg.d_head
    root = np.sqrt(dk)
    why = "what keeps the softmax from settling on one key before training has begun"
    if dk == 1:
        scale = "so the scaling changes nothing"
    elif dk <= 4:
        scale = (
            f"a division by {_f(root)}, small here; in models with heads dozens of numbers wide it is {why}"
        )
    else:
        scale = f"a division by {_f(root)}; dot products of {dk} terms spread wide, and this is {why}"
    return (
        f"Every query is compared with every key by a dot product, then divided by √d_k. Here d_k = {dk}: "
        f"{scale}."
    )


def softmax(trace: Trace) -> str:
    cfg = trace.cfg
    T = len(trace.prompt)
    heads = range(1, cfg.n_heads + 1)
    attn = {h: _b(trace, f"attn.{h}") for h in heads}
    out = []
    if trace.switches.causal_mask:
        out.append(
            "Later positions get −∞ before the softmax, so they end up with exactly zero weight, and each "
            "row becomes weights that sum to one."
        )
        if all(attn[h][0, 0] == 1.0 for h in heads):
            every = "every head" if cfg.n_heads > 1 else "the head"
            out.append(
                f"The first row is {_f(attn[1][0, 0])} in {every}: the first token has nothing to look at "
                "but itself."
            )
    else:
        first = ", ".join(_f(attn[h][0, 0]) for h in heads)
        out.append(
            f"The mask is off, so no score is blocked: each row spreads weights summing to one over all "
            f"{T} positions, the first row too (its weight on itself: {first})."
        )
    if T >= 2:
        looks = []
        for h in heads:
            j = int(attn[h][1].argmax())
            w = _f(attn[h][1, j])
            where = f"keeps {w} on {trace.prompt[1]} itself" if j == 1 else f"puts {w} on {trace.prompt[j]}"
            looks.append(f"head {h} {where}")
        lead = "the heads spread their weight differently: " if cfg.n_heads > 1 else ""
        out.append(f"Looking from {trace.prompt[1]}, {lead}{_list(looks)}.")
        last = [int(attn[h][-1].argmax()) for h in heads]
        if all(j == T - 1 for j in last) and T > 2:
            who = "every head puts" if cfg.n_heads > 1 else "the head puts"
            out.append(f"In the last row {who} its largest weight on {trace.prompt[-1]} itself.")
    off = sorted(trace.switches.ablated_heads)
    if off:
        names = _list([f"head {h}" for h in off])
        verb = "is" if len(off) == 1 else "are"
        out.append(
            f"{names[0].upper()}{names[1:]} {verb} ablated: weights computed, output dropped at step 9."
        )
    return _join(*out)


def combine(trace: Trace) -> str:
    cfg = trace.cfg
    H, dh, d = cfg.n_heads, cfg.d_head, cfg.d_model
    wide = H * dh
    again = f" ({wide} wide, d_model again)" if wide == d else f" ({wide} wide)"
    out = [
        "Each head returns a weighted average of its value vectors.",
        (
            f"The {_n(H)} results, {dh} wide each, are set side by side{again} and W_O mixes them into the "
            f"{d} numbers attention adds at each position."
            if H > 1
            else f"Its {dh}-wide result is mixed by W_O into the {d} numbers attention adds at each position."
        ),
    ]
    off = sorted(trace.switches.ablated_heads)
    if off and len(off) == H:
        zero = not _b(trace, "mha").any()
        out.append(
            "Every head is ablated, so "
            + ("attention adds nothing at all." if zero else "attention's update is zero at every position.")
        )
    elif off:
        out.append(f"Ablated ({_list([f'head {h}' for h in off])}): that slot of the concatenation is zeros.")
    return _join(*out)


def residual1(trace: Trace) -> str:
    sw = trace.switches
    cfg = trace.cfg
    if sw.residual:
        how = "Attention's output is added onto the input it read, which passes through untouched"
        how += "; then the sum is normalised (post-norm)." if sw.norm == "post" else "."
    else:
        how = (
            "With the residual off, x' is attention's output alone: the input is not added back, so a "
            "token keeps only what attention hands it."
        )
    col = len(cfg.dims) - 1
    tok = trace.prompt[-1]
    before, after = float(trace["x"][-1, col]), float(_b(trace, "x_mid")[-1, col])
    dim = cfg.dims[col]
    watch = f"At the last position, {tok}'s {dim} column goes from about {_about(before)} to {_about(after)}"
    if sw.residual and sw.norm == "pre":
        moved = float(_b(trace, "mha")[-1, col])
        if moved > 0.005:
            watch += f", because attention brought {dim} in from the positions it reads."
        elif moved < -0.005:
            watch += f", because attention took some {dim} away."
        else:
            watch += ": attention left it almost as it was."
    else:
        watch += "."
    return _join(how, watch, "Moving information between positions is the one job attention has.")


def ffn(trace: Trace) -> str:
    cfg = trace.cfg
    sw = trace.switches
    h = _b(trace, "hidden")
    zeros, size = int((h == 0).sum()), h.size
    how = (
        "is normalised and widened"
        if sw.norm == "pre"
        else "(already normalised after the residual add) is widened"
    )
    out = [f"Each position on its own {how} from {cfg.d_model} to {cfg.d_ff} feature detectors."]
    if sw.activation == "relu":
        out.append("The ReLU sets every detector that did not fire to zero.")
        tally = f"Count the zeros: {zeros} of {size} hidden values are zero"
        if zeros * 2 > size:
            tally += ", so most of the hidden layer is silent."
        elif zeros == 0:
            tally = f"Here every one of the {size} hidden values fired, so the ReLU cut nothing."
        else:
            tally += ", fewer than half."
        out.append(tally)
    else:
        out.append(
            "GELU (what GPT uses) lets small negative values through instead of cutting them off, so "
            + (
                "none of the hidden values is exactly zero."
                if zeros == 0
                else f"only {zeros} of {size} hidden values are exactly zero."
            )
        )
    return _join(*out)


def residual2(trace: Trace) -> str:
    cfg = trace.cfg
    sw = trace.switches
    add = (
        "the result is added to the stream"
        if sw.residual
        else "the result replaces the stream (residual off)"
    )
    post = "; then the sum is normalised (post-norm)" if sw.norm == "post" and sw.residual else ""
    out = [f"W_2 narrows the {cfg.d_ff} detectors back to {cfg.d_model} dimensions and {add}{post}."]
    if sw.activation == "relu":
        dead = int((_b(trace, "hidden") == 0).all(axis=0).sum())
        if dead:
            out.append(
                f"{dead} of the {cfg.d_ff} units are zero at every position, so their "
                "rows of W_2 contribute nothing here."
            )
    repeat = (
        "big models repeat this pair."
        if cfg.n_blocks == 1
        else f"this model repeats the pair {cfg.n_blocks} times (the tables show the first)."
    )
    out.append(f"Equations 17.8 and 17.10 together make one whole block; {repeat}")
    return _join(*out)


# ---- 13–16: back to words ---------------------------------------------------------------------------


def final_norm(trace: Trace) -> str:
    T = len(trace.prompt)
    again = (
        " It is normalised once more (under post-norm it already was, so this changes it very little)."
        if trace.switches.norm == "post"
        else " It is normalised once more."
    )
    if T == 1:
        return "The prompt has one token, so its row is the one the prediction is read from." + again
    if trace.switches.causal_mask:
        return (
            "With the mask on, the last position is the only one that has read every token of the prompt, "
            f"so the prediction is taken from it alone.{again} The other rows were there to build it."
        )
    return (
        "With the mask off, every row has read the whole prompt, but the prediction is still taken from "
        f"the last position only.{again}"
    )


def unembed(trace: Trace) -> str:
    cfg = trace.cfg
    out = [
        f"The same table E is read the other way: the logit of each of the {cfg.n_vocab} tokens is the "
        "dot product of z with that token's row, so the row that best matches z wins."
    ]
    logits = trace["logits"]
    groups: list[list[str]] = []
    seen: set[int] = set()
    for i in range(cfg.n_vocab):
        if i in seen:
            continue
        same = [j for j in range(i + 1, cfg.n_vocab) if logits[j] == logits[i]]
        if same:
            seen.update(same)
            groups.append([cfg.vocab[k] for k in (i, *same)])
    if groups:
        tied = "; ".join(f"{_list(g)} tie" for g in groups)
        each = "with exactly the same logit" if len(groups) == 1 else "each group with exactly the same logit"
        out.append(f"Tokens with identical rows always tie; here {tied}, {each}.")
    else:
        out.append("No two tokens get the same logit here.")
    return _join(*out)


def loss(trace: Trace) -> str:
    g = trace["grad_logits"]
    t = trace.cfg.token_id(trace.target)
    others = np.delete(g, t)
    rest = "positive for every other token" if (others > 0).all() else "zero or positive for the others"
    target = (
        "negative for the target" if g[t] < 0 else "zero for the target (it already has all the probability)"
    )
    after = float(trace["loss_stepped"])
    if after < trace.loss:
        step = f"One step against it (size lr = {trace.lr:g}) lowers the loss."
    else:
        step = f"A step against it (size lr = {trace.lr:g}) cannot lower the loss any further."
    return _join(
        "Cross-entropy asks one thing: how much probability went to the right answer.",
        f"Its gradient on the logits is p minus the one-hot target: {target}, {rest}.",
        step,
    )


def count_params(trace: Trace) -> str:
    cfg = trace.cfg
    out = [
        "One formula counts this model and GPT-3 alike; only the width, the depth and the vocabulary differ.",
        f"Tying the unembedding to E saves V·d = {cfg.n_vocab}·{cfg.d_model} = {count.tying_saves(cfg)} "
        "parameters.",
    ]
    wide = cfg.n_heads * cfg.d_head
    if wide != cfg.d_model:
        out.append(
            f"Here the heads together are {wide} wide rather than d = {cfg.d_model}, so the attention terms "
            f"use {wide} where the formula writes d."
        )
    return _join(*out)
