"""A checkpoint folder's small JSON and text files written to break the reader: config.json with sizes
that would allocate without end, numbers of 5,000 digits, lists where strings belong; vocab.json and
merges.txt broken. Each is one line naming the file and the field, never a traceback."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.gpt2.checkpoints import TINY
from tests.llama.checkpoints import LLAMA, QWEN2
from tinytui.cli.main import main
from tinytui.model.io.checkpoint import load_model
from tinytui.model.io.field_checks import ModelFileError

HUGE = "9" * 5000  # int() refuses more than 4,300 digits with a ValueError of its own


def copied(source: Path, tmp: Path) -> Path:
    folder = tmp / source.name
    folder.mkdir()
    for f in source.iterdir():
        if not f.name.startswith("reference."):
            shutil.copy(f, folder / f.name)
    return folder


def with_text(folder: Path, name: str, change) -> Path:
    path = folder / name
    path.write_text(change(path.read_text(encoding="utf-8")), encoding="utf-8")
    return folder


def config_with(**changes):
    return lambda text: json.dumps({**json.loads(text), **changes})


def number_in(key: str, digits: str):
    """config.json with key's value written as digits, which json.dumps could not write."""
    return lambda text: json.dumps({**json.loads(text), key: 0}).replace(f'"{key}": 0', f'"{key}": {digits}')


def refused(folder: Path) -> str:
    with pytest.raises(ModelFileError) as caught:
        load_model(folder)
    text = str(caught.value)
    assert "\n" not in text, text
    return text


