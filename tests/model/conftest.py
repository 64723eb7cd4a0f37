"""Fixtures of the gradient tests: models of every kind under three sets of switches, each with its trace
and the backward as it was computed before it was lazy (eager), to compare the lazy Gradients with."""

import numpy as np
import pytest

from tests.gpt2.checkpoints import TINY
from tests.random_models import config, weights
from tinytui.model.backward.chain_rules import block_backward, embedding_backward, norm_backward, param_axes
from tinytui.model.io.checkpoint import load_checkpoint
from tinytui.model.names import GRAD, prefix, split
from tinytui.model.params import param_shapes
from tinytui.model.switches import Switches
from tinytui.model.trace import Axis, run


def eager(params, trace) -> dict:
    """The backward in one pass, as model/backward/gradients.py computed it before it was lazy: name -> (axes,
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
    out |= {GRAD + p: (axes[split(p)[1]], pg[p]) for p in param_shapes(cfg) if p != "E"}
    out |= {GRAD + n: (trace.tensor(n).axes, g[n]) for n in trace if n in g}
    return {name: (ax, arr + 0.0) for name, (ax, arr) in out.items()}  # −0.0 + 0.0 is +0.0, all else kept


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
def gradient_model(request, chapter):
    if request.param == "chapter":
        return chapter_case(chapter)
    if request.param == "tiny GPT-2":
        return tiny_gpt2()
    return three_blocks(**(GPT2_LIKE if "GPT-2" in request.param else {}))


@pytest.fixture(params=list(SWITCHES))
def gradient_case(request, gradient_model):
    params, prompt, target = gradient_model
    trace = run(params, prompt, target, SWITCHES[request.param])
    return params, trace, eager(params, trace)


@pytest.fixture(scope="module")
def three_block_model():
    """A random three-block model (params, prompt, target), of another shape than the chapter's."""
    return three_blocks()
