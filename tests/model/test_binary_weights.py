"""A large model's weights in a safetensors file beside its JSON: round trip, and one line per bad file."""

import json
import os

import numpy as np
import pytest
from safetensors.numpy import load_file, save_file

from tests.random_models import random_params
from tinytui.model.io.document import ModelFile, parse, to_document
from tinytui.model.io.field_checks import ModelFileError
from tinytui.model.io.model_file import BINARY_ABOVE, load, save


def random_model(seed=0, d=8, heads=2, d_head=4, d_ff=12, vocab=10, blocks=2):
    """random_params as a model file, with one −0.0 so round trips must keep the sign bit."""
    params = random_params(seed, d, heads, d_head, d_ff, vocab, blocks)
    E = np.array(params["E"])
    E[0, 0] = -0.0
    return ModelFile("random", "about it", params.with_arrays({"E": E}), ("t1", "t2"), "t3")


@pytest.fixture
def saved(tmp_path):
    """A model saved as two files, its weights then renamed m.safetensors as saves named them before
    weights were named by content (test_weights_commit.py): such a file must still load, and each bad
    case names it."""
    model = random_model()
    path = tmp_path / "m.json"
    save(model, path, binary=True)
    doc = json.loads(path.read_text())
    os.rename(tmp_path / doc["weights_file"], tmp_path / "m.safetensors")
    doc["weights_file"] = "m.safetensors"
    path.write_text(json.dumps(doc))
    return model, path, tmp_path / "m.safetensors"


def same_bits(a, b):
    return all(a[n].tobytes() == b[n].tobytes() for n in a)


def test_round_trip_bit_for_bit(saved):
    model, path, _ = saved
    doc = json.loads(path.read_text())
    assert doc["weights_file"] == "m.safetensors" and doc["n_blocks"] == 2 and "weights" not in doc
    assert same_bits(load(path).params, model.params)
    save(model, path, binary=True)  # as saved now: named by content
    doc = json.loads(path.read_text())
    assert doc["weights_file"].startswith("m.") and doc["weights_file"] != "m.safetensors"
    back = load(path)
    assert same_bits(back.params, model.params) and np.signbit(back.params["E"][0, 0])
    assert (back.prompt, back.target, back.cfg) == (model.prompt, model.target, model.cfg)
    assert all(not back.params[n].flags.writeable for n in back.params)


def test_the_file_is_plain_safetensors_both_ways(saved):
    model, path, weights = saved
    assert same_bits(load_file(weights), model.params)
    save_file({n: np.array(a) for n, a in model.params.items()}, weights)  # written by the library
    assert same_bits(load(path).params, model.params)


def test_save_picks_the_format_by_size(tmp_path, chapter):
    save(chapter, tmp_path / "small.json")
    assert "weights" in json.loads((tmp_path / "small.json").read_text())
    assert os.listdir(tmp_path) == ["small.json"]
    big = random_model(d=64, heads=4, d_head=16, d_ff=256, vocab=64, blocks=2)
    assert big.params.total() > BINARY_ABOVE
    save(big, tmp_path / "big.json")
    assert "weights_file" in json.loads((tmp_path / "big.json").read_text())
    assert same_bits(load(tmp_path / "big.json").params, big.params)


def header_and_data(weights):
    raw = weights.read_bytes()
    n = int.from_bytes(raw[:8], "little")
    return json.loads(raw[8 : 8 + n]), raw[8 + n :]


def write_raw(weights, header, data):
    text = json.dumps(header).encode()
    weights.write_bytes(len(text).to_bytes(8, "little") + text + data)


def arrays_of(model):
    return {n: np.array(a) for n, a in model.params.items()}


