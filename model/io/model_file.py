"""The JSON model file (format "tinytui-model/1") on disk: load with full validation, save atomically.

Every problem becomes one ModelFileError whose message names the file and the field, on one line — also
for hostile files: huge or deeply nested numbers, FIFOs and devices, oversized shapes, control characters.

A large model keeps its weights beside the JSON in a safetensors file (every tensor F64, named as Params
names them: "E", "blocks.0.W_Q", …): the JSON then has "weights_file" (a path relative to its folder)
and "n_blocks" instead of "weights". save() writes that form above BINARY_ABOVE weights, naming the
weights file by its content (weights_name) so that the JSON's rename alone decides which weights a model
has; a file written before that (<stem>.safetensors) loads as it always did.

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
import re
import stat
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
from tinytui.model.io.safe_io import (
    TextFileError,
    check_writable_target,
    folder_held,
    land,
    read_regular_file,
    read_utf8,
    stage,
)

BINARY_ABOVE = 100_000  # save() writes the weights as safetensors above this many (JSON below)
MAX_FILE_BYTES = 256 * 2**20  # far above any model a person steps through; stops a runaway read
# Parsed, each number of a JSON file costs tens of bytes (a list's pointer, the object, numpy's copies):
# 243 MB of "0," held 2.3 GB for 41 s before its first shape was found wrong. Counted before parsing, the
# values are bounded; a save holds at most BINARY_ABOVE weights inline, and this is 160 times that.
MAX_JSON_VALUES = 16_000_000
# A JSON that names its weights file holds no weights: its vocabulary is most of it, ~2 MB for GPT-2's
NAMING_FILE_BYTES = 16 * 2**20
# Hex digits of the weights' sha256 in their file's name: new weights take the old ones' name 1 in 2**48
DIGEST_DIGITS = 12


def default_model_path() -> Path:
    return Path(__file__).parent.parent / "presets" / "chapter17.json"  # no importlib.resources to start


def load_default() -> ModelFile:
    return load(default_model_path())


def load(path: str | Path) -> ModelFile:
    path = Path(path)
    with folder_held(path.parent, shared=True):  # a save's cleanup waits until the weights are read
        return _load(path)


def values_beyond_bound(text: str) -> int | None:
    """How many values a model's JSON text holds, when more than MAX_JSON_VALUES (None within it): its
    commas, about as many as its numbers, counted before one is made."""
    values = text.count(",")
    return values if values > MAX_JSON_VALUES else None


def _load(path: Path) -> ModelFile:
    text = _read_text(path)
    if values := values_beyond_bound(text):
        raise ModelFileError(
            f"{path}: (top level): some {values:,} values, more than tinytui reads from a model file's JSON "
            f"({MAX_JSON_VALUES:,}); a model this large keeps its weights in a safetensors file"
        )
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


def save(model: ModelFile, path: str | Path, binary: bool | None = None, new: bool = False) -> None:
    """Write atomically (a crash mid-write never leaves half a model file) and never through a symbolic
    link: OSError with a sentence in strerror if path is a link or not a regular file.

    binary (default: above BINARY_ABOVE weights): the weights go to a safetensors file beside the JSON
    named by their content (weights_name: <stem>.<12 hex digits of its sha256>.safetensors), so new
    weights never replace the file an existing JSON names. Both are written and synced under hidden
    temporary names first (ours by name, swept by the next write if the process is killed), then renamed
    into place, the weights before the JSON that names them: the JSON's rename is the one moment the
    model on disk changes, and a kill at any point leaves the old model or the new one, each whole. Once
    the JSON has landed, the weights written for it that it does not name (the old ones, and any a killed
    save left) are removed (unnamed_weights).

    new: path must not exist when the JSON lands (FileExistsError, nothing left behind): for a file
    checked to be absent long before it is written, as `tinytui train -o` checks before training."""
    path = Path(path)
    if pair := look_alike(model.cfg.vocab):  # a file load() would refuse is never written
        i, j = pair
        vocab = model.cfg.vocab
        raise ModelFileError(
            f"{path}: vocab[{j}]: {describe(vocab[j])} looks the same as vocab[{i}] {describe(vocab[i])}: "
            "they differ only by invisible characters"
        )
    from tinytui.model.io.weights_file import weights_bytes  # loaded when first used, not at start

    if binary is None:
        binary = model.params.total() > BINARY_ABOVE
    weights = weights_bytes(model.params, path.name) if binary else None
    weights_file = weights_name(path, weights) if weights is not None else None
    text = json.dumps(to_document(model, weights_file), indent=2) + "\n"
    check_writable_target(path)
    with folder_held(path.parent):  # one save of the folder at a time, and no load in between
        moves: list[tuple[Path, Path]] = []
        try:
            if weights is not None and weights_file is not None:
                beside = path.with_name(weights_file)
                moves.append((stage(beside, weights), beside))
            moves.append((stage(path, text.encode("utf-8")), path))
        except BaseException:
            for tmp, _ in moves:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
            raise
        land(moves, new=new)
        for old in unnamed_weights(path, weights_file):
            with contextlib.suppress(OSError):
                os.unlink(old)


def weights_name(path: str | Path, weights: bytes) -> str:
    """The name save() gives the weights file of model file path: <stem>.<first 12 hex digits of the
    file's sha256>.safetensors. Different weights get a different name, so writing them never touches
    the file another JSON names (the header names path, so two model files never share one)."""
    import hashlib  # a save's: not loaded to start the app

    return f"{Path(path).stem}.{hashlib.sha256(weights).hexdigest()[:DIGEST_DIGITS]}.safetensors"


def weights_written_for(path: str | Path) -> list[Path]:
    """The weights files beside model file path that save() wrote for it, in name order: named
    <stem>.safetensors (before weights_name) or as weights_name names them, regular files (not links)
    of this user whose header says they were written for path's name."""
    from tinytui.model.io.weights_file import written_for  # loaded when first used, not at start

    path = Path(path)
    named = re.compile(re.escape(path.stem) + rf"(\.[0-9a-f]{{{DIGEST_DIGITS}}})?\.safetensors", re.DOTALL)
    try:
        entries = list(os.scandir(path.parent))
    except (OSError, ValueError):
        return []
    found = []
    for entry in entries:
        if named.fullmatch(entry.name) is None:
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode) or (hasattr(os, "getuid") and st.st_uid != os.getuid()):
            continue
        if written_for(entry.path) == path.name:
            found.append(Path(entry.path))
    return sorted(found)


