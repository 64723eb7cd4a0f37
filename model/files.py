"""The JSON model file (format "tinytui-model/1"): load with full validation, save.

Every problem becomes one ModelFileError whose message names the file and the field, on one line — also
for hostile files: huge or deeply nested numbers, FIFOs and devices, oversized shapes, control characters.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from tinytui.model import checks
from tinytui.model.config import ModelConfig
from tinytui.model.params import BLOCK_PARAMS, Params, block_param_shapes
from tinytui.model.safe_io import atomic_writer, read_regular_file

FORMAT = "tinytui-model/1"
REQUIRED = ("format", "vocab", "dims", "d_model", "n_heads", "d_head", "d_ff", "prompt", "target", "weights")
OPTIONAL = ("name", "about", "eps", "n_ctx")

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
        return parse(doc, source=str(path))
    except MemoryError:
        raise ModelFileError(f"{path}: weights: too large to hold in memory") from None


def _read_text(path: Path) -> str:
    try:
        data = read_regular_file(path, MAX_FILE_BYTES)
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
        why = getattr(exc, "strerror", None) or str(exc)
        raise ModelFileError(f"{path}: cannot read the file ({exc.__class__.__name__}: {why})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ModelFileError(f"{path}: cannot read the file (not UTF-8 text at byte {exc.start})") from None


def parse(doc: Any, source: str = "<model>") -> ModelFile:
    def fail(field: str, why: str) -> ModelFileError:
        return ModelFileError(f"{source}: {field}: {why}")

    if not isinstance(doc, dict):
        raise fail("(top level)", "expected a JSON object")
    for key in REQUIRED:
        if key not in doc:
            raise fail(key, "missing")
    unknown = sorted(set(doc) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise fail(unknown[0], f"unknown key (allowed: {', '.join(REQUIRED + OPTIONAL)})")
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

    weights = doc["weights"]
    if not isinstance(weights, dict):
        raise fail("weights", "expected an object with 'E' and 'blocks'")
    for key in ("E", "blocks"):
        if key not in weights:
            raise fail(f"weights.{key}", "missing")
    extra = sorted(set(weights) - {"E", "blocks"})
    if extra:
        raise fail(f"weights.{extra[0]}", "unknown key")
    blocks = weights["blocks"]
    if not isinstance(blocks, list) or not blocks:
        raise fail("weights.blocks", "expected a non-empty list of blocks")
    if len(blocks) > LIMITS["weights.blocks"]:
        raise fail(
            "weights.blocks", f"{len(blocks)} blocks is more than tinytui allows ({LIMITS['weights.blocks']})"
        )

    cfg = ModelConfig(
        vocab=tuple(vocab),
        dims=tuple(dims),
        n_blocks=len(blocks),
        eps=float(eps),
        n_ctx=n_ctx,
        **sizes,
    )
    arrays = {"E": _array(weights["E"], (cfg.n_vocab, cfg.d_model), "weights.E", fail)}
    shapes = block_param_shapes(cfg)
    for b, block in enumerate(blocks):
        where = f"weights.blocks[{b}]"
        if not isinstance(block, dict):
            raise fail(where, "expected an object")
        for name in BLOCK_PARAMS:
            if name not in block:
                raise fail(f"{where}.{name}", "missing")
        extra = sorted(set(block) - set(BLOCK_PARAMS))
        if extra:
            raise fail(f"{where}.{extra[0]}", "unknown key")
        for name in BLOCK_PARAMS:
            arrays[f"blocks.{b}.{name}"] = _array(block[name], shapes[name], f"{where}.{name}", fail)

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
        params=Params(cfg, arrays),
        prompt=tuple(prompt),
        target=target,
    )


def to_document(model: ModelFile) -> dict[str, Any]:
    cfg, params = model.cfg, model.params

    def plain(arr: np.ndarray) -> Any:
        # ints stay ints so a saved preset reads like the chapter's tables
        return [plain(a) for a in arr] if arr.ndim else _plain_number(float(arr))

    blocks = [
        {name: plain(params[f"blocks.{b}.{name}"]) for name in BLOCK_PARAMS} for b in range(cfg.n_blocks)
    ]
    return {
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
        "prompt": list(model.prompt),
        "target": model.target,
        "weights": {"E": plain(params["E"]), "blocks": blocks},
    }


def save(model: ModelFile, path: str | Path) -> None:
    """Write atomically (a crash mid-write never leaves half a model file) and never through a symbolic
    link: OSError with a sentence in strerror if path is a link or not a regular file."""
    text = json.dumps(to_document(model), indent=2) + "\n"
    with atomic_writer(path) as f:
        f.write(text)


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
