"""A Llama-family checkpoint's weights (model.safetensors, or the shards model.safetensors.index.json lists)
-> tinytui's parameters, as the Hugging Face names map onto them.

Every projection is a torch Linear whose weight is (out, in), so tinytui's matrices are its transpose:
W_gate = gate_proj.weightᵀ (d, f), W_down = down_proj.weightᵀ (f, d), W_O = o_proj.weightᵀ (H·k, d),
W_U = lm_head.weightᵀ (d, V). q_proj's rows h·k … (h+1)·k are query head h, so W_Q[h] is those rows
transposed (k_proj and v_proj likewise per key/value head, their biases the same rows). The norms'
weights are RMSNorm's gains: ln1_g (input_layernorm), ln2_g (post_attention_layernorm), lnf_g (norm).

Names may carry "model." (what LlamaForCausalLM saves) or not. Older files hold each layer's rotary
frequencies as a buffer (self_attn.rotary_emb.inv_freq): computed, not learned, so skipped. bf16, fp16,
fp32 and fp64 are read to float64 exactly. Each file is checked and read as checkpoint_weights reads
GPT-2's (checked whole at load, each tensor widened when the model first reads it; the transposes are
views, so nothing is copied twice); a sharded model's sha256 is that of its shards' names and
sha256s, one "name sha256" line each in name order, so a recording names the very bytes loaded.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np

from tinytui.model import checks
from tinytui.model.config import ModelConfig
from tinytui.model.io import bpe
from tinytui.model.io.checkpoint_weights import (
    DTYPES,
    CheckpointError,
    WeightsFile,
    failing,
    frozen,
    regular,
)
from tinytui.model.io.field_checks import read_int
from tinytui.model.io.memory_room import too_large
from tinytui.model.io.safetensors_header import named, read_header
from tinytui.model.params import Params, adopt, lazy, param_shapes

PREFIX = "model."
INDEX = "model.safetensors.index.json"
SINGLE = "model.safetensors"
BUFFERS = ("self_attn.rotary_emb.inv_freq",)  # per layer; computed from rope_theta, not learned
MAX_INDEX_BYTES = 16 * 2**20
MAX_SHARDS = 256


def hf_shapes(cfg: ModelConfig) -> dict[str, tuple[int, ...]]:
    """Every tensor the files must hold (names without "model."), with its shape."""
    d, ff, k = cfg.d_model, cfg.d_ff, cfg.d_head
    q, kv = cfg.n_heads * k, cfg.n_kv_heads * k
    shapes: dict[str, tuple[int, ...]] = {"embed_tokens.weight": (cfg.n_vocab, d)}
    for b in range(cfg.n_blocks):
        layer = f"layers.{b}."
        shapes[layer + "input_layernorm.weight"] = shapes[layer + "post_attention_layernorm.weight"] = (d,)
        for name, rows in (("q", q), ("k", kv), ("v", kv)):
            shapes[f"{layer}self_attn.{name}_proj.weight"] = (rows, d)
            if cfg.attn_bias:
                shapes[f"{layer}self_attn.{name}_proj.bias"] = (rows,)
        shapes[layer + "self_attn.o_proj.weight"] = (d, q)
        if cfg.out_bias:
            shapes[layer + "self_attn.o_proj.bias"] = (d,)
        shapes[layer + "mlp.gate_proj.weight"] = shapes[layer + "mlp.up_proj.weight"] = (ff, d)
        shapes[layer + "mlp.down_proj.weight"] = (d, ff)
    shapes["norm.weight"] = (d,)
    if not cfg.tied:
        shapes["lm_head.weight"] = (cfg.n_vocab, d)
    return shapes


IN_BLOCK = {  # Params' short names -> the tensor each is made from, after "layers.<b>."
    "ln1_g": "input_layernorm.weight",
    "ln2_g": "post_attention_layernorm.weight",
    "W_Q": "self_attn.q_proj.weight",
    "W_K": "self_attn.k_proj.weight",
    "W_V": "self_attn.v_proj.weight",
    "b_Q": "self_attn.q_proj.bias",
    "b_K": "self_attn.k_proj.bias",
    "b_V": "self_attn.v_proj.bias",
    "W_O": "self_attn.o_proj.weight",
    "b_O": "self_attn.o_proj.bias",
    "W_gate": "mlp.gate_proj.weight",
    "W_up": "mlp.up_proj.weight",
    "W_down": "mlp.down_proj.weight",
}
WHOLE = {"E": "embed_tokens.weight", "lnf_g": "norm.weight", "W_U": "lm_head.weight"}


def source_of(cfg: ModelConfig, name: str) -> tuple[str, Callable[[np.ndarray], dict[str, np.ndarray]]]:
    """The tensor a parameter is made from (name without "model."), and how, as float64 views of it: a
    projection's rows h·k … (h+1)·k transposed are head h ((n·k, d) -> (n, d, k); a bias (n·k,) ->
    (n, k)), every other matrix is the weight transposed, a norm's gains the weight itself."""
    k, d = cfg.d_head, cfg.d_model
    short = name.rsplit(".", 1)[-1]
    source = WHOLE[name] if name in WHOLE else f"layers.{name.split('.')[1]}.{IN_BLOCK[short]}"
    if short in ("W_Q", "W_K", "W_V"):
        return source, lambda a: {name: frozen(a).reshape(-1, k, d).transpose(0, 2, 1)}
    if short in ("b_Q", "b_K", "b_V"):
        return source, lambda a: {name: frozen(a).reshape(-1, k)}
    if short.startswith("W_"):
        return source, lambda a: {name: frozen(a).T}
    return source, lambda a: {name: frozen(a)}


