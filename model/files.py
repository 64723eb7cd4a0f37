"""The JSON model file (format "tinytui-model/1"): load with full validation, save.

Every problem becomes one ModelFileError whose message names the file and the field, on one line — also
for hostile files: huge or deeply nested numbers, FIFOs and devices, oversized shapes, control characters.

A large model keeps its weights beside the JSON in a safetensors file (every tensor F64, named as Params
names them: "E", "blocks.0.W_Q", …): the JSON then has "weights_file" (a path relative to its folder)
and "n_blocks" instead of "weights". save() writes that form above BINARY_ABOVE weights. The binary is
read with its own checks (header size, names, dtypes, shapes, offsets, file size, finiteness) before a
byte of data is trusted, straight into the arrays the model keeps (no second copy).
"""

from __future__ import annotations

import errno
import json
import math
import os
import stat
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from tinytui.model import checks
from tinytui.model.config import MODEL_ACTIVATIONS, POSITIONS, ModelConfig
from tinytui.model.names import FINAL_NORM_PARAMS, POSITION_PARAM
from tinytui.model.params import Params, adopt, block_param_shapes, block_params_of, param_shapes
from tinytui.model.safe_io import TextFileError, atomic_write_bytes, atomic_writer, read_utf8

FORMAT = "tinytui-model/1"
# GPT-2's architecture switches (ModelConfig): written only when not the chapter's, so its file is unchanged
ARCHITECTURE = ("positions", "norm_affine", "attn_bias", "activation")
REQUIRED = ("format", "vocab", "dims", "d_model", "n_heads", "d_head", "d_ff", "prompt", "target")
WEIGHTS = ("weights", "weights_file")  # exactly one: inline, or a safetensors file beside the JSON
OPTIONAL = ("name", "about", "eps", "n_ctx", "n_blocks", *ARCHITECTURE)

BINARY_ABOVE = 100_000  # save() writes the weights as safetensors above this many (JSON below)
MAX_HEADER_BYTES = 2**20  # a safetensors header for 48 blocks is ~40 KB

MAX_FILE_BYTES = 256 * 2**20  # far above any model a person steps through; stops a runaway read
# Each size at most this: GPT-2 small (d_model 768, 12 heads of 64, d_ff 3072, 12 blocks, 50257 tokens,
# n_ctx 1024) fits; a 10,000-token context (n_ctx² attention tables per head) does not.
LIMITS = {
    "d_model": 4096,
    "n_heads": 64,
    "d_head": 1024,
    "d_ff": 16384,
    "n_ctx": 1024,
    "vocab": 100_000,
    "weights.blocks": 48,
}
MAX_TEXT = {"name": 200, "about": 5000, "token": 100}
MAX_INT_DIGITS = 20  # longer integers are read as floats (no int() digit limit, no OverflowError)


CHAPTER = {"positions": "sinusoid", "norm_affine": False, "attn_bias": False, "activation": "relu"}


