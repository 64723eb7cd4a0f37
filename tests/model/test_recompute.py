"""run(..., reuse=trace) recomputes only what an edit or a switch reaches, and gives a full run's bits."""

import numpy as np
import pytest

from tests.random_models import config, weights
from tinytui.model.names import prefix
from tinytui.model.params import param_shapes
from tinytui.model.switches import Switches, defaults
from tinytui.model.trace import run

BLOCKS = 4
GPT2_LIKE = {"positions": "learned", "norm_affine": True, "attn_bias": True, "activation": "gelu"}
PROMPT = ("t3", "t1", "t4", "t1", "t5")  # t0, t2, t6 … are rows of E the prompt does not read


@pytest.fixture(scope="module", params=["chapter-like", "gpt2-like"])
def model(request):
    more = GPT2_LIKE if request.param == "gpt2-like" else {}
    cfg = config(8, 2, 4, 12, 10, blocks=BLOCKS, n_ctx=8, **more)
    params = weights(np.random.default_rng(29), cfg, 0.5)
    switches = defaults(cfg)
    return params, switches, run(params, PROMPT, "t7", switches)


def same_bits(a, b):
    """Both traces have the same tensors, in the same order, with the same bits and labels."""
    assert list(a.tensors) == list(b.tensors)
    for name, t in a.tensors.items():
        u = b.tensors[name]
        assert t.values.tobytes() == u.values.tobytes() and t.values.shape == u.values.shape, name
        assert t.axes == u.axes, name
    assert (a.prompt, a.target, a.switches, a.lr) == (b.prompt, b.target, b.switches, b.lr)


def kept(before, after) -> set[str]:
    """The names whose tensor after is the very same object as before's (not computed again)."""
    return {n for n, t in after.tensors.items() if before.tensors.get(n) is t}


def block_names(trace, b) -> set[str]:
    return {n for n in trace.tensors if n.startswith(prefix(b))}


EMBEDDING = {"ids", "emb", "pe", "x", "mask"}


def before_block(trace, b) -> set[str]:
    """The tensors a run computes before block b: the embedding's and those of blocks 0 … b − 1."""
    return EMBEDDING.union(*(block_names(trace, k) for k in range(b)))


NORM = ("ln1.mean", "ln1.var", "x_norm")
ATTENTION = (*NORM, "q", "k", "v", "scores", "attn", "head")
# what a block computes before what reads each of its weights: kept when only that weight changes
BEFORE_READER = {
    "W_Q": (*NORM, "k", "v"),
    "W_K": (*NORM, "q", "v"),
    "W_V": (*NORM, "q", "k", "scores", "attn"),
    "W_O": ATTENTION,
    "W_1": (*ATTENTION, "mha", "x_mid", "x_mid_norm"),
    "W_2": (*ATTENTION, "mha", "x_mid", "x_mid_norm", "hidden_pre", "hidden"),
    "ln1": (),
    "ln2": (*ATTENTION, "mha", "x_mid"),
}


def in_block(trace, b, *stems) -> set[str]:
    """Block b's tensors named by stem (q: q.1, q.2, …; ln1.mean itself)."""
    local = {n: n[len(prefix(b)) :] for n in block_names(trace, b)}
    return {n for n, short in local.items() if short in stems or short.split(".")[0] in stems}


def test_an_edit_of_every_weight_of_every_block_recomputes_what_reads_it(model):
    params, switches, base = model
    rng = np.random.default_rng(1)
    block_params = [n for n in param_shapes(params.cfg) if n.startswith("blocks.")]
    assert len(block_params) == BLOCKS * (16 if params.cfg.norm_affine else 8)
    for name in block_params:
        b, local = int(name.split(".")[1]), name.split(".")[2]
        # b_Q is read where W_Q is, ln1_g and ln1_b where ln1 is
        reader = local.split("_")[0] if local.startswith("ln") else "W_" + local.split("_")[1]
        index = tuple(int(rng.integers(k)) for k in params[name].shape)
        edited = params.with_edit(name, index, float(params[name][index]) + 0.25)
        again, full = run(edited, PROMPT, "t7", switches, reuse=base), run(edited, PROMPT, "t7", switches)
        same_bits(again, full)
        same = before_block(base, b) | in_block(base, b, *BEFORE_READER[reader])
        if local[-1] in "QKV":  # a head's slice: the other heads read theirs, the same bits, and are kept
            others = {h for h in range(1, params.cfg.n_heads + 1) if h != index[0] + 1}
            same |= {n for n in in_block(base, b, *ATTENTION) if n.split(".")[-1] in map(str, others)}
        moved = {n for n in base.tensors if base[n].tobytes() != full[n].tobytes()}
        # what comes before the edit's reader is kept; so is the rest when the reader's bits come out
        # the same (a row of W_2 for a unit the ReLU silenced at every position); nothing that moved is
        assert same <= kept(base, again) and not kept(base, again) & moved, name
        if not moved:
            assert kept(base, again) == set(base.tensors), name


