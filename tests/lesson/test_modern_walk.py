"""The backward walk spelt for Llama's choices: every gradient a step names exists in the model's
backward (k and v per key/value head, q_pre and k_pre with RoPE, the gate's tensors, W_U, RMSNorm's gain
alone), and the rules say RMSNorm, the gate, the turn back and W_U where the model has them."""

import pytest

from tests.model.reference_backward import MODERN, random_model
from tinytui.lesson.walk_stages import backward_stages
from tinytui.model.backward.gradients import gradients
from tinytui.model.names import resolve
from tinytui.model.switches import defaults
from tinytui.model.trace import run


@pytest.mark.parametrize("name", list(MODERN))
def test_every_gradient_a_step_names_exists(name):
    shape, choices = MODERN[name]
    params, prompt, target = random_model(*shape, **choices)
    cfg = params.cfg
    grads = gradients(params, run(params, prompt, target, defaults(cfg)))
    for step in backward_stages(defaults(cfg), cfg):
        for b in range(cfg.n_blocks):
            named = (*step.incoming, *step.within, *step.params, *step.outgoing)
            for one in resolve(named, cfg.n_heads, b, cfg.n_kv_heads):
                assert one in grads, (step.number, one)


def test_the_llama_rules_say_what_the_model_computes():
    shape, choices = MODERN["random-llama"]
    cfg = random_model(*shape, **choices)[0].cfg
    steps = {s.number: s for s in backward_stages(defaults(cfg), cfg)}
    text = {n: " ".join(s.rules) for n, s in steps.items()}
    assert "∂L/∂W_U = zᵀ · ∂L/∂ℓ" in text[14] and steps[14].params == ("grad.W_U",)
    assert "RMS(y_T)" in text[13] and steps[13].params == ("grad.lnf_g",)
    assert "∂L/∂gate_pre = ∂L/∂gate ⊙ SiLU′(gate_pre)" in text[11]
    assert "turned back by the same angles" in text[6] and "W_K[g]" in text[6]
    assert "∂L/∂K_g = Σ over g's query heads" in text[7]
    assert "the lookup share alone" in text[2]
