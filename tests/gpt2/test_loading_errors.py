"""A checkpoint folder that cannot be used is one line naming the file: a missing file, a wrong shape,
a pytorch_model.bin instead of safetensors, another architecture, a broken tokenizer file."""

import builtins
import json
import os

import numpy as np
import pytest

from tests.gpt2.checkpoints import copy, hf_tensors, refused, with_config, with_tensors

FOUR = "config.json, model.safetensors, vocab.json and merges.txt"


@pytest.mark.parametrize("name", ["config.json", "model.safetensors", "vocab.json", "merges.txt"])
def test_a_missing_file_is_named(tmp_path, name):
    folder = copy(tmp_path)
    (folder / name).unlink()
    text = refused(folder)
    assert text == f"{folder / name}: missing (a GPT-2 checkpoint folder has {FOUR})"


def test_a_pickle_instead_of_safetensors_is_refused_unread(tmp_path):
    folder = copy(tmp_path)
    (folder / "model.safetensors").unlink()
    # a file that would run code if unpickled: it must never be opened
    (folder / "pytorch_model.bin").write_bytes(b"\x80\x04cos\nsystem\n(S'echo pwned'\ntR.")
    text = refused(folder)
    assert text.startswith(f"{folder / 'pytorch_model.bin'}: tinytui reads model.safetensors, never a .bin")
    assert "pickle" in text


def test_sharded_weights_are_named(tmp_path):
    folder = copy(tmp_path)
    (folder / "model.safetensors").rename(folder / "model-00001-of-00002.safetensors")
    (folder / "model.safetensors.index.json").write_text("{}")
    assert "split in shards" in refused(folder)


def test_a_wrong_shape_names_the_tensor_and_what_config_json_says(tmp_path):
    tensors = hf_tensors()
    tensors["transformer.h.1.attn.c_attn.weight"] = np.zeros((16, 47), np.float32)
    folder = with_tensors(copy(tmp_path), tensors)
    assert refused(folder) == (
        f"{folder / 'model.safetensors'}: transformer.h.1.attn.c_attn.weight: shape [16, 47], "
        "expected [16, 48] (from config.json)"
    )


def test_a_config_that_disagrees_with_the_weights(tmp_path):
    folder = with_config(copy(tmp_path), n_layer=3)
    assert refused(folder) == (
        f"{folder / 'model.safetensors'}: h.2.ln_1.weight: missing (config.json says 3 blocks of d 16)"
    )
    folder = with_config(copy(tmp_path, "one"), n_layer=1)
    assert (
        "transformer.h.1.attn.c_attn.bias: not a tensor of the GPT-2 that config.json describes"
        in refused(folder)
    )


def test_missing_or_non_finite_tensors(tmp_path):
    tensors = hf_tensors()
    del tensors["transformer.ln_f.bias"]
    assert refused(with_tensors(copy(tmp_path), tensors)).endswith(
        ": ln_f.bias: missing (config.json says 2 blocks of d 16)"
    )
    tensors = hf_tensors()
    tensors["transformer.wpe.weight"][3, 5] = np.nan
    assert refused(with_tensors(copy(tmp_path, "nan"), tensors)).endswith(
        "transformer.wpe.weight: nan at [3, 5] is not a finite number"
    )
    tensors = hf_tensors()
    tensors["lm_head.weight"] = tensors["transformer.wte.weight"] + 1
    assert "lm_head.weight: differs from wte.weight" in refused(with_tensors(copy(tmp_path, "head"), tensors))
    tensors = {k: v.astype(np.int32) if k.endswith("wpe.weight") else v for k, v in hf_tensors().items()}
    assert refused(with_tensors(copy(tmp_path, "int"), tensors)).endswith(
        "wpe.weight: dtype I32: tinytui reads F32, F64, F16, BF16"
    )


