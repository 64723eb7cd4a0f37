"""The stage table says what each step reads; the forward pass records what each tensor was computed
from (Trace.inputs_of). The two must agree, in every architecture and under every switch: a step's
tensors read no weight or tensor the table does not declare, and every weight the table says a step uses
is one its tensors read, so the screen (a weight's table sits under the step that uses it), `why` and the
backward walk, which read the table, never leave out an input nor name one the step ignores."""

from dataclasses import replace

import pytest

from tests.model.reference_backward import GPT2, MODERN, SWITCHES, random_model
from tinytui.lesson import step_path
from tinytui.lesson.stages import params_read
from tinytui.model.io.model_file import load
from tinytui.model.io.presets import resolve as preset
from tinytui.model.switches import defaults
from tinytui.model.trace import run


def models():
    for name in ("chapter17", "woodland"):
        m = load(preset(name))
        yield name, (m.params, m.prompt, m.target)
    for name, (shape, arch) in (*GPT2.items(), *MODERN.items()):
        yield name, random_model(*shape, **arch)


CASES = [
    pytest.param(model, switches, id=f"{name}, {switch_name}")
    for name, model in models()
    for switch_name, switches in SWITCHES.items()
]


def with_model_activation(switches, cfg):
    """The switches as a session of this model runs them: SWITCHES' activation where it sets one (GELU),
    else the model's own (a gated model's SiLU), as a fresh session starts."""
    if switches.activation == "relu" and defaults(cfg).activation != "relu":
        return replace(switches, activation=defaults(cfg).activation)
    return switches


@pytest.mark.parametrize(("model", "switches"), CASES)
def test_every_tensor_a_step_writes_reads_only_what_the_step_declares(model, switches):
    params, prompt, target = model
    trace = run(params, prompt, target, with_model_activation(switches, params.cfg))
    cfg = trace.cfg
    checked = 0
    for step in step_path.forward(cfg.n_blocks):
        stage = step.stage

        def names(templates, step=step):
            return set(step_path.resolve_for(tuple(templates), cfg, step))

        weights = names(params_read(stage, cfg, trace.switches))
        declared = names(stage.reads) | names(stage.writes) | weights
        read_weights = set()
        for written in names(stage.writes):
            assert written in trace.tensors, (step, written)
            inputs = set(trace.inputs_of(written))
            undeclared = inputs - declared
            assert not undeclared, f"{step}: {written} reads {sorted(undeclared)}"
            read_weights |= inputs & weights
            checked += 1
        if stage.writes:  # step 16 counts the weights and computes nothing from them
            assert read_weights == weights, f"{step}: declares {sorted(weights - read_weights)}, never read"
    assert checked >= 20 * cfg.n_blocks


def test_inputs_of_names_the_formulas_operands_in_order():
    m = load(preset("chapter17"))
    trace = run(m.params, m.prompt, m.target)
    assert trace.inputs_of("blocks.0.attn.2") == ("blocks.0.scores.2", "mask")
    assert trace.inputs_of("blocks.0.mha") == ("blocks.0.W_O", "blocks.0.head.1", "blocks.0.head.2")
    assert trace.inputs_of("emb") == ("E", "ids")
    assert trace.inputs_of("logits") == ("z", "E")


def test_an_untied_models_logits_read_its_w_u_not_e():
    params, prompt, target = random_model(*MODERN["random-llama"][0], **MODERN["random-llama"][1])
    trace = run(params, prompt, target)
    assert trace.inputs_of("logits") == ("z", "W_U")
