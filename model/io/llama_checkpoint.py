"""A Llama-family checkpoint folder (model_type llama, qwen2 or mistral), as Hugging Face writes it, -> a
CheckpointModel tinytui steps through.

The folder holds config.json, the weights (model.safetensors, or shards listed in
model.safetensors.index.json; llama_weights.py maps them) and tokenizer.json (read through the tokenizers
package, as GPT-2's vocab.json and merges.txt are). The config gives the choices these models make
(config.py): RMSNorm with a gain, rotary positions with rope_theta (at the top of the config, as most
published checkpoints have it, or in the newer rope_parameters) and Llama 3's frequency scaling when
rope_scaling says "llama3", n_kv_heads key/value heads, the SwiGLU feed-forward, an unembedding tied to E
or its own (tie_word_embeddings), and Qwen2's biases on Q, K and V without one on the output.

What tinytui does not compute is refused in one line naming the field: another rope scaling, rotating
only part of a head, sliding-window attention where a prompt tinytui allows could reach past the window,
mixtures of experts, an activation other than SiLU, biases on the feed-forward.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from tinytui.model import checks
from tinytui.model.config import ModelConfig, RopeScaling
from tinytui.model.io import bpe
from tinytui.model.io.checkpoint_weights import CheckpointError
from tinytui.model.io.field_checks import LIMITS, ModelFileError

FAMILY = {"llama": "Llama", "qwen2": "Qwen2", "mistral": "Mistral"}  # model_type -> how it is named
TOKENIZER = "tokenizer.json"
FOLDER_HAS = (
    "a Llama-family checkpoint folder has config.json, model.safetensors (or shards with "
    "model.safetensors.index.json) and tokenizer.json"
)
MOE = ("num_local_experts", "num_experts", "n_routed_experts", "moe_intermediate_size")
# Llama 3's 128,256 tokens and Qwen2's 151,936 (a model file's bound, LIMITS["vocab"], is 100,000)
MAX_VOCAB = 160_000
SCALING_KEYS = ("factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings")


def shape_of(doc: dict[str, Any], path: Path) -> dict[str, Any]:
    """The ModelConfig fields (all but vocab and dims) config.json gives, checked; CheckpointError (one
    line naming the file and the field) for anything tinytui cannot compute as the model does."""

    def fail(why: str) -> CheckpointError:
        return CheckpointError(f"{path}: {why}")

    kind = doc["model_type"]
    sizes = {
        key: _size(doc.get(key), key, limit, fail)
        for key, limit in (
            ("vocab_size", MAX_VOCAB),
            ("hidden_size", LIMITS["d_model"]),
            ("num_attention_heads", LIMITS["n_heads"]),
            ("num_hidden_layers", LIMITS["weights.blocks"]),
            ("intermediate_size", LIMITS["d_ff"]),
        )
    }
    d, heads = sizes["hidden_size"], sizes["num_attention_heads"]
    kv = _size(doc.get("num_key_value_heads", heads) or heads, "num_key_value_heads", heads, fail)
    if heads % kv:
        raise fail(f"num_key_value_heads {kv} does not divide num_attention_heads {heads}")
    if doc.get("head_dim") is None and d % heads:
        raise fail(f"hidden_size {d} is not a multiple of num_attention_heads {heads} (and no head_dim)")
    d_head = _size(doc.get("head_dim") or d // heads, "head_dim", LIMITS["d_head"], fail)
    if d_head % 2:
        raise fail(f"head_dim {d_head} is odd: rotary positions turn a head's dims in pairs")
    n_ctx = min(_size(doc.get("max_position_embeddings", 2048), "max_position_embeddings", 2**31, fail), 1024)
    for key in MOE:
        if doc.get(key) not in (None, 0, 1):
            raise fail(
                f"{key} {doc[key]!r}: a mixture of experts; tinytui computes one feed-forward per block"
            )
    if doc.get("hidden_act", "silu") != "silu":
        raise fail(f"hidden_act {checks.shown(str(doc['hidden_act']))}: tinytui computes SwiGLU's SiLU gate")
    if doc.get("mlp_bias", False) is not False:
        raise fail(f"mlp_bias {doc['mlp_bias']!r}: tinytui's gated feed-forward has no biases")
    window = _sliding_window(doc, kind)
    if window is not None and window < n_ctx:
        raise fail(
            f"sliding_window {window}: this model attends only to the last {window} positions, and a prompt "
            f"here may have {n_ctx}; tinytui computes full causal attention"
        )
    eps = doc.get("rms_norm_eps", 1e-6)
    if not _positive_number(eps):
        raise fail(f"rms_norm_eps {eps!r}: expected a positive number")
    attention_bias = doc.get("attention_bias", False)
    if not isinstance(attention_bias, bool):
        raise fail(f"attention_bias {attention_bias!r}: expected true or false")
    tied = doc.get("tie_word_embeddings", False)
    if not isinstance(tied, bool):
        raise fail(f"tie_word_embeddings {tied!r}: expected true or false")
    theta, scaling = _rope(doc, fail)
    return {
        "vocab_size": sizes["vocab_size"],
        "d_model": d,
        "n_heads": heads,
        "n_kv_heads": kv,
        "d_head": d_head,
        "d_ff": sizes["intermediate_size"],
        "n_blocks": sizes["num_hidden_layers"],
        "eps": float(eps),
        "n_ctx": n_ctx,
        "positions": "rope",
        "rope_theta": theta,
        "rope_scaling": scaling,
        "norm": "rms",
        "norm_affine": True,
        # Qwen2 always biases Q, K and V and never the output; Llama and Mistral say so in attention_bias
        "attn_bias": kind == "qwen2" or attention_bias,
        "attn_out_bias": kind != "qwen2",
        "activation": "swiglu",
        "tied": tied,
    }


def config(shape: dict[str, Any], vocab: tuple[str, ...]) -> ModelConfig:
    fields = {k: v for k, v in shape.items() if k != "vocab_size"}
    return ModelConfig(vocab=vocab, dims=tuple(f"d{i}" for i in range(shape["d_model"])), **fields)


def _rope(doc: dict[str, Any], fail) -> tuple[float, RopeScaling | None]:
    """θ and Llama 3's scaling, from rope_parameters (newer transformers) or rope_theta and rope_scaling."""
    if isinstance(doc.get("rope_parameters"), dict):
        where, params = "rope_parameters", doc["rope_parameters"]
        theta = params.get("rope_theta", doc.get("rope_theta", 10000.0))
    else:
        if doc.get("rope_parameters") is not None:
            shown = checks.shown(str(doc["rope_parameters"]))
            raise fail(f"rope_parameters {shown}: expected an object or null")
        where, params = "rope_scaling", doc.get("rope_scaling") or {}
        theta = doc.get("rope_theta", 10000.0)
        if not isinstance(params, dict):
            raise fail(f"rope_scaling {checks.shown(str(params))}: expected an object or null")
    if not _positive_number(theta):
        raise fail(f"rope_theta {theta!r}: expected a positive number")
    partial = params.get("partial_rotary_factor", doc.get("partial_rotary_factor", 1.0))
    if partial != 1.0:
        raise fail(f"partial_rotary_factor {partial!r}: tinytui turns every dim of a head")
    kind = params.get("rope_type", params.get("type", "default"))
    if kind == "default":
        return float(theta), None
    if kind != "llama3":
        raise fail(
            f"{where}.rope_type {checks.shown(str(kind))}: tinytui computes rotary positions unscaled "
            "or with Llama 3's scaling (rope_type 'llama3')"
        )
    for key in SCALING_KEYS:
        if not _positive_number(params.get(key)):
            raise fail(f"{where}.{key} {params.get(key)!r}: expected a positive number (Llama 3's scaling)")
    if params["low_freq_factor"] >= params["high_freq_factor"]:
        raise fail(f"{where}.high_freq_factor: must be larger than low_freq_factor")
    original = params["original_max_position_embeddings"]
    if not isinstance(original, int) or isinstance(original, bool):
        raise fail(f"{where}.original_max_position_embeddings {original!r}: expected a whole number")
    factors = (float(params["factor"]), float(params["low_freq_factor"]), float(params["high_freq_factor"]))
    return float(theta), RopeScaling(*factors, original)


