"""The backward's list of what gets a gradient (parts.py's block_tensors and parts) against the forward's
declarations (Trace.inputs_of): a tensor has a gradient exactly when the loss was computed from it and
it was computed from some weight. The token ids, the mask and a position table that is a formula have
none; everything between the weights and the loss has one."""

from __future__ import annotations

import pytest

from tests.model.reference_backward import GPT2, MODERN, RANDOM, SWITCHES, random_model
from tinytui.model.backward.gradients import Gradients
from tinytui.model.names import GRAD
from tinytui.model.trace import Trace, run

MODELS = {
    "random-2blocks": (RANDOM["random-2blocks"], {}),
    **GPT2,
    **MODERN,
}


def _upstream(trace: Trace, name: str) -> set[str]:
    """Every tensor and weight name was computed from, directly or through other tensors."""
    found: set[str] = set()
    todo = [name]
    while todo:
        for source in trace.inputs_of(todo.pop()):
            if source not in found:
                found.add(source)
                todo.append(source)
    return found


def _should_have_gradients(trace: Trace) -> set[str]:
    tensors = {n for n in _upstream(trace, "loss") if n in trace}
    return {n for n in tensors if any(w not in trace for w in _upstream(trace, n))}


@pytest.mark.parametrize("switches", ["default", "post-norm", "residual off"])
@pytest.mark.parametrize("model", list(MODELS))
def test_a_tensor_has_a_gradient_when_it_lies_between_the_weights_and_the_loss(model, switches):
    shape, extra = MODELS[model]
    params, prompt, target = random_model(*shape, **extra)
    trace = run(params, prompt, target, SWITCHES[switches])
    with_gradient = {n.removeprefix(GRAD) for n in Gradients(params, trace)} & set(trace)
    expected = _should_have_gradients(trace)
    assert {"x", "logits", "z"} <= expected and not {"ids", "mask", "probs"} & expected
    assert ("pe" in expected) == trace.cfg.learned_positions
    assert with_gradient == expected
