"""Safetensors files whose header lies, crafted byte by byte: every reader of weights (a model file's
weights_file, a GPT-2 folder, a Llama folder) refuses each in one line naming the file and the tensor,
before it allocates anything the header asks for; the command line says it in one line, status 2."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from tests.gpt2.checkpoints import TINY
from tests.llama.checkpoints import LLAMA
from tests.random_models import random_params
from tinytui.cli.main import main
from tinytui.model.io.checkpoint import load_model
from tinytui.model.io.document import ModelFile, to_document
from tinytui.model.io.field_checks import ModelFileError
from tinytui.model.io.model_file import load, save


def split(raw: bytes) -> tuple[dict, bytes]:
    n = int.from_bytes(raw[:8], "little")
    return json.loads(raw[8 : 8 + n]), raw[8 + n :]


def packed(header: bytes | dict, data: bytes) -> bytes:
    text = header if isinstance(header, bytes) else json.dumps(header).encode()
    return len(text).to_bytes(8, "little") + text + data


def in_order(header: dict) -> list[str]:
    """The tensors' names in the order of their bytes."""
    names = [n for n in header if n != "__metadata__"]
    return sorted(names, key=lambda n: header[n]["data_offsets"][0])


def entry(i: int, key: str, value):
    """A lie about the i-th tensor (in the order of its bytes): its key set to value(old) or value."""

    def lie(header: dict, data: bytes) -> bytes:
        e = header[in_order(header)[i]]
        e[key] = value(e[key], len(data)) if callable(value) else value
        return packed(header, data)

    return lie


def twice(header: dict, data: bytes) -> bytes:
    first = in_order(header)[0]
    again = json.dumps({first: header[first]})[1:-1]  # json.loads alone would keep the last of the two
    return packed(b"{" + again.encode() + b", " + json.dumps(header)[1:].encode(), data)


HALF = ("F16", "BF16")


def metadata(value):
    return lambda header, data: packed({**header, "__metadata__": value}, data)


LONG = b"[" * 10**5 + b"]" * 10**5
# name -> (how the file is made from the real one's header and data, or from its bytes, what the line says)
# "{0}" in what it says is the first tensor's name, "{-1}" the last's
CASES = {
    "header length beyond the file": (lambda raw: len(raw).to_bytes(8, "little") + raw[8:], "truncated"),
    "header length 2**63": (lambda raw: (2**63).to_bytes(8, "little") + raw[8:], "larger than tinytui reads"),
    "header length 0": (lambda raw: bytes(8) + raw[8:], "expected a JSON object"),
    "a 100 MB header": ("100MB", "larger than tinytui reads"),
    "five bytes": (lambda raw: raw[:5], "too short for a safetensors file"),
    "header not UTF-8": (lambda raw: packed(b'{"\xff": 1}', b""), "not UTF-8 text at byte 2"),
    "header not JSON": (lambda raw: packed(b"{nope", b""), "expected a JSON object"),
    "header a JSON array": (lambda raw: packed(b"[]", b""), "expected a JSON object"),
    "header nested 100,000 deep": (lambda raw: packed(LONG, b""), "expected a JSON object"),
    "header with NaN": (lambda raw: packed(b'{"a": NaN}', b""), "expected a JSON object"),
    "offsets beyond the file": (entry(-1, "data_offsets", lambda o, n: [o[0], n + 1000]), "{-1}: shape"),
    "offsets beyond 2**64": (entry(-1, "data_offsets", lambda o, n: [o[0], 2**70]), "{-1}: data_offsets"),
    "offsets reversed": (entry(0, "data_offsets", lambda o, n: [o[1], o[0]]), "{0}: data_offsets"),
    "offsets overlapping": (entry(1, "data_offsets", lambda o, n: [o[0] - 2, o[1] - 2]), "overlap the"),
    "offsets leaving a gap": (entry(0, "data_offsets", lambda o, n: [o[0] + 8, o[1] + 8]), "leave bytes 0…8"),
    "offsets negative": (entry(0, "data_offsets", lambda o, n: [-8, o[1]]), "{0}: data_offsets [-8,"),
    "offsets as floats": (entry(0, "data_offsets", lambda o, n: [float(o[0]), o[1]]), "{0}: data_offsets"),
    "bytes left at the end": (lambda h, d: packed(h, d + bytes(16)), "truncated or padded"),
    "bytes missing at the end": (lambda h, d: packed(h, d[:-16]), "truncated or padded"),
    "dtype unknown": (entry(0, "dtype", "Q7"), "{0}: dtype 'Q7': not a dtype safetensors has"),
    "dtype a number": (entry(0, "dtype", 7), "{0}: dtype 7"),
    "dtype of another width": (entry(0, "dtype", lambda d, n: "F32" if d in HALF else "F16"), "{0}: shape"),
    "dtype I64": (entry(0, "dtype", "I64"), "I64"),  # F64's width: refused as not a float
    "dtype BOOL": (entry(0, "dtype", "BOOL"), "{0}: shape"),
    "shape twice the bytes": (entry(0, "shape", lambda s, n: [2 * s[0], *s[1:]]), "{0}: shape"),
    "shape negative": (entry(0, "shape", lambda s, n: [-s[0], *s[1:]]), "expected a list of whole numbers"),
    "shape 2**40 × 2**40": (entry(0, "shape", [2**40, 2**40]), "{0}: shape [1099511627776, 1099511627776]"),
    "shape of floats": (entry(0, "shape", lambda s, n: [float(x) for x in s]), "expected a list of whole"),
    "shape a string": (entry(0, "shape", "16"), "{0}: shape '16'"),
    "an entry with a fourth key": (entry(0, "extra", 1), "{0}: expected {dtype, shape, data_offsets}"),
    "a tensor named twice": (twice, "{0}: the header names it twice"),
    "__metadata__ a list": (metadata([1, 2]), "__metadata__: expected an object of strings"),
    "__metadata__ of numbers": (metadata({"format": 1}), "__metadata__: expected an object of strings"),
}  # fmt: skip


