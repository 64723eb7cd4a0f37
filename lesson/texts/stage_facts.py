"""Each stage's short sentences of numbers, read off a trace (e.g. '24 of 32 … are zero').

stages.py gives every Stage one of these; model.facts.stage_facts(trace, stage) is how callers ask.
Computed here, not in the UI, so the app, the printer and the recorder all say the same thing.
"""

from __future__ import annotations

import numpy as np

from tinytui.lesson.texts.attention_texts import largest
from tinytui.lesson.texts.wording import at, first_block, listed, num, quoted, tied_groups, tops_as_shown
from tinytui.model import ops
from tinytui.model.trace import Trace

SHOWN = 8  # a vector longer than this (GPT-2's 768 numbers) is quoted by its first entries


def _f(x: float) -> str:
    return num(x)  # as the tables print it: 0.0000, never -0.0000


def _vector(v) -> str:
    """'(0.1, 0.2, 0.3, 0.4)'; past SHOWN entries the first ones and how many there are."""
    shown = ", ".join(_f(x) for x in v[:SHOWN])
    return f"({shown})" if len(v) <= SHOWN else f"({shown}, … {len(v)} numbers)"


def none(trace: Trace) -> list[str]:
    return []


def tokens(trace: Trace) -> list[str]:
    ids = " ".join(str(int(i)) for i in trace["ids"])
    target = trace.target
    said = f"target {quoted(target)} is id {trace.cfg.token_id(target)}"
    n = len(trace.prompt)
    return [f"{n} token, id {ids}; {said}" if n == 1 else f"{n} tokens, ids {ids}; {said}"]


def pe(trace: Trace) -> list[str]:
    if trace.cfg.positions == "rope" and not trace.switches.positional_encoding:
        return ["every PE row is zero, and RoPE is switched off: step 6 leaves Q and K unturned"]
    if trace.cfg.positions == "rope":
        return ["every PE row is zero: RoPE adds nothing to x, it turns Q and K at step 6"]
    if trace.cfg.positions == "none":
        return ["every PE row is zero: this run adds no position to x"]
    if trace.switches.positional_encoding:
        return []
    return ["positional encoding is OFF: every PE row is zero, so word order is invisible"]


def add(trace: Trace) -> list[str]:
    last = trace["x"][-1]
    return [f"last position ({quoted(trace.prompt[-1])}) enters {first_block(trace)} as {_vector(last)}"]


def norm1(trace: Trace) -> list[str]:
    if trace.cfg.norm == "rms":
        mean_sq = trace["blocks.0.ln1.mean_sq"][0]
        x = trace["x"][0]  # block 1's input: its mean is what LayerNorm would take away first
        return [
            f"row {at(trace.prompt, 0)}: mean of squares {_f(mean_sq)}, "
            f"first entry {_f(trace['blocks.0.x_norm'][0, 0])}; its mean {_f(x.mean())} stays in (LayerNorm "
            "would subtract it)"
        ]
    mean, var = trace["blocks.0.ln1.mean"][0], trace["blocks.0.ln1.var"][0]
    return [
        f"row {at(trace.prompt, 0)}: mean {_f(mean)}, variance {_f(var)}, "
        f"first entry {_f(trace['blocks.0.x_norm'][0, 0])}"
    ]


def qkv(trace: Trace) -> list[str]:
    """With RoPE: the last position's first query pair before and after it is turned, and by how much."""
    cfg = trace.cfg
    if cfg.positions != "rope" or not trace.switches.positional_encoding:
        return []
    pre = f"blocks.{getattr(trace, 'block', 0)}."  # the block the step shows (steps.focus)
    q_pre, q = trace[pre + "q_pre.1"][-1], trace[pre + "q.1"][-1]
    p, half = len(trace.prompt) - 1, cfg.d_head // 2
    angles = ops.rope_angles(p + 1, cfg.d_head, cfg.rope_theta, cfg.rope_scaling)[-1]
    pair = f"dims 0 and {half}"
    slowest = f"; its slowest pair turns by {_f(angles[-1])}" if half > 1 else ""
    return [
        f"last position ({quoted(trace.prompt[-1])}, p = {p}), head 1, {pair}: Q_pre "
        f"({_f(q_pre[0])}, {_f(q_pre[half])}) turned by {_f(angles[0])} rad is Q ({_f(q[0])}, {_f(q[half])})"
        f"{slowest}"
    ]


