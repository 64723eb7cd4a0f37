"""The hand-written backward pass on the tiny GPT-2 checkpoint against central finite differences of
tinytui's own forward pass: a sample of cells of every parameter, GPT-2's new terms included (P, the
norms' gains and biases, the attention biases), with GELU and the causal mask as GPT-2 has them."""

import numpy as np
import pytest

from tests.gpt2.checkpoints import TINY
from tinytui.model.backward.gradients import gradients
from tinytui.model.io.checkpoint import load_checkpoint
from tinytui.model.names import grad as grad_name
from tinytui.model.trace import run

H = 1e-6
CELLS = 6  # per parameter: the cell of the largest gradient and five drawn at random


@pytest.fixture(scope="module")
def case():
    model = load_checkpoint(TINY)
    prompt = model.prompt_pieces("the miller rows the boat to the")
    trace = run(model.params, prompt, "Ġwater")
    return model.params, prompt, trace, gradients(model.params, trace)


def loss_with(params, name, index, value, prompt):
    return run(params.with_edit(name, index, value), prompt, "Ġwater").loss


@pytest.mark.parametrize(
    "name",
    ["E", "P", "lnf_g", "lnf_b"]
    + [
        f"blocks.{b}.{n}"
        for b in (0, 1)
        for n in ("ln1_g", "ln1_b", "W_Q", "W_K", "W_V", "b_Q", "b_K", "b_V")
    ]
    + [
        f"blocks.{b}.{n}"
        for b in (0, 1)
        for n in ("W_O", "b_O", "ln2_g", "ln2_b", "W_1", "b_1", "W_2", "b_2")
    ],
)
def test_parameter_gradients_match_finite_differences(case, name):
    params, prompt, trace, grads = case
    g = grads[grad_name(name)]
    assert g.shape == params[name].shape
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    cells = [np.unravel_index(np.argmax(np.abs(g)), g.shape)]
    cells += [tuple(int(rng.integers(n)) for n in g.shape) for _ in range(CELLS - 1)]
    for index in cells:
        index = tuple(int(i) for i in index)
        v = float(params[name][index])
        fd = (
            loss_with(params, name, index, v + H, prompt) - loss_with(params, name, index, v - H, prompt)
        ) / (2 * H)
        assert abs(g[index] - fd) <= 1e-6 * abs(fd) + 2e-9 * max(1.0, trace.loss), (name, index, g[index], fd)


def test_the_largest_gradients_are_not_zero(case):
    """The sample above would pass on an all-zero gradient of a parameter nothing reads: each is read."""
    params, _, _, grads = case
    for name in params:
        largest = np.abs(grads[grad_name(name)]).max()
        if name.endswith(".b_K"):
            # b_K adds q·b_K to every score of a query's row, and softmax ignores what a row shares:
            # its gradient is zero up to rounding (the finite differences above agree)
            assert largest < 1e-12, name
        else:
            assert largest > 1e-6, name
    # positions past the prompt are never read: their rows of P get exactly nothing
    assert not grads[grad_name("P")][11:].any() and grads[grad_name("P")][:11].all()
