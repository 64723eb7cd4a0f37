"""A GPT-2 checkpoint folder, as Hugging Face writes it, -> a ModelFile tinytui steps through (a folder
whose config.json says model_type llama, qwen2 or mistral is read by load_llama: llama_checkpoint.py).

The folder holds config.json, model.safetensors, vocab.json and merges.txt (what `huggingface-cli
download gpt2 --include "*.json" "*.safetensors" "*.txt"` fetches). tinytui reads them and nothing
else: it never downloads, and never reads pytorch_model.bin (a pickle, which can run code when loaded).
The config switches on what GPT-2 has and the chapter's model leaves out: learned positions, layer
norms with gain and bias, biases on Q, K, V and W_O, GELU (tanh form). checkpoint_weights maps the
tensors, bpe reads the tokenizer. Every problem is one line naming the file (a ModelFileError, which
the command line already prints as one line).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tinytui.model import checks
from tinytui.model.config import ModelConfig
from tinytui.model.io.checkpoint_weights import CheckpointError
from tinytui.model.io.document import ModelFile
from tinytui.model.io.field_checks import LIMITS, MAX_TEXT, ModelFileError, read_int
from tinytui.model.io.model_file import load as load_file
from tinytui.model.params import Params

if TYPE_CHECKING:  # the tokenizer and the Llama family's readers are imported when a folder is read
    from tinytui.model.io import bpe

FILES = ("config.json", "model.safetensors", "vocab.json", "merges.txt")
PICKLES = ("pytorch_model.bin", "model.bin", "pytorch_model.pt", "model.ckpt")
ARCHITECTURES = ("GPT2LMHeadModel", "GPT2Model")
# GELU in its tanh form under the names transformers gives it; "gelu" there is the exact (erf) form
TANH_GELU = ("gelu_new", "gelu_pytorch_tanh")
MAX_CONFIG_BYTES = 2**20
# the prompt a checkpoint opens with: every piece but the last, which is the target
DEFAULT_TEXT = "The capital of France is Paris"


@dataclass(frozen=True)
class CheckpointModel(ModelFile):
    """A ModelFile read from a checkpoint folder: where it came from, what gives the weights file's
    sha256 (what a recording names instead of copying the weights; a GPT-2 file is hashed when first
    asked), and the tokenizer for typed text."""

    folder: Path = Path()
    weights_digest: Callable[[], str] = field(default=str, compare=False, repr=False)
    tokenizer: bpe.BPE | None = field(default=None, compare=False, repr=False)
    family: str = "gpt2"  # config.json's model_type: gpt2, llama, qwen2 or mistral

    @property
    def weights_sha256(self) -> str:
        return self.weights_digest()

    @property
    def weights_path(self) -> Path:
        return self.folder / "model.safetensors"

    def prompt_pieces(self, text: str) -> tuple[str, ...]:
        """Typed text as the checkpoint's BPE pieces, checked like any prompt (1 to n_ctx pieces)."""
        assert self.tokenizer is not None
        return checks.prompt(self.tokenizer.pieces(text), self.cfg.vocab, self.cfg.n_ctx)

    def target_piece(self, text: str) -> str:
        assert self.tokenizer is not None
        return self.tokenizer.target(text)


def is_checkpoint(path: str | Path) -> bool:
    """A folder is a checkpoint; a file is a tinytui model file."""
    try:
        return Path(path).is_dir()
    except (OSError, ValueError):
        return False


def load_model(path: str | Path) -> ModelFile:
    """What --model names: a checkpoint folder, or a tinytui model file. A checkpoint's own config.json
    or model.safetensors named instead of its folder means the folder."""
    from tinytui.model.io import bpe

    path = Path(path)
    if path.name in ("config.json", "model.safetensors") and (path.parent / "config.json").is_file():
        try:
            if json.loads(bpe.read_text(path.parent / "config.json", MAX_CONFIG_BYTES)).get("model_type"):
                return load_checkpoint(path.parent)
        except (ModelFileError, ValueError, AttributeError, RecursionError):
            pass  # not a checkpoint's config: the model file loader says what is wrong with path
    if is_checkpoint(path):
        return load_checkpoint(path)
    if path.suffix == ".safetensors":  # read as a model file, it was "not UTF-8 text at byte 0"
        raise ModelFileError(
            f"{path}: a safetensors file holds weights alone; give the model file (.json) that names it, "
            "or the checkpoint folder it is in"
        )
    return load_file(path)


