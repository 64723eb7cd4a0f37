"""The safetensors file that keeps a large model's weights beside its JSON: find it, read it, write it.

Every tensor is F64 and named as Params names them ("E", "blocks.0.W_Q", …). The JSON's "weights_file"
must stay inside the JSON's folder, and the file is opened without following a link. Reading checks the
header (size, names, dtypes, shapes, offsets) and the file size before a byte of data is trusted, then
reads each tensor straight into the array the model keeps (no second copy) and checks it is finite.
"""

from __future__ import annotations

import errno
import json
import math
import os
import stat
from pathlib import Path
from typing import Any

import numpy as np

from tinytui.model import checks
from tinytui.model.config import ModelConfig
from tinytui.model.io.field_checks import MAX_TEXT, Fail, ModelFileError, plain_text
from tinytui.model.io.memory_room import too_large
from tinytui.model.io.safetensors_header import MAX_HEADER_BYTES, named, read_header
from tinytui.model.params import Params, adopt, param_shapes

# Opened without following a link, without blocking on a FIFO, and not inherited by a child process
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_BINARY = getattr(os, "O_BINARY", 0)


OWNER_KEY = "tinytui-model"  # the header's metadata: the name of the model file these weights belong to


def weights_bytes(params: Params, owner: str) -> bytes:
    """params as a safetensors file (F64, Params' names) whose header names the model file (owner) it
    is written for, so weights left without their model file by a killed save are known as that."""
    from safetensors.numpy import save as safetensors_bytes  # only saving a large model needs it

    tensors = {name: np.ascontiguousarray(params[name], dtype="<f8") for name in params}
    return safetensors_bytes(tensors, metadata={OWNER_KEY: owner})


def written_for(path: str | Path) -> str | None:
    """The model file's name a weights file's header says it was written for; None when it says none,
    or is not a readable regular file (never through a link)."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC | _BINARY)
    except (OSError, ValueError):
        return None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            return None
        n = int.from_bytes(f.read(8), "little")
        if not 0 < n <= MAX_HEADER_BYTES:
            return None
        try:
            header = json.loads(f.read(n).decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            return None
    meta = header.get("__metadata__") if isinstance(header, dict) else None
    owner = meta.get(OWNER_KEY) if isinstance(meta, dict) else None
    return owner if isinstance(owner, str) else None


def weights_path(x: Any, folder: Path | None, fail: Fail) -> Path:
    """The weights file a model names: a relative path inside the JSON's folder (no '..', not absolute,
    not leaving it through a linked folder); the file itself is opened without following a link."""
    if folder is None:
        raise fail("weights_file", "only a model file on disk can keep its weights in another file")
    text = plain_text(x, "weights_file", MAX_TEXT["name"], fail)
    rel = Path(text)
    if not text or rel.is_absolute() or rel.drive or ".." in rel.parts or "\x00" in text:
        raise fail("weights_file", f"{checks.shown(text)}: expected a path relative to the model's folder")
    where = folder / rel
    try:
        inside = where.parent.resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError):
        inside = False
    if not inside:
        raise fail("weights_file", f"{checks.shown(text)} is outside the model's folder")
    return where


def read_weights(path: Path, cfg: ModelConfig) -> Params:
    """The Params in a safetensors file, checked against cfg; one ModelFileError naming the file and
    the tensor for anything wrong. Data is read into the arrays the Params keeps, one tensor at a time."""
    shapes = param_shapes(cfg)

    def fail(tensor: str, why: str) -> ModelFileError:
        return ModelFileError(f"{path}: {tensor}: {why}")

    if why := too_large(cfg):  # before a byte is read: the file may be a sparse one of zeros
        raise ModelFileError(f"{path}: {why}")

    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC | _BINARY)
    except OSError as exc:
        why = "it is a symbolic link" if exc.errno == errno.ELOOP else (exc.strerror or str(exc))
        raise ModelFileError(f"{path}: cannot read the weights file ({why})") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise ModelFileError(f"{path}: cannot read the weights file (it is not a regular file)")
    with os.fdopen(fd, "rb") as f:
        header = read_header(f.fileno(), st.st_size, fail)
        table = header.entries
        unknown = sorted(set(table) - set(shapes))
        if unknown:
            raise fail(named(unknown[0]), f"unknown tensor (this model has {', '.join(list(shapes)[:3])}, …)")
        missing = [name for name in shapes if name not in table]
        if missing:
            raise fail(missing[0], "missing")
        for name, shape in shapes.items():
            entry = table[name]
            if entry.dtype != "F64":
                raise fail(name, f"dtype {checks.shown(entry.dtype)}: tinytui reads F64 (float64)")
            if entry.shape != shape:
                raise fail(name, f"shape {list(entry.shape)}, expected {list(shape)}")
        arrays: dict[str, np.ndarray] = {}
        for name in sorted(shapes, key=lambda n: table[n].begin):
            f.seek(header.data_start + table[name].begin)
            count = math.prod(shapes[name])
            arr = np.fromfile(f, dtype="<f8", count=count)
            if arr.size != count:
                raise fail(name, "truncated while being read")
            arr = arr.astype(np.float64, copy=False).reshape(shapes[name])
            finite = np.isfinite(arr)
            if not finite.all():
                index = [int(i) for i in np.argwhere(~finite)[0]]
                raise fail(name, f"{float(arr[tuple(index)])!r} at {index} is not a finite number")
            arrays[name] = arr
    return adopt(cfg, {name: arrays[name] for name in shapes})
