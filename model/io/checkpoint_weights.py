"""A GPT-2 checkpoint's model.safetensors -> tinytui's parameters, as the Hugging Face names map onto them.

GPT-2 keeps its linear layers as Conv1D, whose weight is (in, out), the orientation tinytui's W_1, W_2
and W_O already have, so those are taken as they are. Attention's three projections are one Conv1D,
c_attn (d, 3d): columns [0:d] are Q, [d:2d] K, [2d:3d] V, and head h has the columns h·dk…(h+1)·dk of
each, so W_Q[h] = c_attn[:, h·dk:(h+1)·dk] (its bias likewise gives b_Q[h]). The unembedding is the
token table transposed (tied), so an lm_head.weight in the file must equal wte.weight.

Keys may carry "transformer." (what GPT2LMHeadModel saves) or not (the hub's gpt2 file). Older files
also hold each block's causal mask as a buffer (h.<b>.attn.bias, 1×1×n×n, and attn.masked_bias): a
mask, not a weight, so it is skipped. The file is read as safetensors (no pickle, ever), header first;
every problem is a CheckpointError naming the file and the tensor, one line.

Loading checks the whole file (header, names, shapes, dtypes, every value finite, lm_head equal to
wte) and converts nothing: each tensor is widened to float64 the first time the model reads it
(WeightsFile, Params' LazyArrays), so the debugger starts without waiting for, or holding, a float32
copy of the file beside the float64 one. A block's c_attn becomes one float64 (d, 3d) array and
W_Q, W_K and W_V are views of its thirds: one product makes a row's queries, keys and values.
"""

from __future__ import annotations

import hashlib
import math
import os
import stat
import threading
import weakref
from collections.abc import Callable
from pathlib import Path

import numpy as np

from tinytui.model.config import ModelConfig
from tinytui.model.io.field_checks import ModelFileError
from tinytui.model.io.memory_room import too_large
from tinytui.model.io.safetensors_header import HEADER, NOT_HEADER, Header, named, read_header
from tinytui.model.params import Params, adopt, lazy, param_shapes

PREFIX = "transformer."
DTYPES = {"F32": np.float32, "F64": np.float64, "F16": np.float16, "BF16": None}  # BF16: float32's top half
MASK_BUFFERS = ("attn.bias", "attn.masked_bias")  # per block; "attn.c_attn.bias" is a real bias
CHUNK = 2**20  # bytes read at a time: a tensor is widened a chunk at a time, never held as float32 whole;
# under the 4 MiB mmap threshold the tinytui command holds (tinytui/cli/launch.py), so the buffer comes
# from the heap and is used again, not mapped and faulted in afresh for every tensor
# Params names -> the GPT-2 tensor each is (names without "transformer."; per block after "h.<b>.")
WHOLE = {"E": "wte.weight", "P": "wpe.weight", "lnf_g": "ln_f.weight", "lnf_b": "ln_f.bias"}
IN_BLOCK = {
    "ln1_g": "ln_1.weight",
    "ln1_b": "ln_1.bias",
    "ln2_g": "ln_2.weight",
    "ln2_b": "ln_2.bias",
    "W_O": "attn.c_proj.weight",
    "b_O": "attn.c_proj.bias",
    "W_1": "mlp.c_fc.weight",
    "b_1": "mlp.c_fc.bias",
    "W_2": "mlp.c_proj.weight",
    "b_2": "mlp.c_proj.bias",
}


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


def source_of(cfg: ModelConfig, name: str) -> tuple[str, Callable[[np.ndarray], dict[str, np.ndarray]]]:
    """The GPT-2 tensor a parameter comes from (name without "transformer."), and what makes every
    parameter that tensor holds from it, as float64: c_attn (d, 3d) gives W_Q, W_K and W_V, views of
    its thirds ((d, H·dk) -> (H, d, dk): head h takes the columns h·dk…(h+1)·dk of each), and its bias
    b_Q, b_K and b_V ((H·dk,) -> (H, dk)); every other tensor is one parameter as it is."""
    H, dk, d = cfg.n_heads, cfg.d_head, cfg.d_model
    if name in WHOLE:
        return WHOLE[name], lambda a: {name: frozen(a)}
    _, b, short = name.split(".")
    h, p = f"h.{b}.", f"blocks.{b}."
    if short in IN_BLOCK:
        return h + IN_BLOCK[short], lambda a: {name: frozen(a)}
    if short.startswith("W_"):

        def thirds(a: np.ndarray) -> dict[str, np.ndarray]:
            a = frozen(a)
            return {
                f"{p}W_{c}": a[:, i * d : (i + 1) * d].reshape(d, H, dk).transpose(1, 0, 2)
                for i, c in enumerate("QKV")
            }

        return h + "attn.c_attn.weight", thirds

    def bias_thirds(a: np.ndarray) -> dict[str, np.ndarray]:
        a = frozen(a)
        return {f"{p}b_{c}": a[i * d : (i + 1) * d].reshape(H, dk) for i, c in enumerate("QKV")}

    return h + "attn.c_attn.bias", bias_thirds


