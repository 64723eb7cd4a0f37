"""The texts of steps 6–10: queries, keys and values, the scores, the mask and softmax, the heads
combined, the first residual (see step_texts.py)."""

from __future__ import annotations

import numpy as np

from tinytui.lesson.texts.switched_words import positions_switched
from tinytui.lesson.texts.wording import (
    SAME,
    about,
    at,
    block_tensor,
    in_words,
    listed,
    num,
    quoted,
    sentences,
    tops_as_shown,
)
from tinytui.model.trace import Trace


def _reads(out: np.ndarray, x_norm: np.ndarray, dims: tuple[str, ...]) -> list[str] | None:
    """The dims that each column of out copies exactly from x_norm, or None if some column copies none."""
    found = []
    for c in range(out.shape[1]):
        col = out[:, c : c + 1]
        # every dim at once (np.allclose(col, x_norm[:, j], rtol=0, atol=SAME) for each j, as one array)
        with np.errstate(invalid="ignore"):  # inf − inf: not close by the difference, equal by ==
            close = (np.abs(x_norm - col) <= SAME) | (x_norm == col)
        same = np.flatnonzero(close.all(axis=0))
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
    x_norm = block_tensor(trace, "x_norm")
    rows = "normalised rows" if trace.switches.norm == "pre" else "rows"
    who = (
        f"Each of the {in_words(cfg.n_heads)} heads reads the {rows} through its own"
        if cfg.n_heads > 1
        else (f"The single head reads the {rows} through its")
    )
    general = (
        f"{who} three matrices, turning {cfg.d_model} numbers into {cfg.d_head} for its query, its key "
        "and its value" + (", and adds a learned bias to each (b_Q, b_K, b_V)." if cfg.attn_bias else ".")
    )
    if cfg.n_kv_heads != cfg.n_heads:
        kv = (
            "a key/value head"
            if cfg.n_kv_heads == 1
            else f"each of the {in_words(cfg.n_kv_heads)} key/value heads"
        )
        general = (
            f"Each of the {in_words(cfg.n_heads)} query heads reads the {rows} through its own W_Q, turning "
            f"{cfg.d_model} numbers into {cfg.d_head} for its query; keys and values are shared: {kv} has "
            f"its own W_K and W_V"
            + (" (and biases b_K, b_V; queries get b_Q)" if cfg.attn_bias else "")
            + f", read by {in_words(cfg.group_size)} query heads (grouped-query attention): "
            f"{in_words(cfg.n_heads)} query heads read {in_words(cfg.n_kv_heads)} key/value "
            f"head{'s' if cfg.n_kv_heads != 1 else ''}."
        )
    if cfg.positions == "rope":
        general += (
            " Then each query and key row is turned by its position (RoPE): Q_pre and K_pre are the plain "
            "projections, Q and K the turned rows the scores read. Values are not turned."
            if trace.switches.positional_encoding
            else " With the positional encoding off, Q and K are Q_pre and K_pre unturned."
        )
    general = sentences(general, positions_switched(trace))
    said = []
    for h in range(1, cfg.n_heads + 1):
        q = _reads(block_tensor(trace, f"q.{h}"), x_norm, cfg.dims)
        k = _reads(block_tensor(trace, f"k.{cfg.kv_head(h - 1) + 1}"), x_norm, cfg.dims)
        question = _question(q, k)
        if question and q and k:
            said.append(
                f"Head {h} asks {question}: its query copies {listed(sorted(set(q), key=cfg.dims.index))}, "
                f"its key {listed(sorted(set(k), key=cfg.dims.index))}."
            )
    if not said:
        said.append(
            "What each head asks is decided by its matrices; step 8 shows where each one looks."
            if cfg.n_heads > 1
            else "What the head asks is decided by its matrices; step 8 shows where it looks."
        )
    return sentences(general, *said)


