"""The lazy gradient (Gradients computes a part of the backward only when one of its names is read) against
the backward as it was computed before it was lazy: everything in one pass from the loss down, each −0.0
cleaned at the end. Every name, its order, its axes and its bytes are the same, whichever name is read
first; and reading a name computes only the parts that lead to it."""

import numpy as np
import pytest

from tests.gpt2.checkpoints import TINY
from tests.random_models import config, weights
from tinytui.model import Switches
from tinytui.model.backward import PREFIX, Gradients, gradients
from tinytui.model.backward_rules import block_backward, embedding_backward, norm_backward, param_axes
from tinytui.model.checkpoint import load_checkpoint
from tinytui.model.names import prefix, split
from tinytui.model.params import param_shapes
from tinytui.model.trace import Axis, run


def eager(params, trace) -> dict:
    """The backward in one pass, as model/backward.py computed it before it was lazy: name -> (axes,
    array)."""
    cfg, sw, eps = params.cfg, trace.switches, params.cfg.eps
    g, pg = {}, {}
    onehot = np.zeros(cfg.n_vocab)
    onehot[cfg.token_id(trace.target)] = 1.0
    g["logits"] = trace["probs"] - onehot
    g["z"] = g["logits"] @ params["E"]
    e_unembed = np.outer(g["logits"], trace["z"])
    last_y = prefix(cfg.n_blocks - 1) + "y"
    dy = np.zeros_like(trace[last_y])
    dy[-1] = norm_backward(g["z"], trace[last_y][-1], eps, params, "lnf_", pg, "lnf_")
    for b in reversed(range(cfg.n_blocks)):
        g[prefix(b) + "y"] = dy
        x_in = trace["x"] if b == 0 else trace[prefix(b - 1) + "y"]
        dy = block_backward(params.block(b), trace, x_in, dy, cfg, sw, b, g, pg)
    g["x"] = dy
    e_lookup = embedding_backward(params, trace, dy, g, pg)
    pg["E"] = e_lookup + e_unembed
    vocab = (Axis("vocab", cfg.vocab), Axis("dims", cfg.dims))
    axes = param_axes(cfg)
    out = {
        "grad.E": (vocab, pg["E"]),
        "grad.E.lookup": (vocab, e_lookup),
        "grad.E.unembed": (vocab, e_unembed),
    }
    out |= {PREFIX + p: (axes[split(p)[1]], pg[p]) for p in param_shapes(cfg) if p != "E"}
    out |= {PREFIX + n: (trace.tensor(n).axes, g[n]) for n in trace if n in g}
    return {name: (ax, arr + 0.0) for name, (ax, arr) in out.items()}  # −0.0 + 0.0 is +0.0, all else kept


def same(lazy: Gradients, reference: dict) -> None:
    assert tuple(lazy) == tuple(reference)  # the same names, in the same order
    for name, (axes, want) in reference.items():
        got = lazy.tensor(name)
        assert got.axes == axes, name
        assert got.values.dtype == want.dtype and got.values.shape == want.shape, name
        assert got.values.tobytes() == want.tobytes(), name  # bit for bit, the sign of each zero too
        assert not got.values.flags.writeable, name


def chapter_case(chapter):
    return chapter.params, chapter.prompt, chapter.target


def three_blocks(**gpt2):
    rng = np.random.default_rng(23)
    cfg = config(6, 3, 2, 5, 9, blocks=3, **gpt2)
    params = weights(rng, cfg, 0.8)
    return params, tuple(cfg.vocab[i] for i in rng.integers(0, 9, 5)), cfg.vocab[4]


def tiny_gpt2():
    model = load_checkpoint(TINY)
    return model.params, model.prompt_pieces("the miller rows the boat to the"), "Ġwater"


GPT2_LIKE = {"positions": "learned", "norm_affine": True, "attn_bias": True, "activation": "gelu", "n_ctx": 6}
SWITCHES = {
    "default": Switches(),
    "post-norm, no skip, head 2 ablated": Switches(norm="post", residual=False, ablated_heads={2}),
    "mask and PE off, GELU": Switches(causal_mask=False, positional_encoding=False, activation="gelu"),
}


@pytest.fixture(
    scope="module", params=["chapter", "three blocks", "three blocks, GPT-2's terms", "tiny GPT-2"]
)
def model(request, chapter):
    if request.param == "chapter":
        return chapter_case(chapter)
    if request.param == "tiny GPT-2":
        return tiny_gpt2()
    return three_blocks(**(GPT2_LIKE if "GPT-2" in request.param else {}))


@pytest.fixture(params=list(SWITCHES))
def case(request, model):
    params, prompt, target = model
    trace = run(params, prompt, target, SWITCHES[request.param])
    return params, trace, eager(params, trace)


def test_everything_equals_the_one_pass_backward(case):
    params, trace, reference = case
    same(gradients(params, trace), reference)


@pytest.mark.parametrize("order", ["the walk's", "the input's first", "shuffled"])
def test_any_order_of_reading_gives_the_same_bits(case, order):
    params, trace, reference = case
    names = list(reference)
    if order == "the input's first":  # grad.x first: every part at once, from the bottom's request
        names = ["grad.x", *names]
    elif order == "shuffled":
        np.random.default_rng(5).shuffle(names)
    else:  # from the loss down, as the backward walk reads them
        names = ["grad.logits", "grad.E.unembed", "grad.z", *names]
    lazy = Gradients(params, trace)
    for name in names:
        lazy[name]
    same(lazy, reference)


def test_reading_a_name_computes_only_what_leads_to_it(case):
    params, trace, reference = case
    lazy = Gradients(params, trace)
    assert len(lazy) == len(reference) and "grad.E" in lazy and "grad.probs" not in lazy
    assert lazy.computed() == ()  # names, length and membership compute nothing
    lazy["grad.logits"]
    assert lazy.computed() == ("grad.logits",)
    lazy["grad.z"]
    assert set(lazy.computed()) == {"grad.logits", "grad.z"}  # not the vocab × d unembedding share
    n = params.cfg.n_blocks
    last = prefix(n - 1)
    lazy[f"grad.{last}W_2"]
    done = set(lazy.computed())
    handed = f"grad.{prefix(n - 2)}y" if n > 1 else "grad.x"  # what the last block hands on
    assert {f"grad.{last}q.1", f"grad.{last}W_Q", f"grad.{last}y", handed} <= done
    assert not done & {
        "grad.E",
        "grad.E.lookup",
        "grad.E.unembed",
        "grad.emb",
        *(("grad.x",) if n > 1 else ()),
    }
    assert not [x for x in done - {handed} for b in range(n - 1) if x.startswith(PREFIX + prefix(b))]
    lazy["grad.E.unembed"]
    assert "grad.E" not in lazy.computed()
    total = Gradients(params, trace)  # E's total without its unembedding share kept
    total["grad.E"]
    assert "grad.E.unembed" not in total.computed() and "grad.E.lookup" in total.computed()
    below = Gradients(params, trace)  # a block's tensors without its weights, which nothing below reads
    below["grad.x"]
    assert "grad.emb" not in below.computed() and "grad.blocks.0.x_norm" in below.computed()
    assert not [n for n in below.computed() if split(n)[1].removeprefix(PREFIX) in ("W_2", "W_Q", "b_1")]
    with pytest.raises(KeyError):
        lazy["grad.no.such"]


def test_a_trace_of_another_shape_is_refused(chapter):
    params, prompt, target = three_blocks()
    with pytest.raises(ValueError, match="different model shape"):
        Gradients(chapter.params, run(params, prompt, target))
