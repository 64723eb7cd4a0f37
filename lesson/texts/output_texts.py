"""The texts of steps 11–16: the feed-forward, the second residual, the final norm, the unembedding,
the loss and the parameter count (see step_texts.py)."""

from __future__ import annotations

import numpy as np

from tinytui.lesson.arch_names import GATED_NAMES
from tinytui.lesson.texts.wording import block_tensor, listed, quoted, sentences, tied_groups
from tinytui.model.switches import ACTIVATION_NAMES
from tinytui.model.trace import Trace


def ffn(trace: Trace) -> str:
    cfg = trace.cfg
    sw = trace.switches
    h = block_tensor(trace, "hidden")
    zeros, size = int((h == 0).sum()), h.size
    how = (
        "is normalised and widened"
        if sw.norm == "pre"
        else "(already normalised after the residual add) is widened"
        if sw.residual
        else "(already normalised at the end of step 10) is widened"
    )
    wide = "widened" if cfg.d_ff > cfg.d_model else "narrowed" if cfg.d_ff < cfg.d_model else "mapped"
    how = how.replace("widened", wide)
    detectors = "one feature detector" if cfg.d_ff == 1 else f"{cfg.d_ff} feature detectors"
    out = [f"Each position on its own {how} from {cfg.d_model} to {detectors}."]
    if cfg.gated:
        act, gated = ACTIVATION_NAMES[sw.activation], GATED_NAMES[sw.activation]  # ReLU's gate: ReGLU
        out.append(
            f"This feed-forward is gated ({gated}): two projections, gate_pre = x W_gate and up = x W_up; "
            f"{act} of gate_pre is the gate, and each unit passes gate × up, so a gate near zero shuts its "
            "unit whatever up holds."
        )
        gate = block_tensor(trace, "gate")
        shut = int((np.abs(gate) < 0.05).sum())
        if shut == size:  # every unit shut: "16 of 16" would read as a part
            said = "exactly 0" if not gate.any() else "within 0.05 of zero"
            out.append(f"Here all {size} gate values are {said}.")
        else:
            out.append(
                f"Here {shut} of {size} gate values {'is' if shut == 1 else 'are'} within 0.05 of zero."
                if shut
                else f"Here none of the {size} gate values is within 0.05 of zero."
            )
        return sentences(*out)
    if sw.activation == "relu":
        out.append("The ReLU sets every detector that did not fire to zero.")
        tally = f"Count the zeros: {zeros} of {size} hidden values are zero"
        if zeros == size == 1:
            tally = "Count the zeros: the one hidden value is zero, so the detector did not fire."
        elif zeros == size:
            tally = f"Count the zeros: all {size} hidden values are zero, so no detector fired anywhere."
        elif zeros * 2 > size:
            tally += ", so most of the hidden layer is silent."
        elif zeros == 0:
            tally = f"Here every one of the {size} hidden values fired, so the ReLU cut nothing."
        elif zeros * 2 == size:
            tally += ", exactly half."
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
    return sentences(*out)


def residual2(trace: Trace) -> str:
    cfg = trace.cfg
    sw = trace.switches
    add = (
        "the result is added to the stream"
        if sw.residual
        else "the result replaces the stream (residual off)"
    )
    post = ""
    if sw.norm == "post":
        post = (
            "; then the sum is normalised (post-norm)"
            if sw.residual
            else "; then it is normalised (post-norm)"
        )
    down = "W_down" if cfg.gated else "W_2"
    verb = "narrows" if cfg.d_ff > cfg.d_model else "widens" if cfg.d_ff < cfg.d_model else "maps"
    detectors = "the one detector" if cfg.d_ff == 1 else f"the {cfg.d_ff} detectors"
    out = [f"{down} {verb} {detectors} back to {cfg.d_model} dimensions and {add}{post}."]
    block = getattr(trace, "block", 0)  # the block the step shows (steps.focus)
    if sw.activation == "relu" and not cfg.gated:
        dead = int((block_tensor(trace, "hidden") == 0).all(axis=0).sum())
        if dead == cfg.d_ff:
            what = "nothing at all" if not block_tensor(trace, "ffn").any() else "only its bias b_2"
            every = "The one unit" if cfg.d_ff == 1 else f"Every one of the {cfg.d_ff} units"
            out.append(
                f"{every} is zero at every position, so W_2 contributes nothing "
                f"and the feed-forward {'adds' if sw.residual else 'hands on'} {what}."
            )
        elif dead:
            out.append(
                f"{dead} of the {cfg.d_ff} units {'is' if dead == 1 else 'are'} zero at every position, so "
                f"{'its row' if dead == 1 else 'their rows'} of W_2 contribute{'s' if dead == 1 else ''} "
                "nothing here."
            )
    repeat = (
        "big models repeat this pair."
        if cfg.n_blocks == 1
        else f"this model repeats the pair {cfg.n_blocks} times (these tables are block {block + 1}'s)."
    )
    out.append(f"Equations 17.8 and 17.10 together make one whole block; {repeat}")
    return sentences(*out)


