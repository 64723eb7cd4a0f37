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
from tinytui.model.params import Params, adopt, param_shapes

MAX_HEADER_BYTES = 2**20  # a safetensors header for 48 blocks is ~40 KB

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
        head = f.read(8)
        if len(head) < 8:
            raise fail("(header)", f"truncated: {st.st_size} bytes is too short for a safetensors file")
        n = int.from_bytes(head, "little")
        if n > MAX_HEADER_BYTES:
            raise fail("(header)", f"a {n}-byte header is larger than tinytui reads ({MAX_HEADER_BYTES})")
        raw = f.read(n)
        if len(raw) < n:
            raise fail("(header)", f"truncated: the header says {n} bytes, the file has {len(raw)}")
        table = _header(raw, fail)
        unknown = sorted(set(table) - set(shapes))
        if unknown:
            raise fail(unknown[0], f"unknown tensor (this model has {', '.join(list(shapes)[:3])}, …)")
        missing = [name for name in shapes if name not in table]
        if missing:
            raise fail(missing[0], "missing")
        spans = []
        for name, shape in shapes.items():
            entry = table[name]
            if not isinstance(entry, dict) or set(entry) != {"dtype", "shape", "data_offsets"}:
                raise fail(name, "expected {dtype, shape, data_offsets}")
            if entry["dtype"] != "F64":
                raise fail(name, f"dtype {checks.shown(str(entry['dtype']))}: tinytui reads F64 (float64)")
            if entry["shape"] != list(shape):
                raise fail(name, f"shape {_shown_list(entry['shape'])}, expected {list(shape)}")
            offsets = entry["data_offsets"]
            if not (isinstance(offsets, list) and len(offsets) == 2 and all(_is_index(o) for o in offsets)):
                raise fail(name, f"data_offsets {_shown_list(offsets)}: expected [begin, end]")
            if offsets[1] - offsets[0] != 8 * math.prod(shape):
                raise fail(name, f"data_offsets {offsets} hold {offsets[1] - offsets[0]} bytes, not {shape}")
            spans.append((offsets[0], offsets[1], name))
        end = 0
        for begin, stop, name in sorted(spans):
            if begin != end:
                raise fail(name, f"data_offsets start at {begin}: tensors must follow each other from 0")
            end = stop
        data_start = 8 + n
        if st.st_size != data_start + end:
            name = max(spans)[2]
            raise fail(
                name,
                f"truncated or padded: the file has {st.st_size} bytes, the header says {data_start + end}",
            )
        arrays: dict[str, np.ndarray] = {}
        for begin, stop, name in sorted(spans):
            f.seek(data_start + begin)
            count = (stop - begin) // 8
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


def _header(raw: bytes, fail: Fail) -> dict[str, Any]:
    try:
        table = json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant)
    except (UnicodeDecodeError, json.JSONDecodeError, ValueError, RecursionError):
        raise fail("(header)", "not a safetensors header (expected a JSON object)") from None
    if not isinstance(table, dict):
        raise fail("(header)", "not a safetensors header (expected a JSON object)")
    table.pop("__metadata__", None)
    return table


def _refuse_constant(name: str) -> Any:
    raise ValueError(name)  # NaN or Infinity in a header: refused like any header that is not JSON


def _is_index(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x < 2**62


def _shown_list(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= 40 else f"{text[:40]}… ({len(text)} characters)"