def scores(trace: Trace) -> list[str]:
    facts = [f"√d_k = {_f(np.sqrt(trace.cfg.d_head))}"]
    cfg = trace.cfg
    if cfg.positions != "rope" or not trace.switches.positional_encoding:
        return facts
    # RoPE's promise, checked on this run: turn every query and key as if each token stood one place
    # later, and head 1's scores come out the same (to rounding)
    pre = f"blocks.{getattr(trace, 'block', 0)}."
    q_pre, k_pre = trace[pre + "q_pre.1"], trace[pre + f"k_pre.{cfg.kv_head(0) + 1}"]
    T, k = q_pre.shape
    later = ops.rope_angles(T, k, cfg.rope_theta, cfg.rope_scaling, start=1)
    moved = ops.rotate(q_pre, later) @ ops.rotate(k_pre, later).T / np.sqrt(k)
    shift = float(np.abs(moved - trace[pre + "scores.1"]).max())
    change = f"change by at most {shift:.1e}" if shift else "do not change at all"  # not "0.0e+00"
    facts.append(
        f"every position moved one place later: head 1's scores {change}, so they depend only on how far "
        "apart the tokens are"
    )
    return facts


def softmax(trace: Trace) -> list[str]:
    on = trace.switches.causal_mask
    off = "earlier rows now see later tokens" if len(trace.prompt) > 1 else "one token, nothing later to see"
    facts = ["causal mask ON" if on else f"causal mask OFF: {off}"]
    for h in range(1, trace.cfg.n_heads + 1):
        a = trace[f"blocks.0.attn.{h}"]
        # a row whose largest weight is shared names every key that holds it: 'a'/'woodchuck'
        # a repeated token by its place, briefly: 'the' at 0
        top = ["/".join(dict.fromkeys(at(trace.prompt, j, "at") for j in largest(row))) for row in a[:SHOWN]]
        more = f", … ({len(a)} rows)" if len(a) > SHOWN else ""
        sums = f"each row sums to 1{_as_printed(a)}"
        facts.append(f"head {h}: {sums}; strongest key per row: {', '.join(top)}{more}")
    return facts


def _as_printed(a: np.ndarray) -> str:
    """'' when every row's weights, as the table prints them, add to 1.0000; else which rows a reader
    adding them up finds off by rounding (at most three named)."""
    off = [(i, f"{sum(float(_f(v)) for v in row):.4f}") for i, row in enumerate(a)]
    off = [(i, total) for i, total in off if total != "1.0000"]
    if not off:
        return ""
    shown = off[:3]
    rows = " and ".join(", ".join(str(i) for i, _ in shown).rsplit(", ", 1))
    totals = " and ".join(", ".join(t for _, t in shown).rsplit(", ", 1))
    more = f"; {len(off) - 3} more row{'s' if len(off) > 4 else ''} too" if len(off) > 3 else ""
    word = "row" if len(shown) == 1 else "rows"
    return f" (as printed, {word} {rows} add{'s' if len(shown) == 1 else ''} to {totals}{more}: rounding)"


def combine(trace: Trace) -> list[str]:
    off = trace.switches.ablated_in(getattr(trace, "block", 0))  # the block the step shows (steps.focus)
    return [f"head {h} is ablated: its output is replaced by zeros" for h in off]


def residual1(trace: Trace) -> list[str]:
    cfg = trace.cfg
    wood = len(cfg.dims) - 1
    return [
        f"last column ({cfg.dims[wood]}) for {quoted(trace.prompt[-1])}: {_f(trace['x'][-1, wood])} → "
        f"{_f(trace['blocks.0.x_mid'][-1, wood])}"
    ]


def ffn(trace: Trace) -> list[str]:
    if trace.cfg.gated:
        gate, up = trace["blocks.0.gate"], trace["blocks.0.up"]
        shut = int((np.abs(gate) < 0.05).sum())
        if not shut:
            return [
                f"none of the {gate.size} gate values is within 0.05 of zero, so no unit is shut "
                f"(up's largest size is {_f(np.abs(up).max())})"
            ]
        largest = _f(np.abs(up).max())
        if shut == gate.size:  # every unit shut
            if not gate.any():
                said = f"all {shut} gate values are exactly 0, so no unit passes any of up"
                return [f"{said} (largest size {largest})"]
            return [
                f"all {shut} gate values are within 0.05 of zero, so every unit passes almost none of up "
                f"(whose largest size is {largest})"
            ]
        one = shut == 1
        return [
            f"{shut} of {gate.size} gate values {'is' if one else 'are'} within 0.05 of zero, so "
            f"{'that unit passes' if one else 'those units pass'} almost none of up there (whose largest "
            f"size is {_f(np.abs(up).max())})"
        ]
    h = trace["blocks.0.hidden"]
    zeros = int((h == 0).sum())
    relu_zeros = int((trace["blocks.0.hidden_pre"] <= 0).sum())  # what ReLU cuts, whichever is active
    if trace.switches.activation == "relu":
        at_zero = int((trace["blocks.0.hidden_pre"] == 0).sum())  # GELU(0) = 0: RMSNorm keeps exact zeros
        gelu = (
            "GELU would leave none exactly zero"
            if not at_zero
            else f"GELU would leave only the {at_zero} whose pre-activation is exactly 0 at zero"
        )
        why = "ReLU cut every negative pre-activation" if zeros else "no pre-activation was negative"
        return [f"{_of(zeros, h.size, 'hidden value')} exactly zero: {why} ({gelu})"]
    near = int((np.abs(h) < 0.05).sum())
    exact = f"none of the {h.size}" if not zeros else f"{zeros} of {h.size}"  # not "0 of 1152"
    return [
        f"GELU leaves {exact} hidden values exactly zero and {near} within 0.05 of zero; ReLU would cut "
        f"{relu_zeros} of {h.size} to zero"
    ]


