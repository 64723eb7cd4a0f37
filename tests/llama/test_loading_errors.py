"""A Llama-family folder tinytui cannot compute as the model does is one line naming the file and the
field: another rope scaling, sliding windows that apply, experts, another activation, a missing tokenizer
or tensor, a broken shard index. The older and newer spellings of the rope settings read the same."""

import json

import pytest

from tests.llama.checkpoints import LLAMA, QWEN2, copy, with_config
from tinytui.model.io.checkpoint import load_checkpoint
from tinytui.model.io.field_checks import ModelFileError


def refused(folder) -> str:
    with pytest.raises(ModelFileError) as info:
        load_checkpoint(folder)
    text = str(info.value)
    assert "\n" not in text
    return text


ROPE = {
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 32,
}


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (
            {"rope_parameters": {"rope_type": "yarn", "rope_theta": 100.0, "factor": 4.0}},
            "rope_parameters.rope_type 'yarn'",
        ),
        (
            {"rope_parameters": {**ROPE, "rope_type": "llama3", "rope_theta": 100.0, "factor": "8"}},
            "rope_parameters.factor",
        ),
        (
            {"rope_parameters": {"rope_type": "default", "rope_theta": 100.0, "partial_rotary_factor": 0.5}},
            "partial_rotary_factor 0.5",
        ),
        ({"sliding_window": 8}, "sliding_window 8: this model attends only to the last 8 positions"),
        ({"num_local_experts": 8}, "num_local_experts 8: a mixture of experts"),
        ({"hidden_act": "gelu"}, "hidden_act 'gelu'"),
        ({"mlp_bias": True}, "mlp_bias True"),
        ({"num_key_value_heads": 3}, "num_key_value_heads 3 does not divide num_attention_heads 4"),
        ({"head_dim": 7}, "head_dim 7 is odd"),
        (
            {"num_hidden_layers": 3},
            "model.layers.2.input_layernorm.weight: missing (config.json says 3 blocks",
        ),
        ({"tie_word_embeddings": True}, "lm_head.weight: differs from embed_tokens.weight"),
    ],
)
def test_what_tinytui_cannot_compute_is_named(tmp_path, change, says):
    text = refused(with_config(copy(LLAMA, tmp_path), **change))
    assert says in text


def test_sliding_windows_that_cannot_apply_are_read(tmp_path):
    """Mistral's 4096 is past any prompt tinytui allows; Qwen2's window is off unless use_sliding_window."""
    base = load_checkpoint(LLAMA)
    assert load_checkpoint(with_config(copy(LLAMA, tmp_path), sliding_window=4096)).params == base.params
    qwen = with_config(copy(QWEN2, tmp_path, "q"), sliding_window=8, use_sliding_window=False)
    assert load_checkpoint(qwen).cfg == load_checkpoint(QWEN2).cfg
    assert "sliding_window 8" in refused(with_config(qwen, use_sliding_window=True))


def test_the_older_rope_spelling_reads_as_the_newer(tmp_path):
    """rope_theta at the top and rope_scaling (with "type", as older configs wrote it) = rope_parameters."""
    older = with_config(
        copy(LLAMA, tmp_path),
        drop=("rope_parameters",),
        rope_theta=100.0,
        rope_scaling={**ROPE, "type": "llama3"},
    )
    assert load_checkpoint(older).cfg == load_checkpoint(LLAMA).cfg
    newer = with_config(
        copy(QWEN2, tmp_path, "q"),
        drop=("rope_theta", "rope_scaling"),
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
    )
    assert load_checkpoint(newer).cfg == load_checkpoint(QWEN2).cfg


def test_missing_files_and_a_broken_index_are_named(tmp_path):
    folder = copy(LLAMA, tmp_path)
    (folder / "tokenizer.json").unlink()
    has = "config.json, model.safetensors (or shards with model.safetensors.index.json) and tokenizer.json"
    assert (
        refused(folder)
        == f"{folder / 'tokenizer.json'}: missing (a Llama-family checkpoint folder has {has})"
    )
    folder = copy(LLAMA, tmp_path, "no-weights")
    (folder / "model.safetensors").unlink()
    assert refused(folder).startswith(f"{folder / 'model.safetensors'}: missing (a Llama-family")
    shards = copy(QWEN2, tmp_path, "shards")
    index = shards / "model.safetensors.index.json"
    doc = json.loads(index.read_text())
    doc["weight_map"]["model.norm.weight"] = "../elsewhere.safetensors"
    index.write_text(json.dumps(doc))
    assert "weight_map: '../elsewhere.safetensors' is not a file beside it" in refused(shards)
    missing = copy(QWEN2, tmp_path, "missing-shard")
    next(missing.glob("model-00002-*.safetensors")).unlink()
    assert "model-00002-of-00003.safetensors: missing" in refused(missing)


def test_another_model_type_is_still_refused_in_one_line(tmp_path):
    text = refused(with_config(copy(LLAMA, tmp_path), model_type="mixtral"))
    assert "model_type 'mixtral'" in text


def test_the_vocabularies_of_llama_3_and_qwen2_are_within_bounds():
    from tinytui.model.io.llama_checkpoint import shape_of

    doc = json.loads((LLAMA / "config.json").read_text())
    for size in (128_256, 151_936):
        assert shape_of({**doc, "vocab_size": size}, LLAMA / "config.json")["vocab_size"] == size
    with pytest.raises(ModelFileError, match="vocab_size 200000 is larger than tinytui allows"):
        shape_of({**doc, "vocab_size": 200_000}, LLAMA / "config.json")


def test_older_files_read_the_same(tmp_path):
    """One file instead of shards, names without "model.", each layer's rotary buffer (older
    transformers saved it): the same model; and Mistral's spelling of a Llama reads as one."""
    import numpy as np
    from safetensors.numpy import load_file, save_file

    folder = copy(QWEN2, tmp_path)
    tensors = {}
    for shard in sorted(folder.glob("model-*.safetensors")):
        tensors |= {k.removeprefix("model."): v for k, v in load_file(str(shard)).items()}
        shard.unlink()
    (folder / "model.safetensors.index.json").unlink()
    tensors["layers.0.self_attn.rotary_emb.inv_freq"] = np.ones(2, np.float32)
    save_file(tensors, str(folder / "model.safetensors"), metadata={"format": "pt"})
    assert load_checkpoint(folder).params == load_checkpoint(QWEN2).params
    mistral = with_config(copy(LLAMA, tmp_path, "m"), model_type="mistral", sliding_window=None)
    model = load_checkpoint(mistral)
    assert model.params == load_checkpoint(LLAMA).params and model.family == "mistral"
    assert "A Mistral checkpoint" in model.about