def json_model(tmp: Path) -> tuple[Path, Path]:
    """A model file whose weights are in a safetensors file beside it: (the model file, the weights)."""
    folder = tmp / "json"
    folder.mkdir()
    model = ModelFile("random", "about it", random_params(0, 8, 2, 4, 12, 10, 1), ("t1", "t2"), "t3")
    save(model, folder / "m.json", binary=True)
    return folder / "m.json", folder / json.loads((folder / "m.json").read_text())["weights_file"]


def checkpoint(source: Path, tmp: Path) -> tuple[Path, Path]:
    folder = tmp / source.name
    folder.mkdir()
    for f in source.iterdir():
        if not f.name.startswith("reference."):
            shutil.copy(f, folder / f.name)
    return folder, folder / "model.safetensors"


READERS = {
    "model file": json_model,
    "GPT-2": lambda tmp: checkpoint(TINY, tmp),
    "Llama": lambda tmp: checkpoint(LLAMA, tmp),
}


def craft(weights: Path, case: str) -> dict:
    """Write the case over weights; the real header, to name its tensors."""
    make, _ = CASES[case]
    raw = weights.read_bytes()
    header, data = split(raw)
    if make == "100MB":
        n = 100 * 2**20
        with weights.open("wb") as f:  # sparse: no 100 MB on disk
            f.write(n.to_bytes(8, "little") + b"{")
            f.truncate(8 + n)
    elif make.__code__.co_argcount == 1:
        weights.write_bytes(make(raw))
    else:
        weights.write_bytes(make(header, data))
    return header


def refused(path: Path) -> str:
    with pytest.raises(ModelFileError) as caught:
        load_model(path)
    return str(caught.value)


@pytest.mark.parametrize("reader", list(READERS))
@pytest.mark.parametrize("case", list(CASES))
def test_a_header_that_lies_is_one_line_naming_the_file_and_the_tensor(tmp_path, reader, case):
    model, weights = READERS[reader](tmp_path)
    header = craft(weights, case)
    names = in_order(header)
    says = CASES[case][1].replace("{0}", names[0]).replace("{-1}", names[-1])
    text = refused(model)
    assert "\n" not in text and text.startswith(f"{weights}: "), text
    assert says in text, text


@pytest.mark.parametrize("reader", list(READERS))
def test_a_tensor_named_with_a_line_break_stays_one_line(tmp_path, reader):
    model, weights = READERS[reader](tmp_path)
    header, data = split(weights.read_bytes())
    header["x\n\x1b[2J"] = {"dtype": "F64", "shape": [1], "data_offsets": [len(data), len(data) + 8]}
    weights.write_bytes(packed(header, data + bytes(8)))
    text = refused(model)
    assert "\n" not in text and "\x1b" not in text and "'x\\n\\x1b[2J'" in text, text