class _Unusable:
    """What the JSON reader returns for NaN, Infinity, and numbers too large for a float: the field
    that holds it is then refused by name, like any other wrong value."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        t = self.text
        return t if len(t) <= 24 else f"{t[:12]}… (a {len(t)}-character number)"


def _read_int(text: str) -> int | float | _Unusable:
    return int(text) if len(text) <= MAX_INT_DIGITS else _read_float(text)


def _read_float(text: str) -> float | _Unusable:
    value = float(text)  # float() has no digit limit; too large gives inf
    return value if math.isfinite(value) else _Unusable(text)


class ModelFileError(ValueError):
    """A model file that cannot be used; str() is one line naming the file and the field."""


@dataclass(frozen=True)
class ModelFile:
    name: str
    about: str
    params: Params
    prompt: tuple[str, ...]
    target: str

    @property
    def cfg(self) -> ModelConfig:
        return self.params.cfg


def default_model_path() -> Path:
    return Path(str(resources.files("tinytui.model") / "presets" / "chapter17.json"))


def load_default() -> ModelFile:
    return load(default_model_path())


def load(path: str | Path) -> ModelFile:
    path = Path(path)
    text = _read_text(path)
    try:
        doc = json.loads(text, parse_int=_read_int, parse_float=_read_float, parse_constant=_Unusable)
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


def parse(doc: Any, source: str = "<model>", folder: Path | None = None) -> ModelFile:
    """The model a document describes. folder: where a "weights_file" is looked up (the JSON's folder;
    None: a document that is not a file on disk, such as one inside a recording, cannot name one)."""

    def fail(field: str, why: str) -> ModelFileError:
        return ModelFileError(f"{source}: {field}: {why}")

    if not isinstance(doc, dict):
        raise fail("(top level)", "expected a JSON object")
    for key in REQUIRED:
        if key not in doc:
            raise fail(key, "missing")
    unknown = sorted(set(doc) - set(REQUIRED) - set(WEIGHTS) - set(OPTIONAL))
    if unknown:
        raise fail(unknown[0], f"unknown key (allowed: {', '.join(REQUIRED + WEIGHTS + OPTIONAL)})")
    if not any(key in doc for key in WEIGHTS):
        raise fail("weights", "missing")
    if all(key in doc for key in WEIGHTS):
        raise fail("weights_file", "a model has either 'weights' or 'weights_file', not both")
    if doc["format"] != FORMAT:
        raise fail("format", f"expected {FORMAT!r}, got {_describe(doc['format'])}")

    for key in ("name", "about"):
        if key in doc:
            _text(doc[key], key, MAX_TEXT[key], fail)
    vocab = _strings(doc["vocab"], "vocab", fail)
    if len(vocab) > LIMITS["vocab"]:
        raise fail("vocab", f"{len(vocab)} tokens is more than tinytui allows ({LIMITS['vocab']})")
    if len(set(vocab)) != len(vocab):
        raise fail("vocab", "tokens must be distinct")
    dims = _strings(doc["dims"], "dims", fail)
    # n_heads × d_head need not equal d_model: W_Q/W_K/W_V map d_model to n_heads × d_head and W_O back
    sizes = {k: _positive_int(doc[k], k, fail) for k in ("d_model", "n_heads", "d_head", "d_ff")}
    if len(dims) != sizes["d_model"]:
        raise fail("dims", f"{len(dims)} labels for d_model {sizes['d_model']}")
    eps = doc.get("eps", 1e-5)
    if not _is_number(eps) or not _finite(eps) or eps <= 0:
        raise fail("eps", f"expected a positive finite number, got {_describe(eps)}")
    n_ctx = _positive_int(doc.get("n_ctx", 16), "n_ctx", fail)
    sizes |= _architecture(doc, fail)
    if "weights_file" in doc:
        if "n_blocks" not in doc:
            raise fail("n_blocks", "missing (a model with a weights_file says how many blocks it has)")
        n_blocks = _positive_int(doc["n_blocks"], "n_blocks", fail)
        if n_blocks > LIMITS["weights.blocks"]:
            raise fail("n_blocks", f"{n_blocks} is larger than tinytui allows ({LIMITS['weights.blocks']})")
        cfg = ModelConfig(
            vocab=tuple(vocab), dims=tuple(dims), n_blocks=n_blocks, eps=float(eps), n_ctx=n_ctx, **sizes
        )
        where = _weights_path(doc["weights_file"], folder, fail)
        return _finish(doc, cfg, read_weights(where, cfg), vocab, n_ctx, source, fail)

    weights = doc["weights"]
    if not isinstance(weights, dict):
        raise fail("weights", "expected an object with 'E' and 'blocks'")
    wide = _model_wide(sizes)
    for key in (*wide, "blocks"):
        if key not in weights:
            raise fail(f"weights.{key}", "missing")
    extra = sorted(set(weights) - {*wide, "blocks"})
    if extra:
        raise fail(f"weights.{extra[0]}", "unknown key")
    blocks = weights["blocks"]
    if not isinstance(blocks, list) or not blocks:
        raise fail("weights.blocks", "expected a non-empty list of blocks")
    if len(blocks) > LIMITS["weights.blocks"]:
        raise fail(
            "weights.blocks", f"{len(blocks)} blocks is more than tinytui allows ({LIMITS['weights.blocks']})"
        )
    if "n_blocks" in doc and _positive_int(doc["n_blocks"], "n_blocks", fail) != len(blocks):
        raise fail("n_blocks", f"{doc['n_blocks']}, but weights.blocks has {len(blocks)} blocks")

    cfg = ModelConfig(
        vocab=tuple(vocab),
        dims=tuple(dims),
        n_blocks=len(blocks),
        eps=float(eps),
        n_ctx=n_ctx,
        **sizes,
    )
    every = param_shapes(cfg)
    arrays = {name: _array(weights[name], every[name], f"weights.{name}", fail) for name in wide}
    shapes = block_param_shapes(cfg)
    own = block_params_of(cfg)
    for b, block in enumerate(blocks):
        where = f"weights.blocks[{b}]"
        if not isinstance(block, dict):
            raise fail(where, "expected an object")
        for name in own:
            if name not in block:
                raise fail(f"{where}.{name}", "missing")
        extra = sorted(set(block) - set(own))
        if extra:
            raise fail(f"{where}.{extra[0]}", "unknown key")
        for name in own:
            arrays[f"blocks.{b}.{name}"] = _array(block[name], shapes[name], f"{where}.{name}", fail)
    return _finish(doc, cfg, adopt(cfg, arrays), vocab, n_ctx, source, fail)


def _architecture(doc: dict, fail) -> dict[str, Any]:
    """GPT-2's switches the document sets (each absent one is the chapter's)."""
    out: dict[str, Any] = {}
    for key, options in (("positions", POSITIONS), ("activation", MODEL_ACTIVATIONS)):
        if key in doc:
            if doc[key] not in options:
                raise fail(key, f"expected one of {', '.join(options)}, got {_describe(doc[key])}")
            out[key] = doc[key]
    for key in ("norm_affine", "attn_bias"):
        if key in doc:
            if not isinstance(doc[key], bool):
                raise fail(key, f"expected true or false, got {_describe(doc[key])}")
            out[key] = doc[key]
    return out


def _model_wide(arch: dict[str, Any]) -> tuple[str, ...]:
    """The weights outside the blocks: E, and P and the final norm's when the architecture has them."""
    positions = (POSITION_PARAM,) if arch.get("positions") == "learned" else ()
    return ("E", *positions, *(FINAL_NORM_PARAMS if arch.get("norm_affine") else ()))


