"""run(..., reuse=trace) on Llama-family models: an edit of any weight (a shared key/value head's, a gate's,
W_U, a gain) or a switch recomputes what it reaches and gives a full run's bits; what comes before the
weight's block is kept as it was."""

import numpy as np
import pytest

from tests.model.reference_backward import MODERN, random_model
from tinytui.model.names import prefix
from tinytui.model.switches import defaults
from tinytui.model.trace import run


@pytest.fixture(scope="module", params=["random-llama", "random-qwen2"])
def model(request):
    shape, choices = MODERN[request.param]
    params, prompt, target = random_model(*shape, **choices)
    sw = defaults(params.cfg)
    return params, prompt, target, sw, run(params, prompt, target, sw)


def same_bits(a, b):
    assert list(a.tensors) == list(b.tensors)
    for name, t in a.tensors.items():
        assert t.values.tobytes() == b.tensors[name].values.tobytes(), name


@pytest.mark.parametrize("weight", ["W_K", "W_V", "W_gate", "W_up", "W_down", "ln1_g", "ln2_g", "b_K"])
def test_an_edit_in_the_last_block_recomputes_only_that_block_on(model, weight):
    params, prompt, target, sw, before = model
    cfg = params.cfg
    last = cfg.n_blocks - 1
    name = f"{prefix(last)}{weight}"
    if name not in params:
        pytest.skip(f"{weight} is not in this model")
    edited = params.with_edit(name, (0,) * params[name].ndim, 0.75)
    again = run(edited, prompt, target, sw, reuse=before)
    same_bits(again, run(edited, prompt, target, sw))
    earlier = [
        n for n in before.tensors if not n.startswith(prefix(last)) and n not in ("z", "logits", "probs")
    ]
    earlier = [
        n
        for n in earlier
        if n not in ("loss", "grad_logits", "logits_stepped", "probs_stepped", "loss_stepped")
    ]
    assert all(again.tensors[n] is before.tensors[n] for n in earlier)


@pytest.mark.parametrize("model_wide", ["W_U", "lnf_g", "E"])
def test_a_model_wide_edit_gives_a_full_runs_bits(model, model_wide):
    params, prompt, target, sw, before = model
    if model_wide not in params:
        pytest.skip(f"{model_wide} is not in this model")
    edited = params.with_edit(model_wide, (1,) * params[model_wide].ndim, -0.5)
    same_bits(run(edited, prompt, target, sw, reuse=before), run(edited, prompt, target, sw))


@pytest.mark.parametrize("switch", ["positional_encoding", "activation", "norm", "causal_mask"])
def test_a_switch_gives_a_full_runs_bits(model, switch):
    params, prompt, target, sw, before = model
    other = sw.toggled(switch)
    again = run(params, prompt, target, other, reuse=before)
    same_bits(again, run(params, prompt, target, other))
    if switch == "positional_encoding":  # RoPE off: q and k are their projections, unturned
        assert np.array_equal(again["blocks.0.q.1"], again["blocks.0.q_pre.1"])
