"""tinytui on the tiny Llama (bf16, Llama 3's rope scaling, grouped heads, untied) and Qwen2 (sharded,
multi-query, Q/K/V biases, tied) checkpoints gives what transformers gave in float64: the token ids, the
logits at every position, the loss, every weight's gradient and the greedy continuation, within 1e-9."""

import numpy as np
import pytest

from tests.llama.checkpoints import FOLDERS, LLAMA, QWEN2, reference, reference_arrays
from tinytui.model.backward.gradients import Gradients
from tinytui.model.config import RopeScaling
from tinytui.model.generation.continuation import generate
from tinytui.model.generation.sampling import Sampling
from tinytui.model.io import llama_weights
from tinytui.model.io.checkpoint import CheckpointModel, load_checkpoint, load_model
from tinytui.model.switches import defaults
from tinytui.model.trace import run

TOL = 1e-9
CASES = [(name, n) for name in FOLDERS for n in range(len(reference(FOLDERS[name])["prompts"]))]


@pytest.fixture(scope="module")
def models() -> dict[str, CheckpointModel]:
    return {name: load_checkpoint(folder) for name, folder in FOLDERS.items()}


def test_each_folder_reads_as_its_family(models):
    llama, qwen = models["tiny-llama"].cfg, models["tiny-qwen2"].cfg
    assert (llama.n_blocks, llama.n_heads, llama.n_kv_heads, llama.d_head, llama.d_model, llama.d_ff) == (
        2, 4, 2, 8, 16, 24,
    )  # fmt: skip
    assert (llama.norm, llama.positions, llama.activation, llama.tied, llama.attn_bias) == (
        "rms", "rope", "swiglu", False, False,
    )  # fmt: skip
    assert llama.rope_theta == 100.0 and llama.rope_scaling == RopeScaling(8.0, 1.0, 4.0, 32)
    assert (qwen.n_heads, qwen.n_kv_heads, qwen.tied, qwen.attn_bias, qwen.out_bias) == (
        4,
        1,
        True,
        True,
        False,
    )
    assert qwen.rope_theta == 10000.0 and qwen.rope_scaling is None and qwen.eps == 1e-6
    assert (
        models["tiny-llama"].family == "llama" and "Llama checkpoint (2 blocks" in models["tiny-llama"].about
    )
    assert "4 heads of 4 over 1 key/value heads" in models["tiny-qwen2"].about
    assert isinstance(load_model(QWEN2 / "config.json"), CheckpointModel)


@pytest.mark.parametrize(("name", "n"), CASES)
def test_ids_logits_at_every_position_and_loss_match(models, name, n):
    model, case = models[name], reference(FOLDERS[name])["prompts"][n]
    assert model.tokenizer.ids(case["text"]) == case["ids"]
    pieces = model.prompt_pieces(case["text"])
    assert list(pieces) == case["pieces"] and model.cfg.token_id(case["target"]) == case["target_id"]
    expected = reference_arrays(FOLDERS[name])[f"{n}.logits"]
    for p in range(len(pieces)):  # the logits at position p are the last of the prompt's first p + 1
        logits = run(model.params, pieces[: p + 1], case["target"])["logits"]
        np.testing.assert_allclose(logits, expected[p], rtol=0, atol=TOL, err_msg=f"position {p}")
    assert run(model.params, pieces, case["target"]).loss == pytest.approx(case["loss"], abs=TOL)


@pytest.mark.parametrize("name", FOLDERS)
def test_every_weights_gradient_matches(models, name):
    model, case = models[name], reference(FOLDERS[name])["prompts"][0]
    trace = run(model.params, model.prompt_pieces(case["text"]), case["target"])
    hf = {
        key.removeprefix("0.grad.").removeprefix("model."): arr
        for key, arr in reference_arrays(FOLDERS[name]).items()
        if key.startswith("0.grad.")
    }
    expected = llama_weights.to_params(model.cfg, hf)  # the same layout as the weights
    grads = Gradients(model.params, trace).for_params()
    assert set(grads) == set(expected)
    for param, g in grads.items():
        np.testing.assert_allclose(g, expected[param], rtol=0, atol=TOL, err_msg=param)


@pytest.mark.parametrize(("name", "n"), CASES)
def test_the_greedy_continuation_matches(models, name, n):
    model, case = models[name], reference(FOLDERS[name])["prompts"][n]
    pieces = model.prompt_pieces(case["text"])
    sw = defaults(model.cfg)
    made = generate(model.params, pieces, case["target"], sw, len(case["greedy"]), Sampling())
    assert made.cached and [model.cfg.token_id(t) for t in made.tokens] == case["greedy"]
    again = generate(
        model.params, pieces, case["target"], sw, len(case["greedy"]), Sampling(), use_cache=False
    )
    assert again.tokens == made.tokens


def test_the_weights_are_read_exactly_and_hashed(models):
    """bf16 widened to float64 is the very value; a sharded model's sha256 names each shard's."""
    import hashlib

    from safetensors.numpy import load_file

    raw = (LLAMA / "model.safetensors").read_bytes()
    assert models["tiny-llama"].weights_sha256 == hashlib.sha256(raw).hexdigest()
    shards = sorted(QWEN2.glob("model-*.safetensors"))
    lines = "".join(f"{s.name} {hashlib.sha256(s.read_bytes()).hexdigest()}\n" for s in shards)
    assert (
        len(shards) == 3 and models["tiny-qwen2"].weights_sha256 == hashlib.sha256(lines.encode()).hexdigest()
    )
    f32 = {k: v for s in shards for k, v in load_file(str(s)).items()}
    q = f32["model.layers.0.self_attn.q_proj.weight"].astype(np.float64)
    assert np.array_equal(models["tiny-qwen2"].params["blocks.0.W_Q"][2], q[8:12].T)
    assert np.array_equal(
        models["tiny-qwen2"].params["E"], f32["model.embed_tokens.weight"].astype(np.float64)
    )