def load_checkpoint(folder: str | Path) -> CheckpointModel:
    from tinytui.model.io import bpe, llama_checkpoint
    from tinytui.model.io.checkpoint_weights import read

    folder = Path(folder)
    if _model_type(folder) in llama_checkpoint.FAMILY:
        return load_llama(folder)
    weights = folder / "model.safetensors"
    if not weights.exists():
        pickle = next((folder / p for p in PICKLES if (folder / p).exists()), None)
        if pickle is not None:
            raise CheckpointError(
                f"{pickle}: tinytui reads model.safetensors, never a .bin (a pickle can run code when "
                "loaded); download the checkpoint's model.safetensors instead"
            )
        if (folder / "model.safetensors.index.json").exists():
            raise CheckpointError(
                f"{weights}: missing (the weights are split in shards; tinytui reads one file)"
            )
        raise CheckpointError(f"{weights}: missing ({bpe.FOLDER_HAS})")
    bpe.require_tokenizers(folder)  # before the weights are read: a missing package is said at once
    shape = read_config(folder / "config.json")
    tokenizer = bpe.load(folder)
    vocab = tuple(sorted(tokenizer.vocab, key=tokenizer.vocab.__getitem__))
    if len(vocab) != shape["vocab_size"]:
        says = f"config.json says vocab_size {shape['vocab_size']}"
        raise CheckpointError(f"{folder / 'vocab.json'}: {len(vocab)} pieces, but {says}")
    cfg = config(shape, vocab)
    params, weights_file = read(weights, cfg)
    read_from = (
        f"A GPT-2 checkpoint ({_blocks(cfg)}, {cfg.n_heads} heads of {cfg.d_head}, d {cfg.d_model}, "
        f"{cfg.n_vocab} tokens, context {cfg.n_ctx}) read from {folder}."
    )
    return _checkpoint_model(folder, params, weights_file.sha256, tokenizer, read_from)


def _blocks(cfg: ModelConfig) -> str:
    return f"{cfg.n_blocks} block{'s' if cfg.n_blocks > 1 else ''}"


def _checkpoint_model(
    folder: Path,
    params: Params,
    digest: Callable[[], str],
    tokenizer: bpe.BPE,
    read_from: str,
    family: str = "gpt2",
) -> CheckpointModel:
    """A checkpoint as a model: the default sentence in its own pieces (as many as its context holds, the
    last one the target), its name and words from the names file when there is one."""
    try:
        pieces = tokenizer.pieces(DEFAULT_TEXT)[: params.cfg.n_ctx + 1]
    except checks.Invalid as exc:  # a tokenizer.json whose own rules fail on plain words
        raise CheckpointError(f"{folder}: {exc}") from None
    prompt, target = (pieces[:-1], pieces[-1]) if len(pieces) > 1 else (pieces, pieces[0])
    name, about = read_names(folder / NAMES_FILE)
    return CheckpointModel(
        name=name or folder.resolve().name or "checkpoint",
        about=f"{about} {read_from}" if about else read_from,
        params=params,
        prompt=tuple(prompt),
        target=target,
        folder=folder,
        weights_digest=digest,
        tokenizer=tokenizer,
        family=family,
    )


def _model_type(folder: Path) -> Any:
    """config.json's model_type, or None when there is no config.json to read one from (the GPT-2 reader
    then says what is missing or wrong, as it always has)."""
    try:
        kind = _json_object(folder / "config.json", MAX_CONFIG_BYTES).get("model_type")
    except ModelFileError:
        return None
    return kind if isinstance(kind, str) else None  # a list or an object: read_config names it


def load_llama(folder: Path) -> CheckpointModel:
    """A Llama, Qwen2 or Mistral folder (llama_checkpoint.py says what it holds and what is refused)."""
    from tinytui.model.io import bpe, llama_checkpoint, llama_weights

    files = llama_weights.weight_files(folder)
    if not files[0].exists():
        pickle = next((folder / p for p in PICKLES if (folder / p).exists()), None)
        if pickle is not None:
            raise CheckpointError(
                f"{pickle}: tinytui reads model.safetensors, never a .bin (a pickle can run code when "
                "loaded); download the checkpoint's model.safetensors instead"
            )
        raise CheckpointError(f"{files[0]}: missing ({llama_checkpoint.FOLDER_HAS})")
    bpe.require_tokenizers(folder)
    path = folder / "config.json"
    doc = _json_object(path, MAX_CONFIG_BYTES)
    shape = llama_checkpoint.shape_of(doc, path)
    tokenizer = llama_checkpoint.load_tokenizer(folder)
    cfg = llama_checkpoint.config(shape, llama_checkpoint.vocabulary(tokenizer, shape["vocab_size"], folder))
    params, digest = llama_weights.read(folder, cfg)
    kv = "" if cfg.n_kv_heads == cfg.n_heads else f" over {cfg.n_kv_heads} key/value heads"
    read_from = (
        f"A {llama_checkpoint.FAMILY[doc['model_type']]} checkpoint ({_blocks(cfg)}, {cfg.n_heads} heads of "
        f"{cfg.d_head}{kv}, d {cfg.d_model}, {cfg.n_vocab} tokens, context {cfg.n_ctx}) read from {folder}."
    )
    return _checkpoint_model(folder, params, digest, tokenizer, read_from, doc["model_type"])


