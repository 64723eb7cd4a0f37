"""The lazy gradient (Gradients computes a part of the backward only when one of its names is read) against
the backward as it was computed before it was lazy: everything in one pass from the loss down, each −0.0
cleaned at the end. Every name, its order, its axes and its bytes are the same, whichever name is read
first; and reading a name computes only the parts that lead to it."""

import numpy as np
import pytest

from tinytui.model.backward.gradients import Gradients, gradients
from tinytui.model.names import GRAD, prefix, split
from tinytui.model.trace import run


def same(lazy: Gradients, reference: dict) -> None:
    assert tuple(lazy) == tuple(reference)  # the same names, in the same order
    for name, (axes, want) in reference.items():
        got = lazy.tensor(name)
        assert got.axes == axes, name
        assert got.values.dtype == want.dtype and got.values.shape == want.shape, name
        assert got.values.tobytes() == want.tobytes(), name  # bit for bit, the sign of each zero too
        assert not got.values.flags.writeable, name


def test_everything_equals_the_one_pass_backward(gradient_case):
    params, trace, reference = gradient_case
    same(gradients(params, trace), reference)


@pytest.mark.parametrize("order", ["the walk's", "the input's first", "shuffled"])
def test_any_order_of_reading_gives_the_same_bits(gradient_case, order):
    params, trace, reference = gradient_case
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


def test_reading_a_name_computes_only_what_leads_to_it(gradient_case):
    params, trace, reference = gradient_case
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
    assert not [x for x in done - {handed} for b in range(n - 1) if x.startswith(GRAD + prefix(b))]
    lazy["grad.E.unembed"]
    assert "grad.E" not in lazy.computed()
    total = Gradients(params, trace)  # E's total without its unembedding share kept
    total["grad.E"]
    assert "grad.E.unembed" not in total.computed() and "grad.E.lookup" in total.computed()
    below = Gradients(params, trace)  # a block's tensors without its weights, which nothing below reads
    below["grad.x"]
    assert "grad.emb" not in below.computed() and "grad.blocks.0.x_norm" in below.computed()
    assert not [n for n in below.computed() if split(n)[1].removeprefix(GRAD) in ("W_2", "W_Q", "b_1")]
    with pytest.raises(KeyError):
        lazy["grad.no.such"]


def test_a_trace_of_another_shape_is_refused(chapter, three_block_model):
    params, prompt, target = three_block_model
    with pytest.raises(ValueError, match="different model shape"):
        Gradients(chapter.params, run(params, prompt, target))
