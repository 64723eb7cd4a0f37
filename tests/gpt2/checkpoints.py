"""The tiny GPT-2 checkpoint of fixtures/tiny-gpt2 (made by scripts/make_gpt2_fixture.py), what
transformers computed on it, and copies of it with one thing changed, for the loading tests."""

from __future__ import annotations

import json
import shutil
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import load_file, save_file

from tinytui.model.io.checkpoint import load_checkpoint
from tinytui.model.io.field_checks import ModelFileError

TINY = Path(__file__).parent / "fixtures" / "tiny-gpt2"


@cache
def reference() -> dict:
    return json.loads((TINY / "reference.json").read_text(encoding="utf-8"))


def hf_tensors() -> dict[str, np.ndarray]:
    """The fixture's tensors as the file holds them (float32, Hugging Face names)."""
    return load_file(str(TINY / "model.safetensors"))


def copy(tmp: Path, name: str = "tiny") -> Path:
    """A writable copy of the checkpoint folder (without the reference outputs)."""
    folder = tmp / name
    folder.mkdir()
    for f in ("config.json", "model.safetensors", "vocab.json", "merges.txt"):
        shutil.copy(TINY / f, folder / f)
    return folder


def with_tensors(folder: Path, tensors: dict[str, np.ndarray]) -> Path:
    save_file(tensors, str(folder / "model.safetensors"), metadata={"format": "pt"})
    return folder


def with_config(folder: Path, **changes) -> Path:
    doc = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    doc.update(changes)
    (folder / "config.json").write_text(json.dumps(doc), encoding="utf-8")
    return folder


def refused(folder) -> str:
    """The one-line message loading the folder is refused with."""
    with pytest.raises(ModelFileError) as info:
        load_checkpoint(folder)
    text = str(info.value)
    assert "\n" not in text
    return text
