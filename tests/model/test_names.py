"""One name for every tensor, parameter and gradient; one label for each on screen."""

from tinytui.lesson.stages import STAGES
from tinytui.model import names
from tinytui.model.backward.gradients import gradients
from tinytui.model.trace import run


def test_every_block_tensor_and_weight_carries_its_block(chapter, trace):
    for name in trace:
        b, local = names.split(name)
        if local in names.BLOCK_TENSORS or local.rpartition(".")[0] in names.PER_HEAD:
            assert b == 0 and name.startswith("blocks.0."), name
        else:
            assert b is None and not name.startswith("blocks."), name
    assert set(chapter.params) == {"E", *(f"blocks.0.{p}" for p in names.BLOCK_PARAMS)}


def test_stage_tables_resolve_to_names_the_trace_has(trace):
    for stage in STAGES:
        for name in names.resolve(stage.writes, trace.cfg.n_heads):
            assert name in trace.tensors, (stage.number, name)


def test_old_spellings_map_to_canonical_names():
    assert names.canonical("W_Q") == "blocks.0.W_Q"
    assert names.canonical("W_Q@1") == "blocks.1.W_Q"
    assert names.canonical("attn.2") == "blocks.0.attn.2"
    assert names.canonical("grad.W_2") == "grad.blocks.0.W_2"
    assert names.canonical("grad.q.1") == "grad.blocks.0.q.1"
    for already in ("blocks.1.attn.2", "E", "x", "logits", "grad.E.lookup", "grad.logits"):
        assert names.canonical(already) == already


def test_labels_show_the_block_only_when_there_are_several():
    assert names.label("blocks.0.attn.2") == "attn.2"
    assert names.label("blocks.0.W_Q") == "W_Q"
    assert names.label("blocks.1.W_Q", n_blocks=2) == "W_Q (block 2)"
    assert names.label("grad.blocks.0.y") == "grad.y"
    assert names.label("logits", n_blocks=3) == "logits"


def test_gradients_are_named_grad_plus_the_canonical_name(chapter, trace):
    grads = gradients(chapter.params, trace)
    assert names.grad("W_2") == "grad.blocks.0.W_2" and "grad.blocks.0.W_2" in grads.tensors
    assert "grad.blocks.0.attn.1" in grads.tensors and "grad.x" in grads.tensors
    two = run(chapter.params, chapter.prompt, chapter.target)
    assert list(two) == list(trace)