def test_not_a_safetensors_file(tmp_path):
    folder = copy(tmp_path)
    (folder / "model.safetensors").write_bytes(b"\xff" * 64)
    text = refused(folder)
    assert text.startswith(f"{folder / 'model.safetensors'}: not a safetensors file tinytui can read (")


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"model_type": "falcon", "architectures": ["FalconForCausalLM"]},
         "model_type 'falcon', architectures FalconForCausalLM: tinytui reads GPT-2 checkpoints (model_type"),
        ({"architectures": ["GPT2ForSequenceClassification"]}, "tinytui reads GPT-2 checkpoints (model_type"),
        ({"activation_function": "relu"}, "activation_function 'relu': tinytui computes GELU's tanh form"),
        ({"scale_attn_by_inverse_layer_idx": True}, "scale_attn_by_inverse_layer_idx True"),
        ({"n_head": 5}, "n_embd 16 is not a multiple of n_head 5"),
        ({"n_positions": 100_000}, "n_positions 100000 is larger than tinytui allows (1024)"),
        ({"n_embd": "16"}, "n_embd: expected a positive whole number, got '16'"),
        ({"layer_norm_epsilon": -1}, "layer_norm_epsilon -1: expected a positive number"),
    ],
)  # fmt: skip
def test_an_unsupported_config_is_named(tmp_path, changes, says):
    folder = with_config(copy(tmp_path), **changes)
    text = refused(folder)
    assert text.startswith(f"{folder / 'config.json'}: ") and says in text


def test_config_json_that_is_not_json(tmp_path):
    folder = copy(tmp_path)
    (folder / "config.json").write_text("{not json")
    assert refused(folder) == f"{folder / 'config.json'}: not a JSON object"


def test_broken_tokenizer_files_are_named(tmp_path):
    folder = copy(tmp_path)
    vocab = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
    (folder / "vocab.json").write_text(json.dumps({**vocab, "extra": 999}), encoding="utf-8")
    assert refused(folder).startswith(f"{folder / 'vocab.json'}: the ids must be 0 to 360, each once")
    (folder / "vocab.json").write_text(json.dumps({**vocab, "\x1b[2J": 360}), encoding="utf-8")
    assert "control character U+001B" in refused(folder)
    (folder / "vocab.json").write_text(json.dumps({**vocab, "extra": 360}), encoding="utf-8")
    assert refused(folder) == f"{folder / 'vocab.json'}: 361 pieces, but config.json says vocab_size 360"
    (folder / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    with (folder / "merges.txt").open("a", encoding="utf-8") as f:
        f.write("a b c\n")
    assert refused(folder).startswith(f"{folder / 'merges.txt'}:")
    assert "expected two pieces separated by one space" in refused(folder)
    (folder / "merges.txt").write_text("#version: 0.2\nzz qq\n", encoding="utf-8")
    assert refused(folder).startswith(f"{folder / 'merges.txt'}: does not fit vocab.json (")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_is_refused_without_waiting(tmp_path):
    folder = copy(tmp_path)
    (folder / "model.safetensors").unlink()
    os.mkfifo(folder / "model.safetensors")
    assert "not a regular file" in refused(folder)


def test_without_tokenizers_installed_the_error_says_what_to_install(tmp_path, monkeypatch):
    real_import = builtins.__import__

    def no_tokenizers(name, *args, **kwargs):
        if name == "tokenizers" or name.startswith("tokenizers."):
            raise ImportError("No module named 'tokenizers'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tokenizers)
    folder = copy(tmp_path)
    assert refused(folder) == (
        f"{folder}: a GPT-2 checkpoint needs the tokenizers package, which is not installed: "
        "pip install 'tinytui[gpt2]'"
    )


def test_a_folder_named_model_safetensors_is_one_line(tmp_path):
    folder = copy(tmp_path)
    (folder / "model.safetensors").unlink()
    (folder / "model.safetensors").mkdir()  # an IsADirectoryError traceback before
    assert refused(folder) == (
        f"{folder / 'model.safetensors'}: cannot read the weights (it is a folder, not a regular file)"
    )


def test_a_lone_surrogate_in_vocab_json_is_one_line_naming_vocab_json(tmp_path):
    folder = copy(tmp_path)
    vocab = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
    first = next(iter(vocab))
    vocab["\udc80x"] = vocab.pop(first)  # json.dumps writes it as the escape \\udc80
    (folder / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    text = refused(folder)  # before: three lines from the tokenizers package naming merges.txt
    assert text == (
        f"{folder / 'vocab.json'}: '\\udc80x': piece: lone UTF-16 surrogate U+DC80 at position 0, "
        "which no UTF-8 text can hold"
    )


def test_an_empty_piece_in_vocab_json_is_refused(tmp_path):
    folder = copy(tmp_path)
    vocab = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
    last = max(vocab, key=vocab.__getitem__)
    vocab[""] = vocab.pop(last)
    (folder / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    assert refused(folder) == f"{folder / 'vocab.json'}: '': an empty piece (id {len(vocab) - 1})"
