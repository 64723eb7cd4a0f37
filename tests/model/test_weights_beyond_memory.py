"""Weights whose sizes are each within tinytui's bounds but together need more memory than the process
may have (a sparse safetensors file of zeros costs no disk) are refused before a byte is read, in one
line saying how much they need and how much there is, never read until the machine runs out."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gpt2.checkpoints import TINY
from tinytui.model.config import ModelConfig
from tinytui.model.io.checkpoint import load_model
from tinytui.model.io.field_checks import ModelFileError
from tinytui.model.params import param_shapes

LIMIT = 3 * 2**30  # the child's address space: far less than the weights below, ample to start tinytui


def sparse_weights(
    path: Path, shapes: dict[str, tuple[int, ...]], dtype: str = "F64", width: int = 8
) -> None:
    """A consistent safetensors file of zeros, as large as the shapes say, holding no disk."""
    header, end = {}, 0
    for name, shape in shapes.items():
        n = 8
        for size in shape:
            n *= size
        header[name] = {"dtype": "F64", "shape": list(shape), "data_offsets": [end, end + n]}
        end += n
    text = json.dumps(header).encode()
    with path.open("wb") as f:
        f.write(len(text).to_bytes(8, "little") + text)
        f.truncate(8 + len(text) + end)


def large_model_file(folder: Path) -> Path:
    """A model file of 16 blocks of d 2048 (6 GB of float64 weights) naming its sparse weights file."""
    d, heads, d_head, d_ff, blocks = 2048, 16, 128, 8192, 16
    vocab, dims = tuple(f"t{i}" for i in range(10)), tuple(f"d{i}" for i in range(d))
    cfg = ModelConfig(vocab, dims, d, heads, d_head, d_ff, n_blocks=blocks)
    sparse_weights(folder / "big.safetensors", param_shapes(cfg))
    doc = {"format": "tinytui-model/1", "vocab": list(vocab), "dims": list(dims), "d_model": d,
           "n_heads": heads, "d_head": d_head, "d_ff": d_ff, "n_blocks": blocks,
           "weights_file": "big.safetensors", "prompt": ["t1"], "target": "t2"}  # fmt: skip
    (folder / "big.json").write_text(json.dumps(doc))
    return folder / "big.json"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is enforced on Linux")
def test_under_a_memory_limit_too_large_weights_are_refused_unread(tmp_path):
    model = large_model_file(tmp_path)
    limit = lambda: resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))  # noqa: E731
    child = subprocess.Popen(
        [sys.executable, "-m", "tinytui", "print", "--model", str(model)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=limit,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    out, err = child.stdout.read(), child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    assert child.returncode == 2 and out == b"", err
    line = err.decode()
    assert line.count("\n") == 1, line
    assert line.startswith(f"tinytui: error: {tmp_path / 'big.safetensors'}: "), line
    assert "its weights take 6.0 GB as float64, more than the 3.0 GB this machine" in line, line
    assert usage.ru_maxrss < 400 * 1024  # KB: tinytui itself, not the weights (before: up to the limit)


def test_a_checkpoint_too_large_for_the_room_is_refused_before_it_is_read(tmp_path, monkeypatch):
    """GPT-2's reader reads the whole file to check every value is finite: 36 GB of a sparse file took
    93 s before it ran out of memory. The room is made small here so that the tiny checkpoint is too
    large for it."""
    folder = tmp_path / "tiny"
    shutil.copytree(TINY, folder, ignore=shutil.ignore_patterns("reference.*"))
    monkeypatch.setattr("tinytui.model.io.memory_room.room", lambda: 2**16)
    with pytest.raises(ModelFileError) as caught:
        load_model(folder)
    assert str(caught.value) == (
        f"{folder / 'model.safetensors'}: its weights take 100 KB as float64, more than the 64 KB this "
        "machine, or the limit it runs under, gives tinytui"
    )


def test_a_json_model_file_of_too_many_values_is_refused_before_it_is_parsed(tmp_path, monkeypatch):
    """Parsed, each number of a model file's JSON costs tens of bytes: 243 MB of "0," held 2.3 GB.
    The bound is lowered here so that the chapter's own file (its 172 weights and its vocabulary) is
    beyond it; at 16,000,000 it is 160 times the weights a save writes inline."""
    from tinytui.model.io import model_file

    path = tmp_path / "chapter.json"
    shutil.copy(model_file.default_model_path(), path)
    commas = path.read_text(encoding="utf-8").count(",")
    monkeypatch.setattr(model_file, "MAX_JSON_VALUES", commas - 1)
    with pytest.raises(ModelFileError) as caught:
        load_model(path)
    assert str(caught.value) == (
        f"{path}: (top level): some {commas:,} values, more than tinytui reads from a model file's JSON "
        f"({commas - 1:,}); a model this large keeps its weights in a safetensors file"
    )
    monkeypatch.setattr(model_file, "MAX_JSON_VALUES", commas)
    assert load_model(path).params.total() == 172