def _sliding_window(doc: dict[str, Any], kind: str) -> int | None:
    """The window a layer of this model attends within, when one does (None: every layer sees all)."""
    window = doc.get("sliding_window")
    if not isinstance(window, int) or isinstance(window, bool) or window <= 0:
        return None
    if kind == "qwen2":  # only with use_sliding_window, or where layer_types names a sliding layer
        layers = doc.get("layer_types") or []
        named = layers if isinstance(layers, list) else []  # anything else names no sliding layer
        if not doc.get("use_sliding_window", False) and "sliding_attention" not in named:
            return None
    return window


def _positive_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0


def _size(x: Any, key: str, limit: int, fail) -> int:
    if isinstance(x, bool) or not isinstance(x, int) or x <= 0:
        raise fail(f"{key}: expected a positive whole number, got {checks.shown(str(x))}")
    if x > limit:
        raise fail(f"{key} {x} is larger than tinytui allows ({limit})")
    return x


class JsonTokenizer(bpe.BPE):
    """A checkpoint's tokenizer.json through the tokenizers package: pieces, ids, text and target as
    GPT-2's BPE gives them (bpe.BPE), the pieces as tokenizer.json spells them ('Ġriver', '▁river')."""

    def __init__(self, text: str, path: Path) -> None:  # not BPE.__init__: that builds from vocab/merges
        tk = bpe.require_tokenizers(path.parent)
        try:
            tok = tk.Tokenizer.from_str(text)
        except Exception as exc:  # the package's own exception, its message possibly several lines
            why = " ".join(str(exc).split())[:200]
            raise bpe.TokenizerFileError(
                f"{path}: not a tokenizer the tokenizers package reads ({why})"
            ) from None
        # tinytui splits text into pieces: padding (to a "Fixed" 10**9, say) or truncation would only
        # add pieces no text holds, or drop some it does
        tok.no_padding()
        tok.no_truncation()
        if why := _lengthening_rule(text):
            raise bpe.TokenizerFileError(f"{path}: {why}")
        vocab = tok.get_vocab(with_added_tokens=True)
        if sorted(vocab.values()) != list(range(len(vocab))):
            raise bpe.TokenizerFileError(f"{path}: the ids must be 0 to {len(vocab) - 1}, each once")
        if "" in vocab:
            raise bpe.TokenizerFileError(f"{path}: '': an empty piece (id {vocab['']})")
        bpe._check_pieces(path, vocab)
        self.vocab = vocab
        self.specials = tuple(t.content for t in tok.get_added_tokens_decoder().values() if t.special)
        self._tok = tok