def scores(trace: Trace) -> str:
    dk = trace.cfg.d_head
    root = np.sqrt(dk)
    why = "what keeps the softmax from settling on one key before training has begun"
    if dk == 1:
        scale = "so the scaling changes nothing"
    elif dk <= 4:
        scale = (
            f"a division by {num(root)}, small here; in models with heads dozens of numbers wide it is {why}"
        )
    else:
        scale = f"a division by {num(root)}; dot products of {dk} terms spread wide, and this is {why}"
    turned = ""
    if trace.cfg.positions == "rope" and trace.switches.positional_encoding:
        turned = (
            "The queries and keys were turned by position at step 6: turning both rows of a pair by their "
            "own angles leaves their dot product depending on the difference of the angles, so a score "
            "reads how far apart two tokens are, not where they stand."
        )
    return sentences(
        f"Every query is compared with every key by a dot product, then divided by √d_k. Here d_k = {dk}: "
        f"{scale}.",
        turned,
    )


def softmax(trace: Trace) -> str:
    cfg = trace.cfg
    T = len(trace.prompt)
    heads = range(1, cfg.n_heads + 1)
    attn = {h: block_tensor(trace, f"attn.{h}") for h in heads}
    out = []
    if trace.switches.causal_mask:
        out.append(
            "Later positions get −∞ before the softmax, so they end up with exactly zero weight, and each "
            "row becomes weights that sum to one."
        )
        if all(attn[h][0, 0] == 1.0 for h in heads):
            every = "every head" if cfg.n_heads > 1 else "the head"
            out.append(
                f"The first row is {num(attn[1][0, 0])} in {every}: the first token has nothing to look at "
                "but itself."
            )
    elif T == 1:  # one row of one weight: nothing to spread, mask or no mask
        out.append(  # the first sentence names no weight, as below
            "The mask is off, so no score is blocked, but the prompt has one token: its row has one key, "
            "the token itself."
        )
        every = "every head" if cfg.n_heads > 1 else "the head"
        out.append(f"That one weight is the row's whole sum: {num(attn[1][0, 0])} in {every}.")
    else:
        first = listed([f"{num(attn[h][0, 0])} in head {h}" for h in heads])
        out.append(  # the first sentence names no weight: practice shows it while A is asked for
            f"The mask is off, so no score is blocked: each row spreads weights summing to one over all "
            f"{T} positions, the first row too."
        )
        out.append(f"The first row's weight on itself is {first}.")
    if T >= 2:
        out.append(_from_second_row(trace, attn))
        if all(largest(attn[h][-1]) == [T - 1] for h in heads) and T > 2:
            who = "every head puts" if cfg.n_heads > 1 else "the head puts"
            out.append(f"In the last row {who} its largest weight on {at(trace.prompt, T - 1)} itself.")
    off = trace.switches.ablated_in(getattr(trace, "block", 0))  # the block the step shows (steps.focus)
    if off:
        names = listed([f"head {h}" for h in off])
        verb = "is" if len(off) == 1 else "are"
        out.append(
            f"{names[0].upper()}{names[1:]} {verb} ablated: weights computed, output dropped at step 9."
        )
    return sentences(*out)


def largest(row: np.ndarray) -> list[int]:
    """The positions that hold a row's largest weight: every one that reads as the largest at the 4
    decimals the tables show (several when they tie there)."""
    return tops_as_shown(row, num)


def _from_second_row(trace: Trace, attn: dict[int, np.ndarray]) -> str:
    """Where each head looks hardest from the second position. 'Differently' only when no two heads
    pick the same position, 'every head' only when all pick one; a tie is named as a tie."""
    seen = at(trace.prompt, 1)
    picks, looks = [], []
    for h, a in attn.items():
        best = largest(a[1])
        w = num(a[1, best[0]])
        if len(best) > 1:
            where = f"puts {w} on each of {listed([at(trace.prompt, j) for j in best])}"
        elif best[0] == 1:
            where = f"keeps {w} on {seen} itself"
        else:
            where = f"puts {w} on {at(trace.prompt, best[0])}"
        picks.append(tuple(best))
        looks.append(f"head {h} {where}")
    single = all(len(p) == 1 for p in picks)
    if len(picks) > 1 and single and len(set(picks)) == len(picks):
        return f"Looking from {seen}, the heads spread their weight differently: {listed(looks)}."
    if len(picks) > 1 and single and len(set(picks)) == 1:
        j = picks[0][0]
        on = f"{seen} itself" if j == 1 else at(trace.prompt, j)
        weights = listed([f"head {h} {num(a[1, j])}" for h, a in attn.items()])
        return f"Looking from {seen}, every head puts its largest weight on {on}: {weights}."
    return f"Looking from {seen}, {listed(looks)}."


