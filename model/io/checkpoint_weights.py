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
import json
import os
import stat
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from tinytui.model.config import ModelConfig
from tinytui.model.io.field_checks import ModelFileError
from tinytui.model.params import Params, adopt

PREFIX = "transformer."
DTYPES = {"F32": np.float32, "F64": np.float64, "F16": np.float16, "BF16": None}  # BF16: float32's top half
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
    """The Params in a GPT-2 model.safetensors and the file's sha256 (hex), checked against cfg.

    The safetensors package checks the header (offsets inside the file, no overlaps); the data is then
    read once, in file order, with plain reads (no memory map, whose pages would count against the
    process as much as the weights), and every byte read is hashed as it goes: the sha256 a recording
    names is that of the very bytes loaded."""

    def fail(tensor: str, why: str) -> CheckpointError:
        return CheckpointError(f"{path}: {tensor}: {why}")

    from safetensors import SafetensorError, safe_open

    shapes = hf_shapes(cfg)
    with regular(path) as f:
        try:
            with safe_open(str(path), framework="numpy") as st:
                names = list(st.keys())
                table = _names(names, shapes, fail)
                kinds = {
                    name: (st.get_slice(name).get_dtype(), st.get_slice(name).get_shape()) for name in names
                }
        except SafetensorError as exc:
            raise CheckpointError(f"{path}: not a safetensors file tinytui can read ({exc})") from None
        missing = next((name for name in shapes if name not in table), None)
        if missing is not None:
            raise fail(missing, f"missing (config.json says {cfg.n_blocks} blocks of d {cfg.d_model})")
        wanted = {table[name]: shapes[name] for name in shapes}
        if "lm_head.weight" in table:
            wanted[table["lm_head.weight"]] = shapes["wte.weight"]
        for name, shape in wanted.items():
            dtype, got = kinds[name]
            if list(got) != list(shape):
                raise fail(name, f"shape {list(got)}, expected {list(shape)} (from config.json)")
            if dtype not in DTYPES:
                raise fail(name, f"dtype {dtype}: tinytui reads {', '.join(DTYPES)}")
        try:
            digest, arrays = read_hashed(f, wanted, kinds, fail)
        except MemoryError:
            raise CheckpointError(f"{path}: too large to hold in memory") from None
        except OSError as exc:
            raise CheckpointError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    hf = {name: arrays[table[name]] for name in shapes}
    if "lm_head.weight" in table and not np.array_equal(arrays[table["lm_head.weight"]], hf["wte.weight"]):
        raise fail("lm_head.weight", "differs from wte.weight; tinytui unembeds with the tied E")
    return to_params(cfg, hf), digest


def read_hashed(
    f, wanted: dict[str, tuple[int, ...]], kinds: dict, fail
) -> tuple[str, dict[str, np.ndarray]]:
    """Every byte of the file through sha256, in order; the wanted tensors as float64 arrays. kinds is
    what safetensors read of the header (dtype, shape per tensor): the header read here must agree."""
    h = hashlib.sha256()
    head = f.read(8)
    n = int.from_bytes(head, "little")
    raw = f.read(n)
    h.update(head)
    h.update(raw)
    try:
        header = json.loads(raw)  # safetensors has just read and checked this very header
        header.pop("__metadata__", None)
        same = {k: (e["dtype"], list(e["shape"])) for k, e in header.items()} == {
            k: (d, list(s)) for k, (d, s) in kinds.items()
        }
    except (ValueError, TypeError, KeyError, AttributeError):
        same = False
    if not same:
        raise fail("(header)", "the file changed while it was being read; load it again")
    arrays: dict[str, np.ndarray] = {}
    pos = 0
    # the hash runs in a thread of its own, in file order, while this one converts to float64 (both
    # release the GIL): on two cores the sha256 costs next to nothing beside the conversion
    with ThreadPoolExecutor(1) as hasher:
        for name, entry in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"][0]):
            begin, end = entry["data_offsets"]
            if begin > pos:  # bytes between tensors (the format has none; hashed all the same)
                hasher.submit(h.update, f.read(begin - pos))
            buf = np.empty(end - begin, np.uint8)
            if f.readinto(buf.data) != buf.size:
                raise fail(name, "truncated while being read")
            hasher.submit(h.update, buf.data)  # the task keeps buf until it is hashed
            pos = end
            if name in wanted:
                arr = to_float64(buf, entry["dtype"])
                arr = arr.reshape(wanted[name])
                finite = np.isfinite(arr)
                if not finite.all():
                    index = [int(i) for i in np.argwhere(~finite)[0]]
                    raise fail(name, f"{float(arr[tuple(index)])!r} at {index} is not a finite number")
                arrays[name] = arr
        while chunk := f.read(2**20):
            hasher.submit(h.update, chunk)
    return h.hexdigest(), arrays


def to_float64(buf: np.ndarray, dtype: str) -> np.ndarray:
    """A tensor's little-endian bytes as float64, exactly. numpy has no bfloat16: a bf16 value is the top
    16 bits of the float32 with the same sign, exponent and leading mantissa bits, so it is widened by
    putting 16 zero bits below it."""
    if dtype == "BF16":
        return (buf.view("<u2").astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return buf.view(np.dtype(DTYPES[dtype]).newbyteorder("<")).astype(np.float64)


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


def regular(path: Path):
    """path opened for reading, never a FIFO, device or folder (opening does not wait on a FIFO)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise CheckpointError(f"{path}: missing") from None
    except OSError as exc:
        raise CheckpointError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    st = os.fstat(fd)  # before fdopen, which refuses a folder with its own IsADirectoryError
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "a FIFO, device or socket"
        raise CheckpointError(f"{path}: cannot read the weights (it is {kind}, not a regular file)")
    return os.fdopen(fd, "rb")


def sha256(path: Path) -> str:
    """The file's sha256 alone (read() computes it as it loads; this is what a benchmark compares)."""
    with regular(path) as f:
        return hashlib.file_digest(f, "sha256").hexdigest()