def frozen(a: np.ndarray) -> np.ndarray:
    """a, read-only from now on (the views cut from it are then read-only too)."""
    a.flags.writeable = False
    return a


def to_params(cfg: ModelConfig, hf: dict[str, np.ndarray]) -> Params:
    """The Params of a GPT-2 model from its tensors (shapes checked), in tinytui's layout (source_of)."""
    arrays: dict[str, np.ndarray] = {}
    for name in param_shapes(cfg):
        if name not in arrays:
            source, make = source_of(cfg, name)
            arrays |= make(np.array(hf[source], dtype=np.float64))
    return adopt(cfg, arrays)


def read(path: Path, cfg: ModelConfig) -> tuple[Params, WeightsFile]:
    """The Params in a GPT-2 model.safetensors, checked against cfg, and the file they are read from
    (its sha256() is what a recording names).

    The header is checked whole first (safetensors_header.read_header: every entry's dtype, shape and
    span, the spans tiling the file exactly); then every wanted tensor's bytes are read once, to check
    that each value is finite (and lm_head, when there is one, equal to wte). Nothing is converted yet:
    the Params read each tensor from the file when first asked for it (see WeightsFile)."""
    fail = failing(path)
    shapes = hf_shapes(cfg)
    if why := too_large(cfg):  # before the file is read through to check its values
        raise CheckpointError(f"{path}: {why}")
    f = regular(path)
    try:
        header = read_header(f.fileno(), os.fstat(f.fileno()).st_size, fail)
        table = _names(header, shapes, cfg.n_ctx, fail)
        kinds = {name: (e.dtype, e.shape) for name, e in header.entries.items()}
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
        weights = WeightsFile(path, f, header, fail)
        f = None  # weights holds it open now
        try:
            weights.check_finite(wanted)
            if "lm_head.weight" in table and not weights.same(
                table["lm_head.weight"], weights, table["wte.weight"]
            ):
                raise fail("lm_head.weight", "differs from wte.weight; tinytui unembeds with the tied E")
        except MemoryError:
            raise CheckpointError(f"{path}: too large to hold in memory") from None
        except OSError as exc:
            raise CheckpointError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    finally:
        if f is not None:
            f.close()

    def load(name: str) -> dict[str, np.ndarray]:
        source, make = source_of(cfg, name)
        return make(weights.float64(table[source]))

    return lazy(cfg, load), weights