def unnamed_weights(path: str | Path, named: str | None) -> list[Path]:
    """The weights written for model file path (weights_written_for) other than the one its JSON names
    (named: its "weights_file"; None when the weights are inline) and than any another JSON in the folder
    names (a copy of path kept as a backup): left by an older save or a killed one."""
    path = Path(path)
    left = [w for w in weights_written_for(path) if named is None or w.name != named]
    return _not_named_by_others(path, left)


def _not_named_by_others(path: Path, weights: list[Path]) -> list[Path]:
    """weights less those whose name, as a JSON string, is in another model file of path's folder: a
    regular file named *.json of at most NAMING_FILE_BYTES (one that names its weights holds none)."""
    if not weights:
        return weights
    quoted = {
        w: (json.dumps(w.name).encode(), json.dumps(w.name, ensure_ascii=False).encode()) for w in weights
    }
    try:
        entries = list(os.scandir(path.parent))
    except (OSError, ValueError):
        return []  # what names them cannot be known: keep them all
    for entry in entries:
        if not entry.name.endswith(".json") or entry.name == path.name:
            continue
        try:
            st = entry.stat(follow_symlinks=False)
            if not stat.S_ISREG(st.st_mode) or st.st_size > NAMING_FILE_BYTES:
                continue
            data = read_regular_file(entry.path, NAMING_FILE_BYTES)
        except (OSError, ValueError):
            continue
        weights = [w for w in weights if not any(q in data for q in quoted[w])]
    return weights


def half_left(path: str | Path) -> list[Path]:
    """The weights files a killed save of model file path left without it: path absent, and beside it
    weights written for it (weights_written_for)."""
    path = Path(path)
    try:
        if os.path.lexists(path):
            return []
    except (OSError, ValueError):
        return []
    return _not_named_by_others(path, weights_written_for(path))


def sweep_half(path: str | Path) -> list[Path]:
    """Remove what half_left finds (the weights a killed save of path left without it); what was removed."""
    removed = []
    for half in half_left(path):
        try:
            os.unlink(half)
        except OSError:
            continue
        removed.append(half)
    return removed
