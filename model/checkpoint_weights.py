"""A GPT-2 checkpoint's model.safetensors -> tinytui's parameters, as the Hugging Face names map onto them.

GPT-2 keeps its linear layers as Conv1D, whose weight is (in, out), the orientation tinytui's W_1, W_2
and W_O already have, so those are taken as they are. Attention's three projections are one Conv1D,
c_attn (d, 3d): columns [0:d] are Q, [d:2d] K, [2d:3d] V, and head h has the columns h·dk…(h+1)·dk of
each, so W_Q[h] = c_attn[:, h·dk:(h+1)·dk] (its bias likewise gives b_Q[h]). The unembedding is the
token table transposed (tied), so an lm_head.weight in the file must equal wte.weight.

Keys may carry "transformer." (what GPT2LMHeadModel saves) or not (the hub's gpt2 file). Older files
also hold each block's causal mask as a buffer (h.<b>.attn.bias, 1×1×n×n, and attn.masked_bias): a
mask, not a weight, so it is skipped. The file is read with the safetensors package (no pickle, ever);
every problem is a CheckpointError naming the file and the tensor, one line.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

import numpy as np

from tinytui.model.config import ModelConfig
from tinytui.model.files import ModelFileError
from tinytui.model.params import Params, adopt

PREFIX = "transformer."
DTYPES = {"F32": np.float32, "F64": np.float64, "F16": np.float16}  # what numpy can hold; BF16 cannot
MASK_BUFFERS = ("attn.bias", "attn.masked_bias")  # per block; "attn.c_attn.bias" is a real bias


class CheckpointError(ModelFileError):
    """A checkpoint folder or one of its files that cannot be used; str() is one line naming the file."""


def hf_shapes(cfg: ModelConfig) -> dict[str, tuple[int, ...]]:
    """Every tensor a GPT-2 file must hold (names without "transformer."), with its shape."""
    d, ff = cfg.d_model, cfg.d_ff
    shapes: dict[str, tuple[int, ...]] = {"wte.weight": (cfg.n_vocab, d), "wpe.weight": (cfg.n_ctx, d)}
    for b in range(cfg.n_blocks):
        h = f"h.{b}."
        for ln in ("ln_1", "ln_2"):
            shapes[f"{h}{ln}.weight"] = shapes[f"{h}{ln}.bias"] = (d,)
        shapes[f"{h}attn.c_attn.weight"], shapes[f"{h}attn.c_attn.bias"] = (d, 3 * d), (3 * d,)
        shapes[f"{h}attn.c_proj.weight"], shapes[f"{h}attn.c_proj.bias"] = (d, d), (d,)
        shapes[f"{h}mlp.c_fc.weight"], shapes[f"{h}mlp.c_fc.bias"] = (d, ff), (ff,)
        shapes[f"{h}mlp.c_proj.weight"], shapes[f"{h}mlp.c_proj.bias"] = (ff, d), (d,)
    shapes["ln_f.weight"] = shapes["ln_f.bias"] = (d,)
    return shapes


def to_params(cfg: ModelConfig, hf: dict[str, np.ndarray]) -> Params:
    """The Params of a GPT-2 model from its tensors (float64, shapes checked), in tinytui's layout."""
    H, dk, d = cfg.n_heads, cfg.d_head, cfg.d_model

    def heads(columns: np.ndarray) -> np.ndarray:
        """(d, H·dk) -> (H, d, dk): head h takes the columns h·dk…(h+1)·dk; a bias (H·dk,) -> (H, dk)."""
        if columns.ndim == 1:
            return np.ascontiguousarray(columns.reshape(H, dk))
        return np.ascontiguousarray(columns.reshape(d, H, dk).transpose(1, 0, 2))

    arrays = {"E": hf["wte.weight"], "P": hf["wpe.weight"]}
    for b in range(cfg.n_blocks):
        h, p = f"h.{b}.", f"blocks.{b}."
        for ln, short in (("ln_1", "ln1"), ("ln_2", "ln2")):
            arrays[f"{p}{short}_g"], arrays[f"{p}{short}_b"] = hf[f"{h}{ln}.weight"], hf[f"{h}{ln}.bias"]
        qkv, qkv_bias = hf[f"{h}attn.c_attn.weight"], hf[f"{h}attn.c_attn.bias"]
        for i, name in enumerate("QKV"):
            arrays[f"{p}W_{name}"] = heads(qkv[:, i * d : (i + 1) * d])
            arrays[f"{p}b_{name}"] = heads(qkv_bias[i * d : (i + 1) * d])
        arrays[f"{p}W_O"], arrays[f"{p}b_O"] = hf[f"{h}attn.c_proj.weight"], hf[f"{h}attn.c_proj.bias"]
        arrays[f"{p}W_1"], arrays[f"{p}b_1"] = hf[f"{h}mlp.c_fc.weight"], hf[f"{h}mlp.c_fc.bias"]
        arrays[f"{p}W_2"], arrays[f"{p}b_2"] = hf[f"{h}mlp.c_proj.weight"], hf[f"{h}mlp.c_proj.bias"]
    arrays["lnf_g"], arrays["lnf_b"] = hf["ln_f.weight"], hf["ln_f.bias"]
    return adopt(cfg, arrays)