def _finish(doc, cfg: ModelConfig, params: Params, vocab, n_ctx: int, source: str, fail) -> ModelFile:
    try:
        prompt = checks.prompt(_strings(doc["prompt"], "prompt", fail), vocab, n_ctx)
    except checks.Invalid as exc:
        raise fail(f"prompt{exc.where}", str(exc)) from None
    try:
        target = checks.target(doc["target"], vocab)
    except checks.Invalid as exc:
        raise fail("target", str(exc)) from None
    name = doc.get("name", Path(source).stem)
    return ModelFile(
        name=name,
        about=doc.get("about", ""),
        params=params,
        prompt=tuple(prompt),
        target=target,
    )


def to_document(model: ModelFile, weights_file: str | None = None) -> dict[str, Any]:
    """The JSON document of a model: weights inline, or (weights_file given) a reference to them."""
    cfg, params = model.cfg, model.params

    def plain(arr: np.ndarray) -> Any:
        # ints stay ints so a saved preset reads like the chapter's tables
        return [plain(a) for a in arr] if arr.ndim else _plain_number(float(arr))

    doc = {
        "format": FORMAT,
        "name": model.name,
        "about": model.about,
        "vocab": list(cfg.vocab),
        "dims": list(cfg.dims),
        "d_model": cfg.d_model,
        "n_heads": cfg.n_heads,
        "d_head": cfg.d_head,
        "d_ff": cfg.d_ff,
        "eps": cfg.eps,
        "n_ctx": cfg.n_ctx,
        **{key: getattr(cfg, key) for key in ARCHITECTURE if getattr(cfg, key) != CHAPTER[key]},
        "prompt": list(model.prompt),
        "target": model.target,
    }
    if weights_file is not None:
        doc["n_blocks"] = cfg.n_blocks
        doc["weights_file"] = weights_file
        return doc
    own = block_params_of(cfg)
    blocks = [{name: plain(params[f"blocks.{b}.{name}"]) for name in own} for b in range(cfg.n_blocks)]
    wide = {name: plain(params[name]) for name in param_shapes(cfg) if not name.startswith("blocks.")}
    doc["weights"] = {"E": wide.pop("E"), "blocks": blocks, **wide}
    return doc


def save(model: ModelFile, path: str | Path, binary: bool | None = None) -> None:
    """Write atomically (a crash mid-write never leaves half a model file) and never through a symbolic
    link: OSError with a sentence in strerror if path is a link or not a regular file.

    binary (default: above BINARY_ABOVE weights): the weights go to <stem>.safetensors beside the JSON,
    written (atomically too) before the JSON that names it."""
    path = Path(path)
    if binary is None:
        binary = model.params.total() > BINARY_ABOVE
    weights_file = None
    if binary:
        weights_file = path.stem + ".safetensors"
        write_weights(model.params, path.with_name(weights_file))
    text = json.dumps(to_document(model, weights_file), indent=2) + "\n"
    with atomic_writer(path) as f:
        f.write(text)


# ---- the safetensors weights file -----------------------------------------------------------------


def write_weights(params: Params, path: str | Path) -> None:
    """params as a safetensors file (F64, Params' names), replacing path atomically, never via a link."""
    from safetensors.numpy import save as safetensors_bytes  # only saving a large model needs it

    data = safetensors_bytes({name: np.ascontiguousarray(params[name], dtype="<f8") for name in params})
    atomic_write_bytes(path, data)


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_BINARY = getattr(os, "O_BINARY", 0)