# ---- 13–16: back to words ---------------------------------------------------------------------------


def final_norm(trace: Trace) -> str:
    T = len(trace.prompt)
    again = " It is normalised once more."
    if trace.switches.norm == "post":  # normalised already: the entry this norm moves most, as shown
        y = block_tensor(trace, "y", trace.cfg.n_blocks - 1)[-1]
        z = np.asarray(trace["z"])
        moved = np.abs(z - y)
        rescaled = moved.max() >= 0.005
        why = ", but the gains (and biases) after that norm rescaled it" if rescaled else ""
        # the tables' four decimals; imported here: lesson.why's module is not needed for the first screen
        from tinytui.lesson.why.why import num

        seen = [i for i in range(len(y)) if num(y[i]) != num(z[i])]  # changed as the tables show them
        if not seen:
            again = " It is normalised once more. Under post-norm it already was, so z reads as y's last row."
        else:
            j = max(seen, key=lambda i: moved[i])
            again = (
                f" It is normalised once more. Under post-norm it already was{why}: of the entries it "
                f"changes at four decimals, {trace.cfg.dims[j]} moves most, from {num(y[j])} to {num(z[j])}."
            )
    if trace.cfg.norm == "rms":
        gain = ", and the final norm's own gain (lnf_g) scales each column" if trace.cfg.norm_affine else ""
        again += (
            " As at step 5 it is RMSNorm: the row is divided by the root of its mean square and nothing is "
            f"subtracted{gain}."
        )
    elif trace.cfg.norm_affine:
        again += " The final norm has its own gain and bias (lnf_g, lnf_b), applied column by column."
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
        if cfg.tied
        else f"This model does not reuse E: its own matrix W_U ({cfg.d_model} × {cfg.n_vocab}) gives the "
        "logit of each token as the dot product of z with that token's column, so the column that best "
        "matches z wins."
    ]
    same = "rows" if cfg.tied else "columns"
    # tied groups whose rows are copies of each other, and the rest (each a list of quoted tokens)
    copies: list[list[str]] = []
    others: list[list[str]] = []
    for ids in tied_groups(trace["logits"]):
        (copies if _identical(trace, ids) else others).append([quoted(cfg.vocab[k]) for k in ids])
    if copies:
        tied = "; ".join(f"{listed(g)} tie" for g in copies)
        each = "with exactly the same logit" if len(copies) == 1 else "each group with exactly the same logit"
        out.append(f"Tokens with identical {same} always tie; here {tied}, {each}.")
    if others:
        tied = "; ".join(f"{listed(g)} tie" for g in others) + (" too" if copies else "")
        differ = (
            f"not all their {same} are the same"
            if len(others) == 1
            else f"the {same} within each group are not all the same"
        )
        out.append(
            f"{tied[0].upper()}{tied[1:]}, although {differ}: z's dot products with them come out "
            "exactly equal."
        )
    alike = _printed_alike(trace)  # logits that differ, but not at the four decimals the table shows
    if not copies and not others:
        if alike:
            out.append(f"No two tokens get exactly the same logit, though {alike} at four decimals.")
        else:
            out.append("No two tokens get the same logit here.")
    elif alike:
        out.append(f"Besides, {alike} at four decimals, though their logits differ beyond that.")
    return sentences(*out)