def read(path: Path, cfg: ModelConfig) -> tuple[Params, str]:
    """The Params in a GPT-2 model.safetensors and the file's sha256 (hex), checked against cfg."""

    def fail(tensor: str, why: str) -> CheckpointError:
        return CheckpointError(f"{path}: {tensor}: {why}")

    digest = sha256(path)
    from safetensors import SafetensorError, safe_open

    shapes = hf_shapes(cfg)
    try:
        with safe_open(str(path), framework="numpy") as f:
            names = list(f.keys())
            table = _names(names, shapes, fail)
            missing = next((name for name in shapes if name not in table), None)
            if missing is not None:
                raise fail(missing, f"missing (config.json says {cfg.n_blocks} blocks of d {cfg.d_model})")
            hf = {name: _tensor(f, table[name], shapes[name], fail) for name in shapes}
            if "lm_head.weight" in table:
                lm_head = _tensor(f, table["lm_head.weight"], shapes["wte.weight"], fail)
                if not np.array_equal(lm_head, hf["wte.weight"]):
                    raise fail("lm_head.weight", "differs from wte.weight; tinytui unembeds with the tied E")
    except SafetensorError as exc:
        raise CheckpointError(f"{path}: not a safetensors file tinytui can read ({exc})") from None
    except MemoryError:
        raise CheckpointError(f"{path}: too large to hold in memory") from None
    return to_params(cfg, hf), digest


def _names(names: list[str], shapes: dict[str, tuple[int, ...]], fail) -> dict[str, str]:
    """Name without "transformer." -> name in the file, for every tensor but the causal-mask buffers;
    a tensor the config does not account for (a 13th block, say) is refused by name."""
    table: dict[str, str] = {}
    for name in names:
        bare = name.removeprefix(PREFIX)
        parts = bare.split(".")
        if len(parts) == 4 and parts[0] == "h" and ".".join(parts[2:]) in MASK_BUFFERS:
            continue
        if bare not in shapes and bare != "lm_head.weight":
            raise fail(name, "not a tensor of the GPT-2 that config.json describes")
        if bare in table:
            raise fail(name, f"the file has it twice (as {table[bare]} too)")
        table[bare] = name
    return table


def _tensor(f, name: str, shape: tuple[int, ...], fail) -> np.ndarray:
    piece = f.get_slice(name)
    dtype, got = piece.get_dtype(), list(piece.get_shape())
    if got != list(shape):
        raise fail(name, f"shape {got}, expected {list(shape)} (from config.json)")
    if dtype not in DTYPES:
        raise fail(name, f"dtype {dtype}: tinytui reads {', '.join(DTYPES)}")
    arr = np.asarray(f.get_tensor(name)).astype(np.float64)  # a new float64 array the Params adopts
    finite = np.isfinite(arr)
    if not finite.all():
        index = [int(i) for i in np.argwhere(~finite)[0]]
        raise fail(name, f"{float(arr[tuple(index)])!r} at {index} is not a finite number")
    return arr.reshape(shape)


def sha256(path: Path) -> str:
    """The file's sha256, as a recording names the weights it was made with."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise CheckpointError(f"{path}: missing") from None
    except OSError as exc:
        raise CheckpointError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise CheckpointError(f"{path}: cannot read the weights (it is not a regular file)")
        try:
            return hashlib.file_digest(f, "sha256").hexdigest()
        except OSError as exc:
            raise CheckpointError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