def to_params(cfg: ModelConfig, hf: dict[str, np.ndarray]) -> Params:
    """The Params of a Llama-family model from its tensors (shapes checked), in tinytui's layout."""
    arrays: dict[str, np.ndarray] = {}
    for name in param_shapes(cfg):
        source, make = source_of(cfg, name)
        arrays |= make(np.array(hf[source], dtype=np.float64))
    return adopt(cfg, arrays)


def weight_files(folder: Path) -> tuple[Path, ...]:
    """model.safetensors, or the shards the index names (each once, in name order)."""
    single, index = folder / SINGLE, folder / INDEX
    if single.exists() or not index.exists():
        return (single,)
    try:
        doc = json.loads(bpe.read_text(index, MAX_INDEX_BYTES), parse_int=read_int)
    except bpe.TokenizerFileError as exc:
        raise CheckpointError(str(exc)) from None
    except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
        doc = None
    weight_map = doc.get("weight_map") if isinstance(doc, dict) else None
    if not isinstance(weight_map, dict) or not weight_map:
        raise CheckpointError(f"{index}: weight_map: expected an object of tensor name: shard file")
    for shard in weight_map.values():  # before the set: a list there cannot be put in one
        if (
            not isinstance(shard, str)
            or Path(shard).name != shard
            or not shard.endswith(".safetensors")
            or not shard.isprintable()  # a NUL byte, which no file name holds, or a line break
        ):
            raise CheckpointError(f"{index}: weight_map: {checks.shown(str(shard))} is not a file beside it")
    shards = sorted(set(weight_map.values()))
    if len(shards) > MAX_SHARDS:
        raise CheckpointError(f"{index}: weight_map: {len(shards)} shards, more than tinytui reads")
    return tuple(folder / shard for shard in shards)


def read(folder: Path, cfg: ModelConfig) -> tuple[Params, Callable[[], str]]:
    """The Params in the folder's weights, checked whole, and what gives their sha256 (hex; see the
    module's docstring), hashed when first asked for."""
    shapes = hf_shapes(cfg)
    files = weight_files(folder)
    if why := too_large(cfg):  # before the files are read through to check their values
        raise CheckpointError(f"{files[0] if len(files) == 1 else folder / INDEX}: {why}")
    found: dict[str, tuple[WeightsFile, str]] = {}  # bare name -> (its file, its name there)
    opened: list[WeightsFile] = []
    for path in files:
        fail = failing(path)
        f = regular(path)
        try:
            header = read_header(f.fileno(), os.fstat(f.fileno()).st_size, fail)
            names = list(header.entries)
            kinds = {name: (e.dtype, e.shape) for name, e in header.entries.items()}
            wanted: dict[str, tuple[int, ...]] = {}
            here: dict[str, str] = {}
            for name in names:
                bare = name.removeprefix(PREFIX)
                parts = bare.split(".", 2)
                if len(parts) == 3 and parts[0] == "layers" and parts[2] in BUFFERS:
                    if math.prod(kinds[name][1]) > cfg.d_head // 2:  # never read: kept as small as it is
                        why = f"a head of {cfg.d_head} has {cfg.d_head // 2} rotary frequencies"
                        raise fail(named(name), f"shape {list(kinds[name][1])}: {why}")
                    continue
                if bare == "lm_head.weight" and cfg.tied:
                    wanted[name] = (cfg.n_vocab, cfg.d_model)  # read to check it is E
                elif bare not in shapes:
                    raise fail(named(name), "not a tensor of the model config.json describes")
                else:
                    wanted[name] = shapes[bare]
                if bare in found or bare in here:
                    other_file = found[bare][0].path.name if bare in found else path.name
                    first = found[bare][1] if bare in found else here[bare]
                    raise fail(named(name), f"the weights have it twice (as {first} in {other_file} too)")
                here[bare] = name
                dtype, got = kinds[name]
                if list(got) != list(wanted[name]):
                    raise fail(name, f"shape {list(got)}, expected {list(wanted[name])} (from config.json)")
                if dtype not in DTYPES:
                    raise fail(name, f"dtype {dtype}: tinytui reads {', '.join(DTYPES)}")
            weights = WeightsFile(path, f, header, fail)
            f = None  # weights holds it open now
            try:
                weights.check_finite(wanted)
            except MemoryError:
                raise CheckpointError(f"{path}: too large to hold in memory") from None
            except OSError as exc:
                raise CheckpointError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
        finally:
            if f is not None:
                f.close()
        opened.append(weights)
        found |= {bare: (weights, name) for bare, name in here.items()}
    missing = next((name for name in shapes if name not in found), None)
    if missing is not None:
        where = files[0] if len(files) == 1 else folder / INDEX
        says = f"config.json says {cfg.n_blocks} blocks of d {cfg.d_model}"
        raise CheckpointError(f"{where}: {PREFIX}{missing}: missing ({says})")
    if cfg.tied and "lm_head.weight" in found:
        (head, name), (emb, emb_name) = found["lm_head.weight"], found["embed_tokens.weight"]
        if not head.same(name, emb, emb_name):
            raise CheckpointError(
                f"{head.path}: lm_head.weight: differs from embed_tokens.weight, but "
                "config.json says tie_word_embeddings"
            )

    def load(name: str) -> dict[str, np.ndarray]:
        source, make = source_of(cfg, name)
        weights, in_file = found[source]
        return make(weights.float64(in_file))

    def digest() -> str:
        if len(opened) == 1:
            return opened[0].sha256()
        lines = "".join(f"{w.path.name} {w.sha256()}\n" for w in opened)
        return hashlib.sha256(lines.encode()).hexdigest()

    return lazy(cfg, load), digest