def _printed_alike(trace: Trace) -> str:
    """'' unless tokens whose logits differ print the same logit: "'how', 'much' and 'wood' print alike"
    (one such group named; "and others" when there are more)."""
    logits = np.asarray(trace["logits"], dtype=float)
    # rounded as the table prints them (+ 0.0: −0.0000 is 0.0000); at GPT-2 some 50,000 logits, so numpy
    _, group, count = np.unique(np.round(logits, 4) + 0.0, return_inverse=True, return_counts=True)
    alike = []
    for g in np.flatnonzero(count > 1).tolist():
        ids = np.flatnonzero(group == g).tolist()
        if len({float(logits[k]) for k in ids}) > 1:
            alike.append(ids)
    if not alike:
        return ""
    vocab = trace.cfg.vocab
    first = listed([quoted(vocab[k]) for k in alike[0]]) + " print alike"
    return first + (" (and other groups too)" if len(alike) > 1 else "")


def _identical(trace: Trace, ids: list[int]) -> bool:
    """Whether the tokens' rows of E (columns of W_U) are all the same; True when the run's weights are
    not known (the tie is then read as the chapter reads it)."""
    if trace.params is None:
        return True
    rows = trace.params["E"][ids] if trace.cfg.tied else trace.params["W_U"][:, ids].T
    return bool((rows == rows[0]).all())


def loss(trace: Trace) -> str:
    g = trace["grad_logits"]
    t = trace.cfg.token_id(trace.target)
    others = np.delete(g, t)
    rest = "positive for every other token" if (others > 0).all() else "zero or positive for the others"
    target = (
        "negative for the target" if g[t] < 0 else "zero for the target (it already has all the probability)"
    )
    after = float(trace["loss_stepped"])
    if after < trace.loss and f"{trace.loss - after:.4f}" == "0.0000":
        step = (
            f"One step against it (size lr = {trace.lr:g}) lowers the loss by less than 0.0001, too little "
            f"to show at four decimals: the target already has {trace['probs'][t]:.4f} of the probability."
        )
    elif after < trace.loss:
        step = f"One step against it (size lr = {trace.lr:g}) lowers the loss."
    else:
        step = f"A step against it (size lr = {trace.lr:g}) cannot lower the loss any further."
    return sentences(
        "Cross-entropy asks one thing: how much probability went to the right answer.",
        f"Its gradient on the logits is p minus the one-hot target: {target}, {rest}.",
        step,
    )


def count_params(trace: Trace) -> str:
    from tinytui.model import count  # the counts' step only

    cfg = trace.cfg
    sizes = count.four_sizes(cfg)
    biggest = sizes[-1].name  # GPT-3, or Llama-3-8B for the Llama family
    vd = f"V·d = {cfg.n_vocab:,}·{cfg.d_model:,} = {count.tying_saves(cfg):,}"  # 4,800 as the facts write it
    # the formula has + d·V only when this model's W_U is its own; a real size tied the other way differs
    other_way = [size.name for size in sizes[1:] if size.tied != cfg.tied]
    differ = "only the width, the depth and the vocabulary differ"
    if other_way:
        names, one = " and ".join(other_way), len(other_way) == 1
        if cfg.tied:
            own = "adds d·V for a W_U of its own" if one else "add d·V for a W_U of their own"
        else:
            own = "ties W_U to E and has no d·V term" if one else "tie W_U to E and have no d·V term"
        differ = f"the width, the depth and the vocabulary differ, and {names} {own}"
    if cfg.attn_bias and not sizes[-1].attn_bias:  # a Qwen2-style model beside the Llama models
        differ = (
            differ.removeprefix("only ")
            + f"; only this model has biases on Q, K and V, which {biggest} lacks"
        )
    out = [
        f"One formula counts this model and {biggest} alike; {differ}.",
        f"Tying the unembedding to E saves {vd} parameters."
        if cfg.tied
        else f"This model's own W_U costs {vd} parameters that tying it to E would save.",
    ]
    wide = cfg.n_heads * cfg.d_head
    if wide != cfg.d_model:
        out.append(
            f"Here the heads together are {wide} wide rather than d = {cfg.d_model}, so the attention terms "
            f"use {wide} where the formula writes d."
        )
    return sentences(*out)