def combine(trace: Trace) -> str:
    cfg = trace.cfg
    H, dh, d = cfg.n_heads, cfg.d_head, cfg.d_model
    wide = H * dh
    again = f" ({wide} wide, d_model again)" if wide == d else f" ({wide} wide)"
    # with the residual off attention's numbers are not added to the stream: they become x′
    adds = (
        "attention adds"
        if trace.switches.residual
        else "attention hands on (with the residual off they replace the stream rather than add to it)"
    )
    out = [
        "Each head returns a weighted average of its value vectors."
        if H > 1
        else "The head returns a weighted average of its value vectors.",
        (
            f"The {in_words(H)} results, {dh} wide each, are set side by side{again} and W_O mixes them into "
            f"the {d} numbers {adds} at each position."
            if H > 1
            else f"Its {dh}-wide result is mixed by W_O into the {d} numbers {adds} at each position."
        ),
    ]
    if cfg.out_bias:
        out.append("A learned bias b_O is added to every position's result, whatever the heads found.")
    off = trace.switches.ablated_in(getattr(trace, "block", 0))  # the block the step shows (steps.focus)
    if off and len(off) == H:
        zero = not block_tensor(trace, "mha").any()
        out.append(
            "Every head is ablated, so "
            + (
                "attention adds nothing at all."
                if zero
                else "attention adds only its bias b_O, the same at every position."
            )
        )
    elif off:
        out.append(
            f"Ablated ({listed([f'head {h}' for h in off])}): that slot of the concatenation is zeros."
        )
    return sentences(*out)


def residual1(trace: Trace) -> str:
    sw = trace.switches
    cfg = trace.cfg
    if sw.residual:
        how = "Attention's output is added onto the input it read, which passes through untouched"
        how += "; then the sum is normalised (post-norm)." if sw.norm == "post" else "."
    else:
        how = (
            "With the residual off, x′ is attention's output alone: the input is not added back, so a "
            "token keeps only what attention hands it."
        )
    col = len(cfg.dims) - 1
    tok = trace.prompt[-1]
    before, after = float(trace["x"][-1, col]), float(block_tensor(trace, "x_mid")[-1, col])
    dim = cfg.dims[col]
    every = len(sw.ablated_in(getattr(trace, "block", 0))) == cfg.n_heads  # only b_O can move it
    moved = float(block_tensor(trace, "mha")[-1, col])
    watch = f"At the last position ({quoted(tok)}), the {dim} column goes from "
    if about(before) == about(after) and abs(moved) > 0.005 and sw.residual and sw.norm == "pre":
        watch += f"{num(before)} to {num(after)}"  # 'about 1.5 to 1.5' would contradict 'brought in'
    else:
        watch += f"about {about(before)} to {about(after)}"
    if sw.residual and sw.norm == "pre":
        if every and moved != 0:
            watch += (
                ": all of it attention's bias b_O, since every head is ablated and nothing comes from "
                "the other positions."
            )
        elif moved > 0.005:
            watch += f", because attention brought {dim} in from the positions it reads."
        elif moved < -0.005:
            watch += f", because attention took some {dim} away."
        elif moved == 0:
            watch += ": attention added exactly 0 to it."
        else:
            watch += ": attention left it almost as it was."
    else:
        watch += "."
    return sentences(how, watch, "Moving information between positions is the one job attention has.")