def _of(n: int, size: int, noun: str) -> str:
    """n of size things, with its verb: 'all 32 hidden values are', '1 of 32 hidden values is', 'none of
    the 32 hidden values is', 'the one hidden value is'."""
    if n == size == 1:
        return f"the one {noun} is"
    if n == size:
        return f"all {size} {noun}s are"
    if n == 0:
        return f"none of the {size} {noun}s is"
    return f"{n} of {size} {noun}s {'is' if n == 1 else 'are'}"


def final_norm(trace: Trace) -> list[str]:
    return [f"z = {_vector(trace['z'])}"]


def unembed(trace: Trace) -> list[str]:
    p = trace["probs"]
    t = trace.cfg.token_id(trace.target)
    target = f"target {quoted(trace.target)} at {_f(p[t])}"
    facts = [f"prediction: {quoted(trace.prediction)} at {_f(p.max())}{_top_tie(trace)}; {target}"]
    return facts + _ties(trace)


def _top_tie(trace: Trace) -> str:
    """'' unless another token reads as likely as the prediction at the four decimals shown: then who,
    and why the prediction is the one named (argmax takes the first of an exact tie)."""
    p, vocab = trace["probs"], trace.cfg.vocab
    first = int(np.argmax(p))
    others = [k for k in tops_as_shown(p) if k != first]
    if not others:
        return ""
    names = listed([quoted(vocab[k]) for k in others])
    if all(p[k] == p[first] for k in others):
        return f" (tied exactly with {names}: the first in the vocabulary is taken)"
    return f" ({names} also show{'s' if len(others) == 1 else ''} {_f(p.max())}, only a little less)"


def loss(trace: Trace) -> list[str]:
    g = trace["grad_logits"]
    before, after = trace.loss, float(trace["loss_stepped"])
    # checked as a reader would, from the numbers as shown: "=" only where −log of the shown p gives the
    # shown loss; an improvement that is not the difference of the two losses shown says why
    p = _f(np.exp(-before))
    if p == "0.0000":  # −log 0.0000 has no value: the target's p to three significant figures instead
        p = f"{np.exp(-before):.3g}"
    same = float(p) > 0 and _f(-np.log(float(p))) == _f(before)
    improvement = _f(before - after)
    if improvement != _f(round(before, 4) - round(after, 4)):
        improvement += ", from the losses before rounding"
    return [
        f"loss = −log {p} {'=' if same else '≈'} {_f(before)} nats",
        f"∂L/∂ℓ has {int((g < 0).sum())} negative and {int((g > 0).sum())} positive entries{_unseen(g)}",
        f"one step of size {trace.lr:g} on the logits: loss {_f(before)} → {_f(after)} "
        f"(improvement {improvement})",
    ]


def _unseen(g: np.ndarray) -> str:
    """'' unless some nonzero entries of the gradient print as 0.0000, where a reader cannot see their
    sign."""
    hidden = int(sum(1 for v in g if v != 0 and _f(v) == "0.0000"))
    if not hidden:
        return ""
    if hidden == len(g):
        return f" (all {hidden} too small to show at four decimals: each reads 0.0000)"
    return f" ({hidden} of them too small to show at four decimals: they read 0.0000)"


def count_params(trace: Trace) -> list[str]:
    from tinytui.model import count  # the counts' step only

    cfg = trace.cfg
    total, gpt3 = count.this_model(cfg).total(), count.four_sizes(cfg)[-1]
    untied = "" if gpt3.tied == cfg.tied else " (+ d·V: its own W_U)" if cfg.tied else " (no d·V: W_U is E)"
    if cfg.attn_bias and not gpt3.attn_bias:  # a Qwen2-style model beside Llama-3-8B, which has none
        untied = f" ({untied[2:-1]}; no biases)" if untied else " (no biases)"
    return [
        f"{total:,} parameters; by the same formula{untied} {gpt3.name} has {gpt3.total():,}",  # at 80×24
        f"tying the unembedding saves {count.tying_saves(cfg):,}"
        if cfg.tied
        else f"the untied W_U adds {count.tying_saves(cfg):,} (tied to E it would add none)",
        # the model's own norm and positions: a switch adds and removes no weight, and GPT-2's counts
        # beside it are GPT-2's, not GPT-2's with this run's norm
        count.left_out(trace.params.cfg if trace.params is not None else cfg),
    ]


def _ties(trace: Trace) -> list[str]:
    logits = trace["logits"]
    vocab = trace.cfg.vocab
    out = []
    for ids in tied_groups(logits):
        names = listed([quoted(vocab[k]) for k in ids])
        out.append(f"{names} tie at logit {_f(logits[ids[0]])}")
    return out
