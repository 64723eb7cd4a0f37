"""A model file's JSON document (format "tinytui-model/1") and the ModelFile it describes, both ways.

parse() checks every key and field of a document already read from JSON, including the weights inline
or, through "weights_file" and "n_blocks", in a safetensors file beside it (model/io/weights_file.py);
to_document() is its inverse, writing the architecture switches only when they are not the chapter's.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tinytui.model import checks
from tinytui.model.config import MODEL_ACTIVATIONS, NORMS, POSITIONS, ModelConfig, RopeScaling
from tinytui.model.io.field_checks import (
    LIMITS,
    MAX_TEXT,
    Fail,
    ModelFileError,
    describe,
    finite,
    is_number,
    look_alike,
    plain_text,
    positive_int,
    strings,
    weight_array,
)
from tinytui.model.names import FINAL_NORM_PARAMS, POSITION_PARAM, UNEMBED_PARAM, label
from tinytui.model.params import Params, adopt, block_param_shapes, block_params_of, param_shapes

FORMAT = "tinytui-model/1"
# The architecture's choices (ModelConfig): GPT-2's, then Llama's. Each is written only when it is not the
# chapter's, so the chapter's file is unchanged; n_kv_heads only when fewer than n_heads, rope_scaling
# (an object of RopeScaling's four fields) only when there is one.
ARCHITECTURE = ("positions", "norm_affine", "attn_bias", "activation", "norm", "attn_out_bias", "tied")
ROPE = ("rope_theta", "rope_scaling")
REQUIRED = ("format", "vocab", "dims", "d_model", "n_heads", "d_head", "d_ff", "prompt", "target")
WEIGHTS = ("weights", "weights_file")  # exactly one: inline, or a safetensors file beside the JSON
OPTIONAL = ("name", "about", "eps", "n_ctx", "n_blocks", *ARCHITECTURE, "n_kv_heads", *ROPE)

CHAPTER = {
    "positions": "sinusoid",
    "norm_affine": False,
    "attn_bias": False,
    "activation": "relu",
    "norm": "layer",
    "attn_out_bias": True,
    "tied": True,
}
SCALING = tuple(RopeScaling.__dataclass_fields__)  # factor, low/high_freq_factor, original_max_position…


@dataclass(frozen=True)
class ModelFile:
    """A model as its file describes it: its name, the text about it, its weights (with their config),
    and the prompt and target it comes with."""

    name: str
    about: str
    params: Params
    prompt: tuple[str, ...]
    target: str

    @property
    def cfg(self) -> ModelConfig:
        return self.params.cfg


MAX_NAMED_CELLS = 8  # a derived model's about lists this many changed weights, then a count


def derived(source: ModelFile, params: Params, prompt: tuple[str, ...], target: str) -> ModelFile:
    """The model a session saves: source's weights as params now hold them, with the prompt and target.

    When any weight differs from source's, the model says so, so that nothing made from it (a handout,
    `tinytui print --markdown`, a recording) repeats what source's `about` claims of source's own
    numbers: its name gets "-edited" (once) and its about says which model it derives from and which
    weights differ (name[index] old → new, exactly). Unchanged weights keep source's name and about."""
    changed = [
        (name, tuple(int(i) for i in idx))
        for name in params
        if params[name] is not source.params[name]
        for idx in np.argwhere(params[name] != source.params[name])
    ]
    if not changed:
        return ModelFile(source.name, source.about, params, tuple(prompt), target)
    n_blocks = params.cfg.n_blocks
    cells = [
        f"{label(n) if n_blocks == 1 else n}[{','.join(map(str, i))}] "
        f"{_plain_number(float(source.params[n][i]))!r} → "
        f"{_plain_number(float(params[n][i]))!r}"
        for n, i in changed[:MAX_NAMED_CELLS]
    ]
    more = f", and {len(changed) - MAX_NAMED_CELLS} more" if len(changed) > MAX_NAMED_CELLS else ""
    noun = "weight" if len(changed) == 1 else "weights"
    about = (
        f"Derived from {source.name} with {len(changed)} {noun} edited: {', '.join(cells)}{more}. "
        f"Its numbers are its own, not the ones {source.name} was made to show."
    )
    name = source.name if source.name.endswith("-edited") else f"{source.name[: MAX_TEXT['name'] - 7]}-edited"
    return ModelFile(name, about, params, tuple(prompt), target)


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
        raise fail("format", f"expected {FORMAT!r}, got {describe(doc['format'])}")

    for key in ("name", "about"):
        if key in doc:
            plain_text(doc[key], key, MAX_TEXT[key], fail)
    vocab = strings(doc["vocab"], "vocab", fail)
    if not vocab:
        raise fail("vocab", "empty: a model needs at least one token")
    for i, token in enumerate(vocab):
        if not token or any(c.isspace() for c in token):
            # --prompt splits on whitespace: such a token could sit in a prompt no one can type
            what = "an empty token" if not token else f"{describe(token)} has a space in it"
            raise fail(f"vocab[{i}]", f"{what} (a token is one word, typed in a prompt)")
    if len(vocab) > LIMITS["vocab"]:
        raise fail("vocab", f"{len(vocab)} tokens is more than tinytui allows ({LIMITS['vocab']})")
    if len(set(vocab)) != len(vocab):
        raise fail("vocab", "tokens must be distinct")
    if pair := look_alike(vocab):
        i, j = pair
        raise fail(
            f"vocab[{j}]",
            f"{describe(vocab[j])} looks the same as vocab[{i}] {describe(vocab[i])}: they differ only by "
            "invisible characters (or how an accent is encoded); keep one",
        )
    dims = strings(doc["dims"], "dims", fail)
    # n_heads × d_head need not equal d_model: W_Q/W_K/W_V map d_model to n_heads × d_head and W_O back
    sizes: dict[str, Any] = {
        k: positive_int(doc[k], k, fail) for k in ("d_model", "n_heads", "d_head", "d_ff")
    }
    if len(dims) != sizes["d_model"]:
        raise fail("dims", f"{len(dims)} labels for d_model {sizes['d_model']}")
    eps = doc.get("eps", 1e-5)
    if not is_number(eps) or not finite(eps) or eps <= 0:
        raise fail("eps", f"expected a positive finite number, got {describe(eps)}")
    n_ctx = positive_int(doc.get("n_ctx", 16), "n_ctx", fail)
    sizes |= _architecture(doc, fail)
    if "weights_file" in doc:
        if "n_blocks" not in doc:
            raise fail("n_blocks", "missing (a model with a weights_file says how many blocks it has)")
        n_blocks = positive_int(doc["n_blocks"], "n_blocks", fail)
        if n_blocks > LIMITS["weights.blocks"]:
            raise fail("n_blocks", f"{n_blocks} is larger than tinytui allows ({LIMITS['weights.blocks']})")
        cfg = ModelConfig(
            vocab=tuple(vocab), dims=tuple(dims), n_blocks=n_blocks, eps=float(eps), n_ctx=n_ctx, **sizes
        )
        # the safetensors reader, loaded for a model that has such a file (the chapter's are inline)
        from tinytui.model.io.weights_file import read_weights, weights_path

        weights_at = weights_path(doc["weights_file"], folder, fail)
        return _finish(doc, cfg, read_weights(weights_at, cfg), vocab, n_ctx, source, fail)

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
    if "n_blocks" in doc and positive_int(doc["n_blocks"], "n_blocks", fail) != len(blocks):
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
    arrays = {name: weight_array(weights[name], every[name], f"weights.{name}", fail) for name in wide}
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
            arrays[f"blocks.{b}.{name}"] = weight_array(block[name], shapes[name], f"{where}.{name}", fail)
    return _finish(doc, cfg, adopt(cfg, arrays), vocab, n_ctx, source, fail)