def _weights_path(x: Any, folder: Path | None, fail) -> Path:
    """The weights file a model names: a relative path inside the JSON's folder (no '..', not absolute,
    not leaving it through a linked folder); the file itself is opened without following a link."""
    if folder is None:
        raise fail("weights_file", "only a model file on disk can keep its weights in another file")
    text = _text(x, "weights_file", MAX_TEXT["name"], fail)
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


def _header(raw: bytes, fail) -> dict[str, Any]:
    try:
        table = json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant)
    except (UnicodeDecodeError, json.JSONDecodeError, ValueError, RecursionError):
        raise fail("(header)", "not a safetensors header (expected a JSON object)") from None
    if not isinstance(table, dict):
        raise fail("(header)", "not a safetensors header (expected a JSON object)")
    table.pop("__metadata__", None)
    return table


def _refuse_constant(name: str) -> Any:
    raise ValueError(name)


def _is_index(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x < 2**62


def _shown_list(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= 40 else f"{text[:40]}… ({len(text)} characters)"


def _plain_number(x: float) -> int | float:
    return int(x) if x.is_integer() and abs(x) < 2**53 else x


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _finite(x: int | float) -> bool:
    try:
        return math.isfinite(x)
    except OverflowError:  # an int beyond float range (parse() may get a doc built in Python)
        return False


def _describe(x: Any) -> str:
    """A wrong value for a message: short even when the value is huge or deeply nested."""
    if isinstance(x, list):
        return f"a list of {len(x)}"
    if isinstance(x, dict):
        return "an object"
    if isinstance(x, str):
        return checks.shown(x)
    if isinstance(x, int) and not isinstance(x, bool) and not _finite(x):
        return "a number too large for a float"
    return repr(x)


def _positive_int(x: Any, field: str, fail) -> int:
    if not isinstance(x, int) or isinstance(x, bool) or x <= 0:
        raise fail(field, f"expected a positive whole number, got {_describe(x)}")
    if x > LIMITS.get(field, x):
        raise fail(field, f"{x} is larger than tinytui allows ({LIMITS[field]})")
    return x


def _text(x: Any, field: str, limit: int, fail) -> str:
    """Shown on screen, so no control characters (escape sequences could rewrite the terminal)."""
    try:
        return checks.plain_text(x, "text", limit)
    except checks.Invalid as exc:
        raise fail(field, str(exc).removeprefix("text: ")) from None


def _strings(x: Any, field: str, fail) -> list[str]:
    if not isinstance(x, list) or not all(isinstance(s, str) for s in x):
        raise fail(field, "expected a list of strings")
    for i, s in enumerate(x):
        _text(s, f"{field}[{i}]", MAX_TEXT["token"], fail)
    return x


def _array(x: Any, shape: tuple[int, ...], field: str, fail) -> np.ndarray:
    """The array a weights field holds: checked in numpy passes (shape, the leaves' types, finiteness);
    only a field that fails them is walked number by number, to name the first bad one."""
    fast = _array_fast(x, shape)
    if fast is not None:
        return fast

    def walk(v: Any, depth: int, where: str) -> None:
        if depth == len(shape):
            if isinstance(v, _Unusable) or (_is_number(v) and not _finite(v)):
                raise fail(where, f"{_describe(v)} is not a finite number")
            if not _is_number(v):
                raise fail(where, f"expected a number, got {_describe(v)}")
            return
        if not isinstance(v, list) or len(v) != shape[depth]:
            got = f"a list of {len(v)}" if isinstance(v, list) else repr(v)
            raise fail(where, f"expected shape {list(shape)} (a list of {shape[depth]} here), got {got}")
        for i, item in enumerate(v):
            walk(item, depth + 1, f"{where}[{i}]")

    walk(x, 0, field)
    return np.array(x, dtype=np.float64)


def _array_fast(x: Any, shape: tuple[int, ...]) -> np.ndarray | None:
    """x as a float64 array when it is exactly nested lists of shape with plain finite int/float leaves
    (what the walk accepts, bools and strings excluded); None when the walk must decide."""
    if not isinstance(x, list):
        return None
    try:
        cells = np.array(x, dtype=object)
    except (ValueError, TypeError, RecursionError):
        return None
    if cells.shape != shape:
        return None
    leaves = cells.ravel().tolist()
    if not set(map(type, leaves)) <= {int, float}:
        return None
    try:
        arr = np.array(leaves, dtype=np.float64)
    except (OverflowError, ValueError, TypeError):
        return None
    if not np.isfinite(arr).all():
        return None
    return arr.reshape(shape)
