"""tinytui on the tiny GPT-2 checkpoint gives what transformers gave (fixtures/tiny-gpt2/reference.json,
float64): the same token ids, every block's hidden states, each head's attention, the final norm, the
logits and the loss, within 1e-9."""

import hashlib

import numpy as np
import pytest

from tests.gpt2.checkpoints import TINY, copy, hf_tensors, reference, with_tensors
from tinytui.model.io.checkpoint import CheckpointModel, load_checkpoint, load_model
from tinytui.model.trace import run

PROMPTS = reference()["prompts"]


@pytest.fixture(scope="module")
def tiny() -> CheckpointModel:
    return load_checkpoint(TINY)


@pytest.mark.parametrize("case", PROMPTS + reference()["tokenized"], ids=lambda c: repr(c["text"][:20]))
def test_ids_and_pieces_are_transformers(tiny, case):
    assert tiny.tokenizer.ids(case["text"]) == case["ids"]
    assert list(tiny.tokenizer.pieces(case["text"])) == case["pieces"]
    assert [tiny.cfg.token_id(p) for p in case["pieces"]] == case["ids"]  # vocab order is id order
    assert tiny.tokenizer.text(case["pieces"]) == case["text"]


@pytest.mark.parametrize("case", PROMPTS, ids=lambda c: repr(c["text"][:20]))
def test_every_hidden_state_logit_and_loss_match(tiny, case):
    trace = run(tiny.params, tiny.prompt_pieces(case["text"]), case["target"])
    assert case["tensors"].keys() >= {"x", "blocks.0.x_mid", "blocks.1.y", "blocks.1.attn.4", "z", "logits"}
    for name, values in case["tensors"].items():
        expected = np.array(values)
        assert trace[name].shape == expected.shape, name
        np.testing.assert_allclose(trace[name], expected, rtol=0, atol=1e-9, err_msg=name)
    assert trace.loss == pytest.approx(case["loss"], abs=1e-9)
    assert tiny.cfg.token_id(case["target"]) == case["target_id"]


def test_the_checkpoint_is_gpt2_shaped(tiny):
    cfg = tiny.cfg
    assert (cfg.n_blocks, cfg.n_heads, cfg.d_head, cfg.d_model, cfg.d_ff, cfg.n_ctx) == (2, 4, 4, 16, 64, 32)
    assert (cfg.positions, cfg.norm_affine, cfg.attn_bias, cfg.activation) == ("learned", True, True, "gelu")
    assert cfg.n_vocab == 360 and cfg.vocab[0] == "<|endoftext|>" and cfg.eps == 1e-5
    assert tiny.weights_sha256 == hashlib.sha256((TINY / "model.safetensors").read_bytes()).hexdigest()
    assert tiny.name == "tiny-gpt2" and "2 blocks, 4 heads of 4, d 16" in tiny.about
    # the default prompt is a sentence's pieces but the last, which is the target
    assert tiny.tokenizer.text([*tiny.prompt, tiny.target]) == "The capital of France is Paris"
    assert tiny.prompt[-3:] == ("Ġ", "P", "ar") and tiny.target == "is"


def test_conv1d_columns_become_heads(tiny):
    """W_Q[h] is c_attn's columns h·dk…(h+1)·dk; K and V follow at d and 2d; biases likewise."""
    hf = hf_tensors()
    qkv = hf["transformer.h.1.attn.c_attn.weight"].astype(np.float64)
    bias = hf["transformer.h.1.attn.c_attn.bias"].astype(np.float64)
    p = tiny.params
    for h in range(4):
        for i, name in enumerate("QKV"):
            cols = slice(16 * i + 4 * h, 16 * i + 4 * (h + 1))
            assert np.array_equal(p[f"blocks.1.W_{name}"][h], qkv[:, cols])
            assert np.array_equal(p[f"blocks.1.b_{name}"][h], bias[cols])
    assert np.array_equal(p["blocks.1.W_O"], hf["transformer.h.1.attn.c_proj.weight"].astype(np.float64))
    assert np.array_equal(p["blocks.0.W_2"], hf["transformer.h.0.mlp.c_proj.weight"].astype(np.float64))
    assert np.array_equal(p["blocks.0.ln2_b"], hf["transformer.h.0.ln_2.bias"].astype(np.float64))
    assert np.array_equal(p["P"], hf["transformer.wpe.weight"].astype(np.float64))
    assert np.array_equal(p["lnf_g"], hf["transformer.ln_f.weight"].astype(np.float64))


def test_the_hubs_spelling_reads_the_same(tmp_path, tiny):
    """No "transformer." prefix, the old causal-mask buffers, a tied lm_head and float64: same model."""
    bare = {k.removeprefix("transformer."): v.astype(np.float64) for k, v in hf_tensors().items()}
    for b in range(2):
        bare[f"h.{b}.attn.bias"] = np.tril(np.ones((32, 32), np.float64))[None, None]
        bare[f"h.{b}.attn.masked_bias"] = np.array(-1e4)
    bare["lm_head.weight"] = bare["wte.weight"]
    hub = load_checkpoint(with_tensors(copy(tmp_path), bare))
    assert hub.params == tiny.params
    assert hub.weights_sha256 != tiny.weights_sha256  # another file, so another hash


def test_load_model_reads_a_folder_or_a_model_file(tiny):
    from tinytui.model.io.model_file import default_model_path

    assert isinstance(load_model(TINY), CheckpointModel)
    chapter = load_model(default_model_path())
    assert not isinstance(chapter, CheckpointModel) and chapter.params.total() == 172


def test_param_count_is_the_files_sizes_less_the_tied_head(tmp_path, tiny):
    """Every number of the file is a parameter once (E is the unembedding too, so lm_head adds none)."""
    from tinytui.model.count import this_model

    in_file = sum(a.size for a in hf_tensors().values())
    assert tiny.params.total() == in_file == 12864 == this_model(tiny.cfg).total()  # step 16's count
    with_head = {**hf_tensors(), "lm_head.weight": hf_tensors()["transformer.wte.weight"]}
    tied = load_checkpoint(with_tensors(copy(tmp_path), with_head))
    assert tied.params.total() == sum(a.size for a in with_head.values()) - 360 * 16


def test_naming_the_checkpoints_config_or_weights_means_its_folder(tiny):
    for name in ("config.json", "model.safetensors"):
        assert load_model(TINY / name).params == tiny.params
