"""The stage table says what each step reads; the forward pass records what each tensor was computed
from (Trace.inputs_of). The two must agree: a step's tensors read nothing the table does not declare, so
the screen, `why` and the backward walk, which read the table, never leave out an input."""

import pytest

from tests.model.reference_backward import GPT2, random_model
from tinytui.lesson import step_path
from tinytui.lesson.stages import params_read
from tinytui.model.io.model_file import load
from tinytui.model.io.presets import resolve as preset
from tinytui.model.trace import run


def traces():
    for name in ("chapter17", "woodland"):
        m = load(preset(name))
        yield name, run(m.params, m.prompt, m.target)
    params, prompt, target = random_model(*GPT2["random-gpt2-all"][0], **GPT2["random-gpt2-all"][1])
    yield "random-gpt2-all", run(params, prompt, target)


@pytest.mark.parametrize(("name", "trace"), list(traces()), ids=lambda v: v if isinstance(v, str) else "")
def test_every_tensor_a_step_writes_reads_only_what_the_step_declares(name, trace):
    cfg = trace.cfg
    checked = 0
    for step in step_path.forward(cfg.n_blocks):
        stage = step.stage

        def names(templates, step=step):
            return set(step_path.resolve(tuple(templates), cfg.n_heads, step, cfg.n_blocks))

        declared = names(stage.reads) | names(stage.writes) | names(params_read(stage, cfg))
        for written in names(stage.writes):
            assert written in trace.tensors, (step, written)
            undeclared = set(trace.inputs_of(written)) - declared
            assert not undeclared, f"{step}: {written} reads {sorted(undeclared)}"
            checked += 1
    assert checked >= 20 * cfg.n_blocks


def test_inputs_of_names_the_formulas_operands_in_order():
    m = load(preset("chapter17"))
    trace = run(m.params, m.prompt, m.target)
    assert trace.inputs_of("blocks.0.attn.2") == ("blocks.0.scores.2", "mask")
    assert trace.inputs_of("blocks.0.mha") == ("blocks.0.W_O", "blocks.0.head.1", "blocks.0.head.2")
    assert trace.inputs_of("emb") == ("E", "ids")
    assert trace.inputs_of("logits") == ("z", "E")