MAX_PREPEND = 8  # characters a Prepend rule may add: SentencePiece's "▁" is one


def _lengthening_rule(text: str) -> str:
    """Why tokenizer.json's normalizer or decoder could make a text many times longer ("" when not): a
    Replace whose content is longer than what it replaces (a regular expression's match counts as one
    character), or a Prepend of more than MAX_PREPEND characters. Real tokenizers swap " " and "▁";
    "a" replaced by a million b's made "The capital" two million pieces (1.9 s, 360 MB), and a chain
    of such rules multiplies."""
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):  # the package read it: a parse it refuses cannot be here
        return ""
    if not isinstance(doc, dict):
        return ""
    for section in ("normalizer", "decoder"):
        for rule in _rules(doc.get(section)):
            kind = rule.get("type")
            if kind == "Replace":
                pattern, content = rule.get("pattern"), rule.get("content")
                source = pattern.get("String") if isinstance(pattern, dict) else None
                most = len(source) if isinstance(source, str) else 1
                if isinstance(content, str) and len(content) > max(most, 1):
                    return (
                        f"{section}: a Replace of {most} character{'s' if most > 1 else ''} by "
                        f"{len(content)}: tinytui reads rules that make text no longer"
                    )
            elif kind == "Prepend":
                prepend = rule.get("prepend")
                if isinstance(prepend, str) and len(prepend) > MAX_PREPEND:
                    at_most = f"tinytui reads {MAX_PREPEND} at most"
                    return f"{section}: a Prepend of {len(prepend)} characters: {at_most}"
    return ""


def _rules(x: Any) -> list[dict[str, Any]]:
    """Every object in a section of tokenizer.json (a Sequence's rules, and theirs), depth first."""
    found: list[dict[str, Any]] = []
    stack = [x]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def load_tokenizer(folder: Path) -> JsonTokenizer:
    path = folder / TOKENIZER
    try:
        text = bpe.read_text(path)
    except bpe.TokenizerFileError as exc:
        if not path.exists():
            raise bpe.TokenizerFileError(f"{path}: missing ({FOLDER_HAS})") from None
        raise exc from None
    return JsonTokenizer(text, path)


def vocabulary(tokenizer: JsonTokenizer, vocab_size: int, folder: Path) -> tuple[str, ...]:
    """The pieces in id order; rows of E past the tokenizer's last id (a vocabulary padded to a round
    size, as Qwen2's is) get names no text is split into: '<unused 151665>'."""
    pieces = sorted(tokenizer.vocab, key=tokenizer.vocab.__getitem__)
    if len(pieces) > vocab_size:
        says = f"config.json says vocab_size {vocab_size}"
        raise ModelFileError(f"{folder / TOKENIZER}: {len(pieces)} pieces, but {says}")
    taken = set(pieces)
    extra = [f"<unused {i}>" for i in range(len(pieces), vocab_size)]
    if taken & set(extra):
        raise ModelFileError(f"{folder / TOKENIZER}: a piece is spelt like tinytui's name of an unused row")
    return (*pieces, *extra)