class WeightsFile:
    """A checked safetensors file whose tensors are read when first needed. The file stays open; a
    tensor is read from it with os.pread (no memory map, whose pages would count against the process
    beside the float64 arrays) a chunk at a time and widened to float64. Its size, inode and modification
    time are noted when it is opened: a file changed in place since is refused when a tensor or the
    sha256 is next read (CheckpointError, one line), never mixed with what was read before; a file
    replaced by another (tinytui's own saves write a new file and rename it) changes nothing here, as
    the open file is the old one. sha256() hashes the whole file the first time it is asked for."""

    def __init__(self, path: Path, f, header: Header, fail):
        self.path = path
        self._file = f
        self._fd = f.fileno()
        self._fail = fail
        self._lock = threading.Lock()
        self._digest: str | None = None
        weakref.finalize(self, f.close)
        self._identity = _identity(os.fstat(self._fd))
        self._start = header.data_start
        self._entries = {name: (e.dtype, e.shape, e.begin, e.end) for name, e in header.entries.items()}

    def _unchanged(self) -> None:
        if _identity(os.fstat(self._fd)) != self._identity:
            raise CheckpointError(
                f"{self.path}: the file changed since it was loaded; load the checkpoint again"
            )

    def _chunks(self, name: str):
        """The tensor's bytes, CHUNK at a time (whole elements each), as uint8 arrays of one buffer."""
        dtype, _, begin, end = self._entries[name]
        width = np.dtype(DTYPES[dtype] or np.uint16).itemsize
        step = CHUNK // width * width
        buf = np.empty(min(step, end - begin), np.uint8)
        pos = begin
        while pos < end:
            part = buf[: min(step, end - pos)]
            if os.preadv(self._fd, [part.data], self._start + pos) != part.size:
                raise self._fail(name, "truncated while being read")
            yield part
            pos += part.size

    def check_finite(self, wanted: dict[str, tuple[int, ...]]) -> None:
        """Every value of the wanted tensors finite, else the first that is not, by its index."""
        for name in sorted(wanted, key=lambda n: self._entries[n][2]):
            dtype = self._entries[name][0]
            for part in self._chunks(name):
                if dtype == "BF16":  # exponent bits all ones: an infinity or a NaN
                    finite = bool(((part.view("<u2") & 0x7F80) != 0x7F80).all())
                else:
                    finite = bool(np.isfinite(part.view(np.dtype(DTYPES[dtype]).newbyteorder("<"))).all())
                if not finite:
                    arr = self.float64(name)
                    index = [int(i) for i in np.argwhere(~np.isfinite(arr))[0]]
                    raise self._fail(name, f"{float(arr[tuple(index)])!r} at {index} is not a finite number")

    def same(self, a: str, other: WeightsFile, b: str) -> bool:
        """Whether tensor a here holds the same values as tensor b in other (this file, or a shard)."""
        same_dtype = self._entries[a][0] == other._entries[b][0]
        if same_dtype and all(np.array_equal(x, y) for x, y in zip(self._chunks(a), other._chunks(b))):
            return True  # the same bytes (else compare values: -0.0 equals 0.0)
        return bool(np.array_equal(self.float64(a), other.float64(b)))

    def float64(self, name: str) -> np.ndarray:
        """The tensor as a new float64 array of its shape, read now."""
        self._unchanged()
        dtype, shape, _, _ = self._entries[name]
        out = np.empty(shape, np.float64)
        flat = out.reshape(-1)
        i = 0
        for part in self._chunks(name):
            wide = _widened(part, dtype)
            flat[i : i + wide.size] = wide
            i += wide.size
        return out

    def sha256(self) -> str:
        """The file's sha256 (hex): the bytes the tensors are read from."""
        with self._lock:
            if self._digest is None:
                self._unchanged()
                h = hashlib.sha256()
                buf = np.empty(CHUNK, np.uint8)
                pos = 0
                while n := os.preadv(self._fd, [buf.data], pos):
                    h.update(buf[:n].data)
                    pos += n
                if pos != self._identity[2]:
                    raise CheckpointError(
                        f"{self.path}: the file changed since it was loaded; load the checkpoint again"
                    )
                self._unchanged()
                self._digest = h.hexdigest()
            return self._digest


def _identity(st: os.stat_result) -> tuple[int, int, int, int]:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def _widened(part: np.ndarray, dtype: str) -> np.ndarray:
    """A chunk of little-endian values as something numpy widens to float64 exactly on assignment: the
    values themselves, or for bf16 (which numpy lacks) the float32 whose top half they are."""
    if dtype == "BF16":
        return (part.view("<u2").astype(np.uint32) << 16).view(np.float32)
    return part.view(np.dtype(DTYPES[dtype]).newbyteorder("<"))


def _names(header: Header, shapes: dict[str, tuple[int, ...]], n_ctx: int, fail) -> dict[str, str]:
    """Name without "transformer." -> name in the file, for every tensor but the causal-mask buffers,
    which are never read (each at most n_ctx × n_ctx values, so no unread bytes make the file, and
    the hash of it a recording names, larger than the model); a tensor the config does not account for
    (a 13th block, say) is refused by name."""
    table: dict[str, str] = {}
    for name, entry in header.entries.items():
        bare = name.removeprefix(PREFIX)
        parts = bare.split(".")
        if len(parts) == 4 and parts[0] == "h" and ".".join(parts[2:]) in MASK_BUFFERS:
            most = n_ctx * n_ctx if parts[3] == "bias" else 1
            if math.prod(entry.shape) > most:
                why = f"a causal mask of a context of {n_ctx} has {most} values at most"
                raise fail(named(name), f"shape {list(entry.shape)}: {why}")
            continue
        if bare not in shapes and bare != "lm_head.weight":
            raise fail(named(name), "not a tensor of the GPT-2 that config.json describes")
        if bare in table:
            raise fail(named(name), f"the file has it twice (as {table[bare]} too)")
        table[bare] = name
    return table


def failing(path: Path) -> Callable[[str, str], CheckpointError]:
    """fail(tensor, why) for a checkpoint's weights file: one line naming the file and the tensor, or
    saying the file is no safetensors file tinytui can read when its header as a whole is wrong."""

    def fail(tensor: str, why: str) -> CheckpointError:
        if tensor == HEADER:
            why = why.removeprefix(NOT_HEADER).removeprefix(" (").removesuffix(")")
            return CheckpointError(f"{path}: not a safetensors file tinytui can read ({why})")
        return CheckpointError(f"{path}: {tensor}: {why}")

    return fail


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