def corrupt(kind, model, path, weights):
    arrays = arrays_of(model)
    if kind == "truncated":
        weights.write_bytes(weights.read_bytes()[:-100])
    elif kind == "short header":
        weights.write_bytes(b"\x10\x00")
    elif kind == "header longer than the file":
        weights.write_bytes((1000).to_bytes(8, "little") + b"{}")
    elif kind == "huge header":
        weights.write_bytes((2**40).to_bytes(8, "little") + b"{}")
    elif kind == "header not JSON":
        weights.write_bytes((5).to_bytes(8, "little") + b"{nope")
    elif kind == "wrong dtype":
        save_file({n: a.astype(np.float32) for n, a in arrays.items()}, weights)
    elif kind == "wrong shape":
        arrays["blocks.1.W_1"] = arrays["blocks.1.W_1"].T.copy()
        save_file(arrays, weights)
    elif kind in ("NaN", "Inf"):
        arrays["blocks.0.b_2"][3] = np.nan if kind == "NaN" else -np.inf
        save_file(arrays, weights)
    elif kind == "missing tensor":
        del arrays["blocks.1.W_O"]
        save_file(arrays, weights)
    elif kind == "unknown tensor":
        arrays["blocks.0.W_X"] = np.zeros(2)
        save_file(arrays, weights)
    elif kind == "padded":
        weights.write_bytes(weights.read_bytes() + b"\0" * 8)
    elif kind == "overlapping offsets":
        header, data = header_and_data(weights)
        header["E"]["data_offsets"] = header["blocks.0.W_O"]["data_offsets"]
        write_raw(weights, header, data)
    elif kind == "symlink":
        os.rename(weights, weights.with_name("real.safetensors"))
        os.symlink("real.safetensors", weights)
    elif kind == "folder":
        weights.unlink()
        weights.mkdir()
    elif kind == "FIFO":
        weights.unlink()
        os.mkfifo(weights)
    elif kind == "absent":
        weights.unlink()
    else:
        doc = json.loads(path.read_text())
        if kind == "escaping path":
            doc["weights_file"] = "../m.safetensors"
        elif kind == "absolute path":
            doc["weights_file"] = str(weights)
        elif kind == "linked folder":
            (path.parent / "sub").symlink_to(path.parent.parent)
            doc["weights_file"] = "sub/m.safetensors"
        elif kind == "no n_blocks":
            del doc["n_blocks"]
        elif kind == "both":
            doc["weights"] = {}
        elif kind == "escape codes":
            doc["weights_file"] = "\x1b[2Jm.safetensors"
        path.write_text(json.dumps(doc))


CASES = {
    "truncated": ("m.safetensors", "truncated"),
    "short header": ("m.safetensors: (header)", "truncated"),
    "header longer than the file": ("(header)", "truncated"),
    "huge header": ("(header)", "larger than tinytui reads"),
    "header not JSON": ("(header)", "not a safetensors header"),
    "wrong dtype": ("m.safetensors: ", "dtype 'F32'"),
    "wrong shape": ("blocks.1.W_1", "shape [12, 8], expected [8, 12]"),
    "NaN": ("blocks.0.b_2", "nan at [3] is not a finite number"),
    "Inf": ("blocks.0.b_2", "-inf at [3] is not a finite number"),
    "missing tensor": ("blocks.1.W_O", "missing"),
    "unknown tensor": ("blocks.0.W_X", "unknown tensor"),
    "padded": ("m.safetensors", "the header says"),
    "overlapping offsets": ("m.safetensors", "data_offsets"),
    "symlink": ("m.safetensors", "symbolic link"),
    "folder": ("m.safetensors", "not a regular file"),
    "FIFO": ("m.safetensors", "not a regular file"),
    "absent": ("m.safetensors", "cannot read the weights file"),
    "escaping path": ("m.json: weights_file", "relative to the model's folder"),
    "absolute path": ("m.json: weights_file", "relative to the model's folder"),
    "linked folder": ("m.json: weights_file", "outside the model's folder"),
    "no n_blocks": ("m.json: n_blocks", "missing"),
    "both": ("m.json: weights_file", "not both"),
    "escape codes": ("m.json: weights_file", "control character"),
}


@pytest.mark.parametrize("kind", list(CASES))
def test_bad_weights_files_are_one_line_naming_file_and_tensor(saved, kind):
    model, path, weights = saved
    corrupt(kind, model, path, weights)
    with pytest.raises(ModelFileError) as caught:
        load(path)
    message = str(caught.value)
    where, why = CASES[kind]
    assert "\n" not in message and "\x1b" not in message, message
    assert where in message and why in message, message


def test_a_document_not_on_disk_cannot_name_a_weights_file():
    doc = to_document(random_model(), weights_file="m.safetensors")
    with pytest.raises(ModelFileError, match="only a model file on disk"):
        parse(doc)


def test_n_blocks_beside_inline_weights_must_agree(tmp_path):
    doc = to_document(random_model())
    doc["n_blocks"] = 3
    with pytest.raises(ModelFileError, match=r"n_blocks: 3, but weights\.blocks has 2 blocks"):
        parse(doc)
    doc["n_blocks"] = True
    with pytest.raises(ModelFileError, match="n_blocks: expected a positive whole number"):
        parse(doc)
    doc["n_blocks"] = 2
    assert parse(doc).params == random_model().params


@pytest.mark.parametrize(
    ("value", "why"),
    [(True, "expected a number, got True"), ("1.5", "expected a number, got '1.5'"), ([1], "expected")],
)
def test_the_vectorised_json_path_refuses_what_the_walk_refuses(value, why):
    doc = to_document(random_model())
    doc["weights"]["blocks"][1]["W_1"][2][3] = value
    with pytest.raises(ModelFileError) as caught:
        parse(doc)
    assert "weights.blocks[1].W_1[2][3]" in str(caught.value) and why in str(caught.value)
