"""The tiny Llama and Qwen2 checkpoints of fixtures/ (made by scripts/make_llama_fixture.py with
transformers), what transformers computed on them (reference.json, reference.safetensors), and copies
with one thing changed, for the loading tests."""

from __future__ import annotations

import json
import shutil
from functools import cache
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file

FIXTURES = Path(__file__).parent / "fixtures"
LLAMA, QWEN2 = FIXTURES / "tiny-llama", FIXTURES / "tiny-qwen2"
FOLDERS = {"tiny-llama": LLAMA, "tiny-qwen2": QWEN2}


@cache
def reference(folder: Path) -> dict:
    return json.loads((folder / "reference.json").read_text(encoding="utf-8"))


@cache
def reference_arrays(folder: Path) -> dict[str, np.ndarray]:
    return load_file(str(folder / "reference.safetensors"))


def copy(source: Path, tmp: Path, name: str = "tiny") -> Path:
    """A writable copy of a checkpoint folder (without the reference outputs)."""
    folder = tmp / name
    folder.mkdir()
    for f in source.iterdir():
        if not f.name.startswith("reference."):
            shutil.copy(f, folder / f.name)
    return folder


def with_config(folder: Path, drop: tuple[str, ...] = (), **changes) -> Path:
    doc = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    for key in drop:
        doc.pop(key, None)
    doc.update(changes)
    (folder / "config.json").write_text(json.dumps(doc), encoding="utf-8")
    return folder
