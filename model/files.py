"""The JSON model file (format "tinytui-model/1"): load with full validation, save.

Every problem becomes one ModelFileError whose message names the file and the field, on one line.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from tinytui.model.config import ModelConfig
from tinytui.model.params import BLOCK_PARAMS, Params, block_param_shapes

FORMAT = "tinytui-model/1"
REQUIRED = ("format", "vocab", "dims", "d_model", "n_heads", "d_head", "d_ff", "prompt", "target", "weights")
OPTIONAL = ("name", "about", "eps", "n_ctx")


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
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ModelFileError(f"{path}: cannot read the file ({exc.__class__.__name__}: {exc})") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ModelFileError(f"{path}: not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    return parse(doc, source=str(path))


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
        raise fail("format", f"expected {FORMAT!r}, got {doc['format']!r}")

    vocab = _strings(doc["vocab"], "vocab", fail)
    if len(set(vocab)) != len(vocab):
        raise fail("vocab", "tokens must be distinct")
    dims = _strings(doc["dims"], "dims", fail)
    sizes = {k: _positive_int(doc[k], k, fail) for k in ("d_model", "n_heads", "d_head", "d_ff")}
    if len(dims) != sizes["d_model"]:
        raise fail("dims", f"{len(dims)} labels for d_model {sizes['d_model']}")
    eps = doc.get("eps", 1e-5)
    if not _is_number(eps) or not math.isfinite(eps) or eps <= 0:
        raise fail("eps", f"expected a positive finite number, got {eps!r}")
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

    prompt = _strings(doc["prompt"], "prompt", fail)
    if not prompt:
        raise fail("prompt", "empty: the prompt needs at least one token")
    if len(prompt) > n_ctx:
        raise fail("prompt", f"{len(prompt)} tokens is longer than n_ctx {n_ctx}")
    for i, tok in enumerate(prompt):
        if tok not in vocab:
            raise fail(f"prompt[{i}]", f"{tok!r} is not in the vocabulary")
    target = doc["target"]
    if not isinstance(target, str) or target not in vocab:
        raise fail("target", f"{target!r} is not in the vocabulary")
    for key in ("name", "about"):
        if key in doc and not isinstance(doc[key], str):
            raise fail(key, "expected a string")
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
    """Write atomically: a crash mid-write never leaves a half-written model file."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(to_document(model), indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)


def _plain_number(x: float) -> int | float:
    return int(x) if x.is_integer() and abs(x) < 2**53 else x


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _positive_int(x: Any, field: str, fail) -> int:
    if not isinstance(x, int) or isinstance(x, bool) or x <= 0:
        raise fail(field, f"expected a positive whole number, got {x!r}")
    return x


def _strings(x: Any, field: str, fail) -> list[str]:
    if not isinstance(x, list) or not all(isinstance(s, str) for s in x):
        raise fail(field, "expected a list of strings")
    return x


def _array(x: Any, shape: tuple[int, ...], field: str, fail) -> np.ndarray:
    def walk(v: Any, depth: int, where: str) -> None:
        if depth == len(shape):
            if not _is_number(v):
                raise fail(where, f"expected a number, got {v!r}")
            if not math.isfinite(v):
                raise fail(where, f"{v!r} is not a finite number")
            return
        if not isinstance(v, list) or len(v) != shape[depth]:
            got = f"a list of {len(v)}" if isinstance(v, list) else repr(v)
            raise fail(where, f"expected shape {list(shape)} (a list of {shape[depth]} here), got {got}")
        for i, item in enumerate(v):
            walk(item, depth + 1, f"{where}[{i}]")

    walk(x, 0, field)
    return np.array(x, dtype=np.float64)
