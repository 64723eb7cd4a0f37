"""Provenance (`why`) and the backward walk against the forward pass's own declarations.

model/forward.py declares once what each tensor is computed from (Trace.inputs_of). A `why` rule names
the cells a value is computed from, and a step of the backward walk names the gradients it receives and
hands on; both are written by hand, so these tests hold them to the declarations: a rule reads only its
tensor's declared inputs, and a gradient only flows from a tensor to what that tensor was computed from.
The stream a block reads is one declaration everything takes from the trace (Trace.stream_into).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.model.reference_backward import GPT2, MODERN, RANDOM, SWITCHES, random_model
from tinytui.lesson import step_path
from tinytui.lesson.walk_stages import backward_stages
from tinytui.lesson.why.explain import explain, names_of
from tinytui.model import names
from tinytui.model.backward.gradients import Gradients
from tinytui.model.backward.parts import E_SHARES
from tinytui.model.io.model_file import load
from tinytui.model.io.presets import resolve as preset
from tinytui.model.names import GRAD
from tinytui.model.params import Params
from tinytui.model.trace import Trace, run

CELLS_PER_TENSOR = 6  # cells explained per tensor, spread over it (every rule sees several positions)
# A residual sum hands its gradient to both of its terms alike, so one term's share may be read off the
# other term's gradient (in post-norm the sum itself has no name: its gradient is the branch's).
SUMS = ("x_mid", "y")

MODELS = {
    "random-2blocks": (RANDOM["random-2blocks"], {}),
    "random-gpt2-all": GPT2["random-gpt2-all"],
    "random-llama": MODERN["random-llama"],
    "random-mqa-gelu-untied": MODERN["random-mqa-gelu-untied"],
}
SWITCH_SETS = ("default", "post-norm", "residual off", "head 2 ablated")


def _run(model: str, switches: str) -> tuple[Trace, Params]:
    shape, extra = MODELS[model]
    params, prompt, target = random_model(*shape, **extra)
    return run(params, prompt, target, SWITCHES[switches]), params


def _operands(trace: Trace, params, grads: Gradients) -> dict[str, set[str]]:
    """Every name explain answers for -> the names its rule read, over a spread of its cells."""
    found: dict[str, set[str]] = {}
    for name in names_of(trace, params, grads):
        if name not in trace and name not in grads:
            continue  # a weight is its own value: no rule reads anything
        shape = trace[name].shape if name in trace else grads[name].shape
        every = list(np.ndindex(shape))
        picked = every[:: max(1, len(every) // CELLS_PER_TENSOR)]
        found[name] = {o.name for ix in picked for o in explain(trace, params, name, ix, grads).operands}
    return found


def _written_together(trace: Trace, name: str) -> set[str]:
    """The tensors one formula wrote with name (the norm's mean, variance and row; logits and probs;
    the loss and its step): the same declared inputs."""
    inputs = trace.inputs_of(name)
    return {n for n in trace if trace.inputs_of(n) == inputs} if inputs else {name}


def _undeclared(trace: Trace, read: dict[str, set[str]]) -> list[str]:
    wrong = []
    for name, operands in read.items():
        if name.startswith(GRAD):
            wrong += [f"{name} reads {o}" for o in sorted(operands) if not _flows(trace, o, name)]
        else:
            inputs = trace.inputs_of(name)
            allowed = _written_together(trace, name).union(*(_written_together(trace, i) for i in inputs))
            wrong += [f"{name} reads {o}" for o in sorted(operands - allowed)]
    return wrong


def _flows(trace: Trace, operand: str, name: str) -> bool:
    """Whether the gradient name may be computed from operand: a forward value (any), the gradient of
    a tensor computed from name's tensor, E's shares (E's total), or a residual sum's other term."""
    if not operand.startswith(GRAD):
        return True
    if operand in E_SHARES:
        return name == GRAD + "E"
    of = operand[len(GRAD) :]
    to = "E" if name in E_SHARES else name[len(GRAD) :]  # a share of E's gradient is E's
    if to in trace.inputs_of(of):
        return True
    sums = (r for r in trace if names.split(r)[1] in SUMS)
    return any(set(trace.inputs_of(r)[:2]) == {to, of} for r in sums)  # its two terms


@pytest.mark.parametrize("switches", SWITCH_SETS)
@pytest.mark.parametrize("model", list(MODELS))
def test_every_why_rule_reads_only_what_the_forward_declared(model, switches):
    trace, params = _run(model, switches)
    read = _operands(trace, params, Gradients(params, trace))
    assert len([n for n in read if not n.startswith(GRAD)]) > 20
    assert not _undeclared(trace, read)


def test_the_check_catches_a_rule_that_reads_an_undeclared_tensor():
    m = load(preset("chapter17"))
    trace = run(m.params, m.prompt, m.target)
    grads = Gradients(m.params, trace)
    read = _operands(trace, m.params, grads)
    assert not _undeclared(trace, read)
    q, k = "blocks.0.q.1", "blocks.0.k.1"
    assert _undeclared(trace, {**read, q: read[q] | {"blocks.0.mha"}}) == [f"{q} reads blocks.0.mha"]
    wrong = {**read, GRAD + k: read[GRAD + k] | {GRAD + q}}  # q and k are read together, not from each other
    assert _undeclared(trace, wrong) == [f"{GRAD + k} reads {GRAD + q}"]


def _walk_cases():
    for model in ("random-mqa-gelu-untied", "random-llama-one-block", "random-gpt2-mixed"):
        for switches in ("default", "post-norm", "residual off", "PE off"):
            yield model, switches


@pytest.mark.parametrize(("model", "switches"), list(_walk_cases()))
def test_the_backward_walk_hands_gradients_along_the_forwards_inputs(model, switches):
    """Each step of the walk makes gradients only of what its arriving gradients' tensors were computed
    from (the loss's step: of what the loss was computed from)."""
    shapes = {**MODELS, "random-gpt2-mixed": GPT2["random-gpt2-mixed"]}
    if model == "random-llama-one-block":
        (seed, d, heads, d_head, d_ff, vocab, _, T), extra = MODERN["random-llama"]
        shape = (seed, d, heads, d_head, d_ff, vocab, 1, T)  # the walk names block 0's tensors
    else:
        shape, extra = shapes[model]
    params, prompt, target = random_model(*shape, **extra)
    trace = run(params, prompt, target, SWITCHES[switches])
    cfg = trace.cfg
    assert cfg.n_blocks == 1
    checked = 0
    for step in backward_stages(trace.switches, cfg):

        def full(templates):
            return names.resolve(tuple(templates), cfg.n_heads, 0, cfg.n_kv_heads)

        arriving = [*full(step.incoming), *full(step.within)] or [GRAD + "loss"]
        for made in full((*step.within, *step.params, *step.outgoing)):
            fed = [a for a in arriving if a != made and _flows(trace, a, made)]
            assert fed, f"step {step.number} makes {made} from none of {arriving}"
            checked += 1
    assert checked > 20


@pytest.mark.parametrize("model", ["random-2blocks", "random-gpt2-all", "random-llama"])
def test_the_stream_a_block_reads_is_the_one_the_forward_passed_it(model):
    trace, params = _run(model, "default")
    n = trace.cfg.n_blocks
    assert n == 2
    assert [trace.stream_into(b) for b in range(n)] == ["x", "blocks.0.y"]
    assert trace.stream_into() == "blocks.1.y"
    # the stage table spells the stream without a trace (a cached name per step): the same tensors
    assert [step_path.name("x", step_path.Step(5, b), n) for b in range(n)] == ["x", "blocks.0.y"]
    assert step_path.name("y", step_path.Step(13), n) == trace.stream_into()
    # what the backward hands on at each block and at the final norm is that stream's gradient
    grads = Gradients(params, trace)
    assert {GRAD + trace.stream_into(b) for b in range(n)} | {GRAD + trace.stream_into()} <= set(grads)


def test_a_trace_that_recorded_no_inputs_says_so():
    trace, _ = _run("random-2blocks", "default")
    with pytest.raises(ValueError, match=r"did not record what blocks\.1\.x_norm was computed from"):
        replace(trace, sources={}).stream_into(1)