@pytest.mark.parametrize("reader", list(READERS))
def test_nan_weights_are_refused_naming_the_tensor_as_in_a_json_model(tmp_path, reader):
    """A model file with NaN among its inline weights is refused naming the weight; a NaN in any
    safetensors file is refused the same way, naming the tensor and the index."""
    model, weights = READERS[reader](tmp_path)
    header, data = split(weights.read_bytes())
    last = in_order(header)[-1]
    e = header[last]
    nan = {"F64": np.array([np.nan], "<f8"), "F32": np.array([np.nan], "<f4")}.get(e["dtype"])
    nan = nan.tobytes() if nan is not None else np.array([0x7FC0], "<u2").tobytes()  # BF16's NaN
    start = e["data_offsets"][0]
    weights.write_bytes(packed(header, data[:start] + nan + data[start + len(nan) :]))
    text = refused(model)
    assert "\n" not in text and f"{last}: nan at [0" in text and "is not a finite number" in text, text


def test_inline_nan_weights_are_refused_naming_the_weight(tmp_path):
    path, _ = json_model(tmp_path)
    inline = to_document(load(path))  # the same model with its weights in the JSON
    inline["weights"]["E"][0][0] = float("nan")
    (path.parent / "inline.json").write_text(json.dumps(inline))
    assert "weights.E[0][0]: NaN is not a finite number" in refused(path.parent / "inline.json")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
@pytest.mark.parametrize("reader", list(READERS))
@pytest.mark.parametrize("kind", ["FIFO", "folder", "link to /dev/zero"])
def test_weights_that_are_no_regular_file_are_refused_without_waiting(tmp_path, reader, kind):
    model, weights = READERS[reader](tmp_path)
    weights.unlink()
    {"FIFO": os.mkfifo, "folder": os.mkdir, "link to /dev/zero": lambda p: os.symlink("/dev/zero", p)}[kind](
        weights
    )
    text = refused(model)
    assert "\n" not in text and text.startswith(f"{weights}: cannot read the weights"), text


@pytest.mark.parametrize(
    "command",
    [[], ["print"], ["lens"], ["patch", "--corrupt", "x", "--foil", "y"], ["generate", "--tokens", "2"]],
)
def test_the_command_line_refuses_a_lying_header_in_one_line(tmp_path, capsys, monkeypatch, command):
    monkeypatch.setattr("sys.stdin", None)
    model, weights = READERS["GPT-2"](tmp_path)
    craft(weights, "shape 2**40 × 2**40")
    assert main([*command, "--model", str(model)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, err
    assert err.startswith(
        f"tinytui: error: {weights}: transformer.h.0.attn.c_attn.bias: shape [1099511627776,"
    )


@pytest.mark.parametrize("reader", list(READERS))
def test_unreadable_weights_are_one_line(tmp_path, monkeypatch, reader):
    """chmod 0 stops no one running as root (as this suite may), so the refusal the system gives
    anyone else is given here by os.open itself."""
    model, weights = READERS[reader](tmp_path)
    real_open = os.open

    def denied(path, *args, **kwargs):
        if os.fspath(path) == str(weights):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", denied)
    text = refused(model)
    assert "\n" not in text and text.startswith(f"{weights}: cannot read the") and "Permission denied" in text


def with_buffer(weights: Path, name: str, shape: list[int]) -> None:
    """A float32 tensor of zeros added at the end of the file, as old checkpoints keep their buffers."""
    header, data = split(weights.read_bytes())
    size = 4 * int(np.prod(shape))
    header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [len(data), len(data) + size]}
    weights.write_bytes(packed(header, data + bytes(size)))


@pytest.mark.parametrize(
    ("reader", "name", "fits", "too_large", "says"),
    [
        ("GPT-2", "transformer.h.0.attn.bias", [1, 1, 32, 32], [1, 1, 64, 64],
         "shape [1, 1, 64, 64]: a causal mask of a context of 32 has 1024 values at most"),
        ("Llama", "model.layers.0.self_attn.rotary_emb.inv_freq", [4], [4096],
         "shape [4096]: a head of 8 has 4 rotary frequencies"),
    ],
)  # fmt: skip
def test_a_buffer_never_read_is_no_larger_than_the_model_makes(tmp_path, reader, name, fits, too_large, says):
    """Causal masks and rotary frequencies in a file are skipped, never read: one of any size passed,
    so a file could be far larger than its weights (and hashing it, for a recording, as slow)."""
    model, weights = READERS[reader](tmp_path)
    real = weights.read_bytes()
    with_buffer(weights, name, fits)
    assert load_model(model).cfg.n_blocks == 2
    weights.write_bytes(real)
    with_buffer(weights, name, too_large)
    assert refused(model) == f"{weights}: {name}: {says}"