def config(shape: dict[str, Any], vocab: tuple[str, ...]) -> ModelConfig:
    """The ModelConfig of a GPT-2 of that shape: every GPT-2 switch on."""
    d, heads = shape["n_embd"], shape["n_head"]
    return ModelConfig(
        vocab=vocab,
        dims=tuple(f"d{i}" for i in range(d)),
        d_model=d,
        n_heads=heads,
        d_head=d // heads,
        d_ff=shape["n_inner"],
        n_blocks=shape["n_layer"],
        eps=shape["layer_norm_epsilon"],
        n_ctx=shape["n_positions"],
        positions="learned",
        norm_affine=True,
        attn_bias=True,
        activation="gelu",
    )


NAMES_FILE = "tinytui.json"  # an edited checkpoint's name and what was edited (checkpoint_save writes it)
MAX_NAMES_BYTES = 64 * 1024


def read_names(path: Path) -> tuple[str, str]:
    """(name, about) from a folder's tinytui.json, ("", "") when it has none; CheckpointError (one line
    naming the file) when the file is there but not an object of two plain strings."""
    if not path.exists() and not path.is_symlink():
        return "", ""
    doc = _json_object(path, MAX_NAMES_BYTES)
    if set(doc) != {"name", "about"}:
        raise CheckpointError(f'{path}: expected an object of "name" and "about"')
    try:
        name = checks.plain_text(doc["name"], "name", MAX_TEXT["name"])
        return name, checks.plain_text(doc["about"], "about", MAX_TEXT["about"])
    except checks.Invalid as exc:
        raise CheckpointError(f"{path}: {exc}") from None


def _json_object(path: Path, limit: int) -> dict[str, Any]:
    """A folder's small JSON file as an object; CheckpointError naming the file if it is not one."""
    from tinytui.model.io import bpe

    try:
        doc = json.loads(bpe.read_text(path, limit), parse_int=read_int)
    except bpe.TokenizerFileError as exc:
        raise CheckpointError(str(exc)) from None
    except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
        doc = None
    if not isinstance(doc, dict):
        raise CheckpointError(f"{path}: not a JSON object")
    return doc


def read_config(path: Path) -> dict[str, Any]:
    """The sizes config.json gives, checked: a GPT-2, of sizes tinytui can hold, computing what
    tinytui computes (scaled attention, tanh GELU, no cross-attention)."""

    def fail(why: str) -> CheckpointError:
        return CheckpointError(f"{path}: {why}")

    doc = _json_object(path, MAX_CONFIG_BYTES)
    architectures = doc.get("architectures") or []
    names = ", ".join(map(str, architectures)) if isinstance(architectures, list) else str(architectures)
    if (
        doc.get("model_type") != "gpt2"
        or not isinstance(architectures, list)
        or not all(isinstance(a, str) for a in architectures)
        or (architectures and not set(architectures) & set(ARCHITECTURES))
    ):
        what = f"model_type {checks.shown(str(doc.get('model_type')))}" + (
            f", architectures {names}" if names else ""
        )
        raise fail(
            f"{what}: tinytui reads GPT-2 checkpoints (model_type 'gpt2', GPT2LMHeadModel) and Llama, Qwen2 "
            "and Mistral ones (model_type 'llama', 'qwen2', 'mistral')"
        )
    shape: dict[str, Any] = {  # the sizes, and layer_norm_epsilon (a float) below
        key: _size(doc.get(key), key, limit, fail)
        for key, limit in (
            ("vocab_size", LIMITS["vocab"]),
            ("n_embd", LIMITS["d_model"]),
            ("n_head", LIMITS["n_heads"]),
            ("n_layer", LIMITS["weights.blocks"]),
            ("n_positions", LIMITS["n_ctx"]),
        )
    }
    if shape["n_embd"] % shape["n_head"]:
        raise fail(f"n_embd {shape['n_embd']} is not a multiple of n_head {shape['n_head']}")
    inner = doc.get("n_inner")
    shape["n_inner"] = 4 * shape["n_embd"] if inner is None else _size(inner, "n_inner", LIMITS["d_ff"], fail)
    eps = doc.get("layer_norm_epsilon", 1e-5)
    if not isinstance(eps, (int, float)) or isinstance(eps, bool) or not math.isfinite(eps) or eps <= 0:
        raise fail(f"layer_norm_epsilon {eps!r}: expected a positive number")
    shape["layer_norm_epsilon"] = float(eps)
    activation = doc.get("activation_function", "gelu_new")
    if activation not in TANH_GELU:
        raise fail(
            f"activation_function {checks.shown(str(activation))}: tinytui computes GELU's tanh form "
            f"({' or '.join(TANH_GELU)})"
        )
    for key, wanted in (
        ("scale_attn_weights", True),
        ("scale_attn_by_inverse_layer_idx", False),
        ("add_cross_attention", False),
    ):
        if doc.get(key, wanted) is not wanted:
            raise fail(f"{key} {doc[key]!r}: tinytui computes GPT-2's attention, which has {key} {wanted}")
    return shape


def _size(x: Any, key: str, limit: int, fail) -> int:
    if isinstance(x, bool) or not isinstance(x, int) or x <= 0:
        raise fail(f"{key}: expected a positive whole number, got {checks.shown(str(x))}")
    if x > limit:
        raise fail(f"{key} {x} is larger than tinytui allows ({limit})")
    return x