C, V = "config.json", "vocab.json"
# (folder, file, change, what the line says after the file's path)
CASES = {
    "GPT-2 n_layer of 5,000 digits": (TINY, C, number_in("n_layer", HUGE), "n_layer: expected a positive"),
    "GPT-2 model_type a list": (TINY, C, config_with(model_type=["gpt2"]), "model_type \"['gpt2']\""),
    "GPT-2 architectures of objects": (TINY, C, config_with(architectures=[{"a": 1}]), "architectures"),
    "GPT-2 n_layer 10**9": (TINY, C, config_with(n_layer=10**9), "n_layer 1000000000 is larger"),
    "GPT-2 n_embd 0": (TINY, C, config_with(n_embd=0), "n_embd: expected a positive whole number"),
    "GPT-2 n_head negative": (TINY, C, config_with(n_head=-4), "n_head: expected a positive"),
    "GPT-2 heads not dividing d": (TINY, C, config_with(n_head=3), "not a multiple of n_head 3"),
    "GPT-2 vocab_size 0": (TINY, C, config_with(vocab_size=0), "vocab_size: expected a positive"),
    "GPT-2 n_positions a string": (TINY, C, config_with(n_positions="32"), "n_positions: expected"),
    "Llama layers of 5,000 digits": (LLAMA, C, number_in("num_hidden_layers", HUGE), "num_hidden_layers"),
    "Llama model_type an object": (LLAMA, C, config_with(model_type={"a": 1}), "model_type \"{'a': 1}\""),
    "Llama rope_parameters a list": (LLAMA, C, config_with(rope_parameters=[1]), "rope_parameters '[1]'"),
    "Llama rope_theta NaN": (LLAMA, C, config_with(rope_parameters=None, rope_theta=float("nan")),
                             "rope_theta nan: expected a positive number"),
    "Llama huge context": (LLAMA, C, config_with(max_position_embeddings=10**30), "max_position_embeddings"),
    "Llama heads 0": (LLAMA, C, config_with(num_attention_heads=0), "num_attention_heads: expected"),
    "vocab.json an id of 5,000 digits": (TINY, V, lambda t: t[:-1] + f', "zz": {HUGE}}}',
                                         "'zz': id '999999999999… (a 5000-character number)'"),
    "vocab.json a list": (TINY, V, lambda t: json.dumps(list(json.loads(t))), "expected a JSON object"),
    "vocab.json ids twice": (TINY, V, lambda t: json.dumps({**json.loads(t), "zz": 3}), "each once"),
    "merges.txt three pieces": (TINY, "merges.txt", lambda t: t + "a b c\n", "expected two pieces"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_a_hostile_config_or_tokenizer_file_is_one_line(tmp_path, case):
    source, name, change, says = CASES[case]
    folder = with_text(copied(source, tmp_path), name, change)
    text = refused(folder)
    assert text.startswith(str(folder)) and says in text, text


def test_qwen2_layer_types_that_are_no_list_name_no_sliding_layer(tmp_path):
    """layer_types 5 used to be searched for "sliding_attention" (a TypeError traceback); it names no
    layer, so with use_sliding_window false the folder loads as Qwen2 without a window."""
    change = config_with(sliding_window=4, use_sliding_window=False, layer_types=5)
    model = load_model(with_text(copied(QWEN2, tmp_path), "config.json", change))
    assert model.family == "qwen2" and model.cfg.n_blocks == 1


def test_a_weights_file_named_alone_says_what_to_give_instead(tmp_path):
    weights = tmp_path / "gpt2.safetensors"
    shutil.copy(TINY / "model.safetensors", weights)
    assert refused(weights) == (
        f"{weights}: a safetensors file holds weights alone; give the model file (.json) that names it, or "
        "the checkpoint folder it is in"
    )


@pytest.mark.parametrize(
    ("shard", "says"),
    [
        (["a"], "\"['a']\" is not a file beside it"),
        ("zz\x00.safetensors", "'zz\\x00.safetensors' is not a file beside it"),
    ],
)
def test_a_shard_index_naming_no_file_is_one_line(tmp_path, shard, says):
    """A list there raised TypeError (unhashable), a NUL byte ValueError from os.open: tracebacks."""
    folder = copied(QWEN2, tmp_path)
    index = folder / "model.safetensors.index.json"
    doc = json.loads(index.read_text(encoding="utf-8"))
    doc["weight_map"][next(iter(doc["weight_map"]))] = shard
    index.write_text(json.dumps(doc), encoding="utf-8")
    assert refused(folder) == f"{index}: weight_map: {says}"


def test_a_tokenizer_whose_own_pattern_gives_up_refuses_the_text_in_one_line(tmp_path, capsys):
    """tokenizer.json may carry regular expressions; one that backtracks past the regex engine's limit
    on a typed prompt made the tokenizers package panic, and pyo3's PanicException (no Exception)
    ended tinytui with a traceback."""
    folder = copied(LLAMA, tmp_path)
    doc = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
    split = {"type": "Split", "pattern": {"Regex": "(a+)+$"}, "behavior": "Isolated", "invert": False}
    doc["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [split, doc["pre_tokenizer"]]}
    (folder / "tokenizer.json").write_text(json.dumps(doc), encoding="utf-8")
    model = load_model(folder)  # its default sentence splits as it always did
    assert "".join((*model.prompt, model.target)) == "TheĠcapitalĠofĠFranceĠisĠParis"
    assert main(["print", "--model", str(folder), "--prompt", "a" * 40 + "!"]) == 2
    err = capsys.readouterr().err  # the package's own panic report goes to the process's stderr itself
    assert err.count("\n") == 1, err
    assert err.startswith("tinytui: error: --prompt: the tokenizer cannot split this text ("), err


def with_tokenizer(folder: Path, **sections) -> Path:
    path = folder / "tokenizer.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**doc, **sections}), encoding="utf-8")
    return folder


def test_a_tokenizer_that_pads_every_text_pads_nothing_here(tmp_path):
    """padding "Fixed" 10**6 made every text a million pieces (2.7 s and 1 GB at 10**7, per text)."""
    pad = {"strategy": {"Fixed": 10**6}, "direction": "Right", "pad_to_multiple_of": None, "pad_id": 0,
           "pad_type_id": 0, "pad_token": "<pad>"}  # fmt: skip
    model = load_model(with_tokenizer(copied(LLAMA, tmp_path), padding=pad))
    assert "".join((*model.prompt, model.target)) == "TheĠcapitalĠofĠFranceĠisĠParis"


@pytest.mark.parametrize(
    ("rule", "says"),
    [
        ({"type": "Replace", "pattern": {"String": "a"}, "content": "b" * 1000},
         "normalizer: a Replace of 1 character by 1000: tinytui reads rules that make text no longer"),
        ({"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁" * 100}]},
         "normalizer: a Prepend of 100 characters: tinytui reads 8 at most"),
    ],
)  # fmt: skip
def test_a_tokenizer_rule_that_lengthens_text_is_refused(tmp_path, rule, says):
    folder = with_tokenizer(copied(LLAMA, tmp_path), normalizer=rule)
    assert refused(folder) == f"{folder / 'tokenizer.json'}: {says}"
