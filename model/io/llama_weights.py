"""A Llama-family checkpoint's weights (model.safetensors, or the shards model.safetensors.index.json lists)
-> tinytui's parameters, as the Hugging Face names map onto them.

Every projection is a torch Linear whose weight is (out, in), so tinytui's matrices are its transpose:
W_gate = gate_proj.weightᵀ (d, f), W_down = down_proj.weightᵀ (f, d), W_O = o_proj.weightᵀ (H·k, d),
W_U = lm_head.weightᵀ (d, V). q_proj's rows h·k … (h+1)·k are query head h, so W_Q[h] is those rows
transposed (k_proj and v_proj likewise per key/value head, their biases the same rows). The norms'
weights are RMSNorm's gains: ln1_g (input_layernorm), ln2_g (post_attention_layernorm), lnf_g (norm).

Names may carry "model." (what LlamaForCausalLM saves) or not. Older files hold each layer's rotary
frequencies as a buffer (self_attn.rotary_emb.inv_freq): computed, not learned, so skipped. bf16, fp16,
fp32 and fp64 are read to float64 exactly. Each file is read as checkpoint_weights reads GPT-2's (no
memory map, every byte hashed); a sharded model's sha256 is that of its shards' names and sha256s, one
"name sha256" line each in name order, so a recording names the very bytes loaded.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from tinytui.model import checks
from tinytui.model.config import ModelConfig
from tinytui.model.io import bpe
from tinytui.model.io.checkpoint_weights import DTYPES, CheckpointError, read_hashed, regular
from tinytui.model.params import Params, adopt

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


def to_params(cfg: ModelConfig, hf: dict[str, np.ndarray]) -> Params:
    """The Params of a Llama-family model from its tensors (float64, shapes checked), in tinytui's layout.
    Each tensor is taken out of hf as it is laid out again, so that only one is held twice at a time
    (at SmolLM-135M's shapes the weights are 1 GB as float64)."""
    take = hf.pop
    k, d = cfg.d_head, cfg.d_model

    def heads(rows: np.ndarray) -> np.ndarray:
        """(n·k, d) -> (n, d, k): head h is rows h·k … (h+1)·k, transposed; a bias (n·k,) -> (n, k)."""
        if rows.ndim == 1:
            return np.ascontiguousarray(rows.reshape(-1, k))
        return np.ascontiguousarray(rows.reshape(-1, k, d).transpose(0, 2, 1))

    def t(a: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(a.T)

    arrays = {"E": take("embed_tokens.weight")}
    for b in range(cfg.n_blocks):
        layer, p = f"layers.{b}.", f"blocks.{b}."
        arrays[p + "ln1_g"] = take(layer + "input_layernorm.weight")
        arrays[p + "ln2_g"] = take(layer + "post_attention_layernorm.weight")
        for name in "QKV":
            proj = f"{layer}self_attn.{name.lower()}_proj."
            arrays[f"{p}W_{name}"] = heads(take(proj + "weight"))
            if cfg.attn_bias:
                arrays[f"{p}b_{name}"] = heads(take(proj + "bias"))
        arrays[p + "W_O"] = t(take(layer + "self_attn.o_proj.weight"))
        if cfg.out_bias:
            arrays[p + "b_O"] = take(layer + "self_attn.o_proj.bias")
        for name in ("gate", "up", "down"):
            arrays[f"{p}W_{name}"] = t(take(f"{layer}mlp.{name}_proj.weight"))
    arrays["lnf_g"] = take("norm.weight")
    if not cfg.tied:
        arrays["W_U"] = t(take("lm_head.weight"))
    return adopt(cfg, arrays)


def weight_files(folder: Path) -> tuple[Path, ...]:
    """model.safetensors, or the shards the index names (each once, in name order)."""
    single, index = folder / SINGLE, folder / INDEX
    if single.exists() or not index.exists():
        return (single,)
    try:
        doc = json.loads(bpe.read_text(index, MAX_INDEX_BYTES))
    except bpe.TokenizerFileError as exc:
        raise CheckpointError(str(exc)) from None
    except (json.JSONDecodeError, RecursionError):
        doc = None
    weight_map = doc.get("weight_map") if isinstance(doc, dict) else None
    if not isinstance(weight_map, dict) or not weight_map:
        raise CheckpointError(f"{index}: weight_map: expected an object of tensor name: shard file")
    shards = sorted(set(weight_map.values()), key=str)
    if len(shards) > MAX_SHARDS:
        raise CheckpointError(f"{index}: weight_map: {len(shards)} shards, more than tinytui reads")
    for shard in shards:
        if not isinstance(shard, str) or Path(shard).name != shard or not shard.endswith(".safetensors"):
            raise CheckpointError(f"{index}: weight_map: {checks.shown(str(shard))} is not a file beside it")
    return tuple(folder / shard for shard in shards)


def read(folder: Path, cfg: ModelConfig) -> tuple[Params, str]:
    """The Params in the folder's weights and their sha256 (hex; see the module's docstring)."""
    from safetensors import SafetensorError, safe_open

    shapes = hf_shapes(cfg)
    files = weight_files(folder)
    found: dict[str, tuple[Path, str]] = {}  # bare name -> (file, name in it)
    arrays: dict[str, np.ndarray] = {}
    digests = []
    for path in files:

        def fail(tensor: str, why: str, path: Path = path) -> CheckpointError:
            return CheckpointError(f"{path}: {tensor}: {why}")

        with regular(path) as f:
            try:
                with safe_open(str(path), framework="numpy") as st:
                    names = list(st.keys())
                    kinds = {n: (st.get_slice(n).get_dtype(), st.get_slice(n).get_shape()) for n in names}
            except SafetensorError as exc:
                raise CheckpointError(f"{path}: not a safetensors file tinytui can read ({exc})") from None
            wanted: dict[str, tuple[int, ...]] = {}
            for name in names:
                bare = name.removeprefix(PREFIX)
                if bare.startswith("layers.") and bare.split(".", 2)[2] in BUFFERS:
                    continue
                if bare == "lm_head.weight" and cfg.tied:
                    wanted[name] = (cfg.n_vocab, cfg.d_model)  # read to check it is E
                elif bare not in shapes:
                    raise fail(name, "not a tensor of the model config.json describes")
                else:
                    wanted[name] = shapes[bare]
                if bare in found:
                    raise fail(
                        name, f"the weights have it twice (as {found[bare][1]} in {found[bare][0].name} too)"
                    )
                found[bare] = (path, name)
                dtype, got = kinds[name]
                if list(got) != list(wanted[name]):
                    raise fail(name, f"shape {list(got)}, expected {list(wanted[name])} (from config.json)")
                if dtype not in DTYPES:
                    raise fail(name, f"dtype {dtype}: tinytui reads {', '.join(DTYPES)}")
            try:
                digest, got_arrays = read_hashed(f, wanted, kinds, fail)
            except MemoryError:
                raise CheckpointError(f"{path}: too large to hold in memory") from None
            except OSError as exc:
                raise CheckpointError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
        digests.append(f"{path.name} {digest}")
        arrays |= {name.removeprefix(PREFIX): a for name, a in got_arrays.items()}
        del got_arrays  # arrays holds them now: to_params frees each as it lays it out again
    missing = next((name for name in shapes if name not in arrays), None)
    if missing is not None:
        where = files[0] if len(files) == 1 else folder / INDEX
        says = f"config.json says {cfg.n_blocks} blocks of d {cfg.d_model}"
        raise CheckpointError(f"{where}: {PREFIX}{missing}: missing ({says})")
    tied_head = arrays.pop("lm_head.weight", None) if cfg.tied else None
    if tied_head is not None and not np.array_equal(tied_head, arrays["embed_tokens.weight"]):
        raise CheckpointError(
            f"{found['lm_head.weight'][0]}: lm_head.weight: differs from embed_tokens.weight, but "
            "config.json says tie_word_embeddings"
        )
    if len(files) == 1:
        digest = digests[0].split(" ")[1]
    else:
        digest = hashlib.sha256("".join(line + "\n" for line in digests).encode()).hexdigest()
    del tied_head
    return to_params(cfg, arrays), digest  # arrays holds exactly the shapes' tensors now
