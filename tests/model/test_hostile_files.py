"""Hostile model files: each is refused with one ModelFileError line naming the file and the field —
never another exception, never a hang, never anything written."""

import json
import os

import numpy as np
import pytest

from tinytui.model.config import ModelConfig
from tinytui.model.io.field_checks import ModelFileError
from tinytui.model.io.model_file import MAX_FILE_BYTES, default_model_path, load
from tinytui.model.params import block_param_shapes
from tinytui.model.trace import run


def preset() -> dict:
    return json.loads(default_model_path().read_text())


def text_with(path: tuple, raw: str) -> str:
    """The preset's JSON with the value at path replaced by raw JSON text (which json.dumps can't write)."""
    doc = preset()
    d = doc
    for key in path[:-1]:
        d = d[key]
    d[path[-1]] = "@@RAW@@"
    return json.dumps(doc).replace('"@@RAW@@"', raw)


def doc_with(**changes) -> str:
    doc = preset()
    doc.update(changes)
    return json.dumps(doc)


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def big_context() -> str:
    return doc_with(n_ctx=10_000, prompt=["a"] * 10_000)


def vocab_with(i: int, token: str) -> str:
    """The preset with its i-th token replaced (the vocabulary is checked before the prompt)."""
    doc = preset()
    doc["vocab"][i] = token
    return json.dumps(doc)


def empty_vocabulary() -> str:
    doc = preset()
    doc["vocab"], doc["weights"]["E"] = [], []  # E of shape (0,): a ValueError traceback before
    return json.dumps(doc)


def many_blocks() -> str:
    doc = preset()
    doc["weights"]["blocks"] *= 49
    return json.dumps(doc)


CASES = [
    # (id, the file's text, the field the message names, what it says)
    (
        "10**400 in weights",
        text_with(("weights", "E", 0, 0), "1" + "0" * 400),
        "weights.E[0][0]",
        "not a finite",
    ),
    ("10**400 as eps", text_with(("eps",), "1" + "0" * 400), "eps", "expected a positive finite number"),
    (
        "5000 digits",
        text_with(("weights", "blocks", 0, "b_2", 1), "7" * 5000),
        "weights.blocks[0].b_2[1]",
        "(a 5000-character number) is not a finite",
    ),
    ("5000-digit d_model", text_with(("d_model",), "4" * 5000), "d_model", "positive whole number"),
    (
        "1e400 float",
        text_with(("weights", "blocks", 0, "W_1", 0, 0), "1e400"),
        "weights.blocks[0].W_1[0][0]",
        "1e400 is not a finite",
    ),
    (
        "NaN literal",
        text_with(("weights", "E", 1, 1), "NaN"),
        "weights.E[1][1]",
        "NaN is not a finite number",
    ),
    ("-Infinity eps", text_with(("eps",), "-Infinity"), "eps", "got -Infinity"),
    ("nested 100000", text_with(("weights", "E"), nested(100_000)), "(top level)", "nested too deeply"),
    ("nested in name", text_with(("name",), nested(500)), "name", "expected a string"),
    ("n_ctx 10000", big_context(), "n_ctx", "10000 is larger than tinytui allows (1024)"),
    ("d_model 5000", doc_with(d_model=5000), "d_model", "larger than tinytui allows (4096)"),
    ("n_heads 65", doc_with(n_heads=65), "n_heads", "larger than tinytui allows (64)"),
    ("d_ff 10**6", doc_with(d_ff=10**6), "d_ff", "larger than tinytui allows (16384)"),
    ("49 blocks", many_blocks(), "weights.blocks", "49 blocks is more than tinytui allows (48)"),
    ("a huge vocab", doc_with(vocab=[str(i) for i in range(100_001)]), "vocab", "more than tinytui allows"),
    ("prompt too long", doc_with(prompt=["a"] * 17), "prompt", "17 tokens is longer than the context"),
    ("escape in name", doc_with(name="x\x1b]0;owned\x07"), "name", "control character U+001B at position 1"),
    ("escape in about", doc_with(about="\x1b[2J cleared"), "about", "control character U+001B"),
    ("bidi in name", doc_with(name="abc\u202efdp.exe"), "name", "U+202E"),
    (
        "escape in vocab",
        doc_with(vocab=["a", "chuck", "\x1b[31m", "much", "wood", "woodchuck", "would", "."]),
        "vocab[2]",
        "control character",
    ),
    ("newline in dims", doc_with(dims=["thing", "act\nion", "quantifier", "wood"]), "dims[1]", "U+000A"),
    ("a long name", doc_with(name="n" * 201), "name", "201 characters is too long (at most 200)"),
    # lone UTF-16 surrogates (JSON's \ud800 escapes): not text; print and --record died writing them
    ("surrogate in name", doc_with(name="x\ud800y"), "name", "lone UTF-16 surrogate U+D800 at position 1"),
    ("surrogate in vocab", vocab_with(3, "\udc00"), "vocab[3]", "lone UTF-16 surrogate U+DC00"),
    ("surrogate in dims", doc_with(dims=["\ud83d", "action", "quantifier", "wood"]), "dims[0]", "U+D83D"),
    ("surrogate in about", doc_with(about="\udfff"), "about", "lone UTF-16 surrogate U+DFFF"),
    ("an empty vocabulary", empty_vocabulary(), "vocab", "empty: a model needs at least one token"),
    ("an empty token", vocab_with(3, ""), "vocab[3]", "an empty token"),
    ("a token with a space", vocab_with(0, "a b"), "vocab[0]", "'a b' has a space in it"),
]


