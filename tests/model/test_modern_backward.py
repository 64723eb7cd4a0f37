"""Hand-written backprop against central finite differences for Llama's, Qwen2's and Mistral's choices
(RMSNorm, rotary positions with Llama 3's scaling, grouped and multi-query attention, Qwen2's Q/K/V bias
without b_O, the gated feed-forward, an untied unembedding), alone and mixed with GPT-2's. The reference
forward, the tolerance and the models are in tests/model/reference_backward.py."""

from __future__ import annotations

import numpy as np
import pytest

from tests.model.reference_backward import (
    MODERN,
    assert_matches_fd,
    finite_differences,
    forward,
    random_model,
)
from tinytui.model.backward.gradients import Gradients, gradients
from tinytui.model.names import grad as grad_name
from tinytui.model.switches import Switches, defaults
from tinytui.model.trace import run

SWITCHES = {
    "the model's own": None,  # SiLU for a gated model
    "ReLU, mask off": Switches(causal_mask=False),
    "PE off, head 2 ablated": Switches(positional_encoding=False, ablated_heads={2}, activation="gelu"),
    "post-norm, residual off": Switches(norm="post", residual=False, activation="silu"),
}


@pytest.fixture(scope="module", params=list(MODERN))
def model(request):
    shape, choices = MODERN[request.param]
    return random_model(*shape, **choices)


@pytest.fixture(params=list(SWITCHES))
def case(request, model):
    params, prompt, target = model
    sw = SWITCHES[request.param] or defaults(params.cfg)
    trace = run(params, prompt, target, sw)
    return params, prompt, target, sw, trace, gradients(params, trace)


def test_reference_forward_is_the_model(case):
    params, prompt, target, sw, trace, _ = case
    nodes, losses = forward(dict(params), params.cfg, prompt, target, sw)
    assert set(nodes) - {"pe"} <= set(trace)
    for name, value in nodes.items():
        np.testing.assert_allclose(value[0], trace[name], rtol=0, atol=1e-12, err_msg=name)
    assert losses[0] == pytest.approx(trace.loss, abs=1e-12)


def test_every_parameter_gradient_matches_finite_differences(case):
    params, prompt, target, sw, _, grads = case
    assert params.total() == sum(grads.param(n).size for n in params)
    for name in params:
        g = grads.param(name)
        assert g.shape == params[name].shape
        fd = finite_differences(dict(params), params.cfg, prompt, target, sw, name, g.shape)
        assert_matches_fd(g, fd, grads.loss, name)


def test_every_intermediate_gradient_matches_finite_differences(case):
    params, prompt, target, sw, trace, grads = case
    nodes, _ = forward(dict(params), params.cfg, prompt, target, sw)
    cfg = params.cfg
    per_block = (8 if not cfg.gated else 10) + 4 * cfg.n_heads + 2 * cfg.n_kv_heads
    if cfg.positions == "rope":
        per_block += cfg.n_heads + cfg.n_kv_heads  # q_pre and k_pre
    assert len(nodes) == 4 + cfg.n_blocks * per_block
    for name in nodes:
        g = grads[grad_name(name)]
        assert grads.tensor(grad_name(name)).axes == trace.tensor(name).axes
        fd = finite_differences(dict(params), params.cfg, prompt, target, sw, name, g.shape)
        assert_matches_fd(g, fd, grads.loss, name)


def test_lazy_gradients_are_the_eager_ones_bit_for_bit(case):
    """Whatever is asked first (a block's weights, E, W_U), each gradient is the same bits."""
    params, _, _, _, trace, grads = case
    for first in ("grad.blocks.0.W_K", "grad.E", "grad.blocks.0.x_norm"):
        lazy = Gradients(params, trace)
        lazy[first]
        for name in grads:
            assert lazy[name].tobytes() == grads[name].tobytes(), name
    if not params.cfg.tied:
        assert "grad.E.unembed" not in grads and np.array_equal(grads["grad.E"], grads["grad.E.lookup"])
        rows = np.array([0, 2])
        assert np.array_equal(Gradients(params, trace).rows("grad.E", rows), grads["grad.E"][rows])
