"""The JSON model file (format "tinytui-model/1") on disk: load with full validation, save atomically.

Every problem becomes one ModelFileError whose message names the file and the field, on one line — also
for hostile files: huge or deeply nested numbers, FIFOs and devices, oversized shapes, control characters.

A large model keeps its weights beside the JSON in a safetensors file (every tensor F64, named as Params
names them: "E", "blocks.0.W_Q", …): the JSON then has "weights_file" (a path relative to its folder)
and "n_blocks" instead of "weights". save() writes that form above BINARY_ABOVE weights.

This module reads and writes the files; the document's keys and fields are checked in
model/io/document.py (parse, to_document, ModelFile), each field's check and bound in
model/io/field_checks.py (ModelFileError, LIMITS), the safetensors file in model/io/weights_file.py; the
names callers import from those are offered here too, so `from tinytui.model.io.model_file import …` reaches
all.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from importlib import resources
from pathlib import Path

from tinytui.model.io.document import (
    ModelFile,
    parse,
    to_document,
)
from tinytui.model.io.field_checks import (
    ModelFileError,
    UnusableNumber,
    describe,
    look_alike,
    read_float,
    read_int,
)
from tinytui.model.io.safe_io import TextFileError, check_writable_target, land, read_utf8, stage
from tinytui.model.io.weights_file import weights_bytes, written_for

BINARY_ABOVE = 100_000  # save() writes the weights as safetensors above this many (JSON below)
MAX_FILE_BYTES = 256 * 2**20  # far above any model a person steps through; stops a runaway read


def default_model_path() -> Path:
    return Path(str(resources.files("tinytui.model") / "presets" / "chapter17.json"))


def load_default() -> ModelFile:
    return load(default_model_path())


def load(path: str | Path) -> ModelFile:
    path = Path(path)
    text = _read_text(path)
    try:
        doc = json.loads(text, parse_int=read_int, parse_float=read_float, parse_constant=UnusableNumber)
    except json.JSONDecodeError as exc:
        raise ModelFileError(f"{path}: not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise ModelFileError(f"{path}: (top level): lists or objects nested too deeply") from None
    except MemoryError:
        raise ModelFileError(f"{path}: (top level): too large to hold in memory") from None
    try:
        return parse(doc, source=str(path), folder=path.parent)
    except MemoryError:
        raise ModelFileError(f"{path}: weights: too large to hold in memory") from None


def _read_text(path: Path) -> str:
    try:
        return read_utf8(path, MAX_FILE_BYTES)
    except TextFileError as exc:
        why = exc.reason if exc.byte is not None else f"{exc.kind}: {exc.reason}"
        raise ModelFileError(f"{path}: cannot read the file ({why})") from None


def save(model: ModelFile, path: str | Path, binary: bool | None = None) -> None:
    """Write atomically (a crash mid-write never leaves half a model file) and never through a symbolic
    link: OSError with a sentence in strerror if path is a link or not a regular file.

    binary (default: above BINARY_ABOVE weights): the weights go to <stem>.safetensors beside the JSON.
    The two land as a unit: both are written and synced under hidden temporary names first (ours by
    name, swept by the next write if the process is killed), then renamed into place, the weights
    just before the JSON that names them. A kill between those two renames leaves weights whose header
    names this JSON while the JSON is absent: half_left() knows them, and sweep_half removes them."""
    path = Path(path)
    if pair := look_alike(model.cfg.vocab):  # a file load() would refuse is never written
        i, j = pair
        vocab = model.cfg.vocab
        raise ModelFileError(
            f"{path}: vocab[{j}]: {describe(vocab[j])} looks the same as vocab[{i}] {describe(vocab[i])}: "
            "they differ only by invisible characters"
        )
    if binary is None:
        binary = model.params.total() > BINARY_ABOVE
    weights_file = path.stem + ".safetensors" if binary else None
    text = json.dumps(to_document(model, weights_file), indent=2) + "\n"
    check_writable_target(path)
    moves: list[tuple[Path, Path]] = []
    try:
        if weights_file is not None:
            beside = path.with_name(weights_file)
            moves.append((stage(beside, weights_bytes(model.params, path.name)), beside))
        moves.append((stage(path, text.encode("utf-8")), path))
    except BaseException:
        for tmp, _ in moves:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise
    land(moves)


def weights_beside(path: str | Path) -> Path:
    """Where save() puts a model file's weights: <stem>.safetensors in the same folder."""
    path = Path(path)
    return path.with_name(path.stem + ".safetensors")


def half_left(path: str | Path) -> Path | None:
    """The weights file of model file path when a killed save left it alone: path absent, and beside it
    a regular file (not a link) of this user whose header says it was written for path's name."""
    path = Path(path)
    beside = weights_beside(path)
    try:
        if os.path.lexists(path):
            return None
        st = os.lstat(beside)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(st.st_mode) or (hasattr(os, "getuid") and st.st_uid != os.getuid()):
        return None
    return beside if written_for(beside) == path.name else None


def sweep_half(path: str | Path) -> Path | None:
    """Remove what half_left finds (the weights a killed save of path left without it); what was removed."""
    beside = half_left(path)
    if beside is None:
        return None
    try:
        os.unlink(beside)
    except OSError:
        return None
    return beside