def _architecture(doc: dict, fail: Fail) -> dict[str, Any]:
    """The architecture's choices the document sets (each absent one is the chapter's), checked against
    each other and the sizes already read (doc's d_head, n_heads: positive whole numbers)."""
    out: dict[str, Any] = {}
    for key, options in (("positions", POSITIONS), ("activation", MODEL_ACTIVATIONS), ("norm", NORMS)):
        if key in doc:
            if doc[key] not in options:
                raise fail(key, f"expected one of {', '.join(options)}, got {describe(doc[key])}")
            out[key] = doc[key]
    for key in ("norm_affine", "attn_bias", "attn_out_bias", "tied"):
        if key in doc:
            if not isinstance(doc[key], bool):
                raise fail(key, f"expected true or false, got {describe(doc[key])}")
            out[key] = doc[key]
    if out.get("attn_out_bias") is False and not out.get("attn_bias"):
        raise fail("attn_out_bias", "false leaves out b_O alone, so it needs attn_bias true")
    if "n_kv_heads" in doc:
        kv, heads = positive_int(doc["n_kv_heads"], "n_kv_heads", fail), doc["n_heads"]
        if heads % kv:
            raise fail(
                "n_kv_heads", f"{kv} does not divide n_heads {heads} (each key/value head serves as many)"
            )
        out["n_kv_heads"] = kv
    if out.get("positions") == "rope" and doc["d_head"] % 2:
        raise fail("d_head", f"{doc['d_head']} is odd: rotary positions turn a head's dims in pairs")
    if "rope_theta" in doc:
        theta = doc["rope_theta"]
        if not is_number(theta) or not finite(theta) or theta <= 0:
            raise fail("rope_theta", f"expected a positive finite number, got {describe(theta)}")
        out["rope_theta"] = float(theta)
    if "rope_scaling" in doc:
        out["rope_scaling"] = _rope_scaling(doc["rope_scaling"], fail)
    return out