@pytest.mark.parametrize(("text", "field", "why"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_hostile_file_gets_one_line_naming_the_field(tmp_path, text, field, why):
    path = tmp_path / "hostile.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ModelFileError) as exc:
        load(path)
    message = str(exc.value)
    assert message.startswith(f"{path}: ") and "\n" not in message and len(message) < 300
    assert f": {field}: " in message
    assert why in message
    assert os.listdir(tmp_path) == ["hostile.json"]  # nothing written beside it


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "model.json"
    os.mkfifo(fifo)
    with pytest.raises(ModelFileError) as exc:
        load(fifo)  # blocked forever before
    assert str(exc.value).startswith(f"{fifo}: cannot read the file")
    assert "a FIFO, device or socket, not a regular file" in str(exc.value)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_a_device_is_refused(device):
    if not os.path.exists(device):
        pytest.skip(f"no {device} here")
    with pytest.raises(ModelFileError, match="a FIFO, device or socket, not a regular file"):
        load(device)


def test_a_folder_is_refused(tmp_path):
    with pytest.raises(ModelFileError, match="it is a folder, not a regular file"):
        load(tmp_path)


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path):
    path = tmp_path / "huge.json"
    with open(path, "wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)  # sparse: costs no disk
    with pytest.raises(ModelFileError, match="larger than 256 MB, the most tinytui reads"):
        load(path)


@pytest.mark.parametrize("name", ["y" * 300, "y" * 5000])
def test_a_too_long_path_is_one_line(tmp_path, name):
    with pytest.raises(ModelFileError, match=r"cannot read the file \(OSError: File name too long\)"):
        load(tmp_path / name)


def test_not_utf8(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"name": "caf\xe9"}')
    with pytest.raises(ModelFileError, match="not UTF-8 text at byte 13"):
        load(path)


def test_gpt2_small_shapes_are_within_the_limits():
    from tinytui.model.io.field_checks import LIMITS

    gpt2 = {"d_model": 768, "n_heads": 12, "d_head": 64, "d_ff": 3072, "n_ctx": 1024, "vocab": 50257}
    assert all(v <= LIMITS[k] for k, v in gpt2.items()) and LIMITS["weights.blocks"] >= 12


def test_heads_times_d_head_need_not_equal_d_model(tmp_path):
    """3 heads of 2 on a d_model of 4 (README: "Model files"): the maths works, so the file loads."""
    doc = preset()
    doc.update(n_heads=3, d_head=2)
    rng = np.random.default_rng(0)
    cfg = ModelConfig(tuple(doc["vocab"]), tuple(doc["dims"]), d_model=4, n_heads=3, d_head=2, d_ff=8)
    shapes = block_param_shapes(cfg)
    doc["weights"]["blocks"] = [{k: rng.normal(size=s).round(3).tolist() for k, s in shapes.items()}]
    path = tmp_path / "six.json"
    path.write_text(json.dumps(doc))
    model = load(path)
    assert model.params["blocks.0.W_O"].shape == (6, 4)
    assert np.isfinite(run(model.params, model.prompt, model.target).loss)