def test_edits_after_edits_stay_a_full_runs_bits(model):
    """A chain of traces, each reusing the one before (as a session's moves do), never drifts."""
    params, switches, base = model
    rng = np.random.default_rng(2)
    trace, p = base, params
    names = list(param_shapes(params.cfg))
    for _ in range(30):
        name = names[int(rng.integers(len(names)))]
        index = tuple(int(rng.integers(k)) for k in params[name].shape)
        p = p.with_edit(name, index, float(rng.normal()))
        trace = run(p, PROMPT, "t7", switches, reuse=trace)
    same_bits(trace, run(p, PROMPT, "t7", switches))
    back = run(params, PROMPT, "t7", switches, reuse=trace)  # all the way back, as an undo does
    same_bits(back, base)


def test_model_wide_weights_recompute_only_what_reads_them(model):
    params, switches, base = model
    cfg = params.cfg
    head = {"z", "logits", "probs"}
    loss = {"loss", "grad_logits", "logits_stepped", "probs_stepped", "loss_stepped"}
    everything = set(base.tensors)
    cases = [
        ("E", (cfg.token_id("t1"), 2), {"ids", "pe", "mask"}),  # a row the prompt reads: from emb on
        ("E", (cfg.token_id("t6"), 2), everything - {"logits", "probs"} - loss),  # another row: logits on
    ]
    if cfg.learned_positions:
        cases += [("P", (1, 0), {"ids", "emb", "mask"}), ("P", (6, 0), everything)]  # 6: past the prompt
    if cfg.norm_affine:
        cases += [("lnf_g", (3,), everything - head - loss), ("lnf_b", (0,), everything - head - loss)]
    for name, index, same in cases:
        edited = params.with_edit(name, index, 0.75)
        again = run(edited, PROMPT, "t7", switches, reuse=base)
        same_bits(again, run(edited, PROMPT, "t7", switches))
        assert kept(base, again) == same, (name, index)


def test_switches_target_and_lr(model):
    params, switches, base = model
    everything = set(base.tensors)
    loss = {"loss", "grad_logits", "logits_stepped", "probs_stepped", "loss_stepped"}
    for b in range(BLOCKS):
        ablated = Switches(**{**vars(switches), "ablated": frozenset({(b, 2)})})
        again = run(params, PROMPT, "t7", ablated, reuse=base)
        same_bits(again, run(params, PROMPT, "t7", ablated))
        attention = in_block(base, b, *ATTENTION) - {prefix(b) + "head.2"}
        assert kept(base, again) == before_block(base, b) | attention
    heads = switches.toggled("ablated_heads", 1)
    again = run(params, PROMPT, "t7", heads, reuse=base)
    same_bits(again, run(params, PROMPT, "t7", heads))
    assert kept(base, again) == EMBEDDING | in_block(base, 0, *ATTENTION) - {"blocks.0.head.1"}
    # each switch keeps what comes before the first tensor that reads it
    before_reader = {
        "causal_mask": {"ids", "emb", "pe", "x"} | in_block(base, 0, *NORM, "q", "k", "v", "scores"),
        "positional_encoding": {"ids", "emb", "mask"},
        "residual": EMBEDDING | in_block(base, 0, *ATTENTION, "mha"),
        "activation": EMBEDDING | in_block(base, 0, *ATTENTION, "mha", "x_mid", "x_mid_norm", "hidden_pre"),
        "norm": EMBEDDING,
    }
    for name, same in before_reader.items():
        other = switches.toggled(name)
        again = run(params, PROMPT, "t7", other, reuse=base)
        same_bits(again, run(params, PROMPT, "t7", other))
        assert kept(base, again) == same, name
    for target, lr in (("t2", base.lr), ("t7", 0.125)):
        again = run(params, PROMPT, target, switches, lr, reuse=base)
        same_bits(again, run(params, PROMPT, target, switches, lr))
        assert kept(base, again) == everything - loss
    shorter = run(params, PROMPT[:-1], "t7", switches, reuse=base)  # another prompt: nothing kept
    same_bits(shorter, run(params, PROMPT[:-1], "t7", switches))
    assert kept(base, shorter) == set()


def test_nothing_changed_gives_the_trace_back(model):
    params, switches, base = model
    assert run(params, PROMPT, "t7", switches, reuse=base) is base
    index = (0, 1, 2)
    same_value = params.with_edit("blocks.2.W_Q", index, float(params["blocks.2.W_Q"][index]))
    again = run(same_value, PROMPT, "t7", switches, reuse=base)
    assert again.params is same_value and kept(base, again) == set(base.tensors)
    flipped = params.with_edit("blocks.2.b_1", (0,), 0.0).with_edit("blocks.2.b_1", (0,), -0.0)
    zero = run(params.with_edit("blocks.2.b_1", (0,), 0.0), PROMPT, "t7", switches)
    # 0.0 and -0.0 are different weights: b_1 is read again, and whatever the sign reaches is a full run's
    same_bits(run(flipped, PROMPT, "t7", switches, reuse=zero), run(flipped, PROMPT, "t7", switches))


def test_new_arrays_recompute_from_the_first_block_that_reads_them(model):
    """A learning step replaces whole arrays: each one not the same object counts as changed."""
    params, switches, base = model
    W = params["blocks.3.W_1"] * 1.5
    again = run(params.with_arrays({"blocks.3.W_1": W}), PROMPT, "t7", switches, reuse=base)
    same_bits(again, run(params.with_arrays({"blocks.3.W_1": W}), PROMPT, "t7", switches))
    assert kept(base, again) == before_block(base, 3) | in_block(base, 3, *BEFORE_READER["W_1"])