def _rope_scaling(x: Any, fail: Fail) -> RopeScaling:
    """Llama 3's frequency scaling: an object of its four numbers, the frequencies' bounds in order."""
    if not isinstance(x, dict) or set(x) != set(SCALING):
        raise fail("rope_scaling", f"expected an object of {', '.join(SCALING)}")
    for key in SCALING:
        if not is_number(x[key]) or not finite(x[key]) or x[key] <= 0:
            raise fail(f"rope_scaling.{key}", f"expected a positive finite number, got {describe(x[key])}")
    if x["low_freq_factor"] >= x["high_freq_factor"]:
        raise fail("rope_scaling.high_freq_factor", "must be larger than low_freq_factor")
    original = positive_int(
        x["original_max_position_embeddings"], "rope_scaling.original_max_position_embeddings", fail
    )
    factors = (float(x["factor"]), float(x["low_freq_factor"]), float(x["high_freq_factor"]))
    return RopeScaling(*factors, original)


def _model_wide(arch: dict[str, Any]) -> tuple[str, ...]:
    """The weights outside the blocks: E, and P, the final norm's (RMSNorm: its gain alone) and W_U when
    the architecture has them."""
    positions = (POSITION_PARAM,) if arch.get("positions") == "learned" else ()
    final = FINAL_NORM_PARAMS if arch.get("norm", "layer") == "layer" else FINAL_NORM_PARAMS[:1]
    untied = (UNEMBED_PARAM,) if arch.get("tied") is False else ()
    return ("E", *positions, *(final if arch.get("norm_affine") else ()), *untied)


def _finish(doc, cfg: ModelConfig, params: Params, vocab, n_ctx: int, source: str, fail: Fail) -> ModelFile:
    try:
        prompt = checks.prompt(strings(doc["prompt"], "prompt", fail), vocab, n_ctx)
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
        **({"n_kv_heads": cfg.n_kv_heads} if cfg.n_kv_heads != cfg.n_heads else {}),
        **({"rope_theta": cfg.rope_theta} if cfg.positions == "rope" else {}),
        **({"rope_scaling": asdict(cfg.rope_scaling)} if cfg.rope_scaling is not None else {}),
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


def _plain_number(x: float) -> int | float:
    # a whole number beyond 2**53 stays a float: as an int it could run to hundreds of digits
    return int(x) if x.is_integer() and abs(x) < 2**53 else x
