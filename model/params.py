"""Immutable named parameters. An edit makes a new Params; nothing is changed in place."""

from __future__ import annotations

import math
import threading
import weakref
from collections.abc import Callable, Iterator, Mapping

import numpy as np

from tinytui.model.config import ModelConfig
from tinytui.model.names import (
    ALL_BLOCK_PARAMS,
    ATTN_BIAS_PARAMS,
    BLOCK_PARAMS,
    FINAL_NORM_PARAMS,
    GATED_PARAMS,
    NORM_PARAMS,
    POSITION_PARAM,
    UNEMBED_PARAM,
    in_block,
    label,
)


def block_params_of(cfg: ModelConfig) -> tuple[str, ...]:
    """The block-local parameter names this config has, in the order the forward pass reads them: the
    chapter's eight, with the norms' gains and biases and the attention biases when switched on
    (RMSNorm has gains only; Qwen2 biases Q, K and V but not the output), W_gate, W_up and W_down in
    place of the feed-forward's four when it is gated."""
    on = set(BLOCK_PARAMS)
    if cfg.gated:
        on -= {"W_1", "b_1", "W_2", "b_2"}
        on.update(GATED_PARAMS)
    if cfg.norm_affine:
        on.update(n for n in NORM_PARAMS if cfg.norm == "layer" or n.endswith("_g"))
    if cfg.attn_bias:
        on.update(n for n in ATTN_BIAS_PARAMS if n != "b_O" or cfg.out_bias)
    return tuple(name for name in ALL_BLOCK_PARAMS if name in on)


def block_param_shapes(cfg: ModelConfig) -> dict[str, tuple[int, ...]]:
    d, h, dh, ff, kv = cfg.d_model, cfg.n_heads, cfg.d_head, cfg.d_ff, cfg.n_kv_heads
    every = {
        "ln1_g": (d,),
        "ln1_b": (d,),
        "W_Q": (h, d, dh),
        "W_K": (kv, d, dh),  # one per key/value head (as many as query heads but in grouped attention)
        "W_V": (kv, d, dh),
        "b_Q": (h, dh),
        "b_K": (kv, dh),
        "b_V": (kv, dh),
        "W_O": (h * dh, d),
        "b_O": (d,),
        "ln2_g": (d,),
        "ln2_b": (d,),
        "W_1": (d, ff),
        "b_1": (ff,),
        "W_2": (ff, d),
        "b_2": (d,),
        "W_gate": (d, ff),
        "W_up": (d, ff),
        "W_down": (ff, d),
    }
    return {name: every[name] for name in block_params_of(cfg)}


def param_shapes(cfg: ModelConfig) -> dict[str, tuple[int, ...]]:
    """Every parameter the config has, full name and shape: "E" (and "P"), then "blocks.<b>.<name>",
    then "lnf_g", "lnf_b" (RMSNorm: lnf_g alone), then "W_U" when the unembedding is untied. The
    chapter's model: E and the eight of each block, nothing else."""
    shapes: dict[str, tuple[int, ...]] = {"E": (cfg.n_vocab, cfg.d_model)}
    if cfg.learned_positions:
        shapes[POSITION_PARAM] = (cfg.n_ctx, cfg.d_model)
    block = block_param_shapes(cfg)
    for b in range(cfg.n_blocks):
        for name, shape in block.items():
            shapes[in_block(b, name)] = shape
    if cfg.norm_affine:
        for name in FINAL_NORM_PARAMS if cfg.norm == "layer" else FINAL_NORM_PARAMS[:1]:
            shapes[name] = (cfg.d_model,)
    if not cfg.tied:
        shapes[UNEMBED_PARAM] = (cfg.d_model, cfg.n_vocab)
    return shapes


Index = tuple[int, ...]
Cells = dict[str, dict[Index, float]]  # parameter name -> {cell index: value}

# An overlay chain longer than this is merged into one node, so reading an edited array never walks far
# and the nodes an undo history no longer holds can be freed.
FLATTEN_DEPTH = 64


class Params(Mapping[str, np.ndarray]):
    """A read-only mapping from full parameter name to a read-only float64 array.

    Arrays are shared, never copied without need: Params(cfg, arrays) copies what it is given (it comes
    from outside), but an edit keeps every array it does not change, the very same objects. An edit of
    one cell is an overlay: the new Params records (name, index, value) on top of the Params it was made
    from and builds the edited array only when that array is read, keeping it only while someone holds
    it (a weak reference). So an undo history of single-cell edits costs a few bytes per edit, not a copy
    of the edited array, and undo gives back the same values bit for bit.
    """

    cfg: ModelConfig
    _arrays: Mapping[str, np.ndarray]  # the base (a dict, or LazyArrays), shared by every overlay on it
    _parent: Params | None  # the overlay this one adds to (None: the base, or a merged overlay)
    _cells: Cells  # the cells this overlay sets, on top of its parent's
    _edited: frozenset[str]  # names that any overlay in the chain edits (read from _arrays otherwise)
    _depth: int
    _cache: dict[str, weakref.ref[np.ndarray]]  # edited arrays as last built, while someone holds them

    def __init__(self, cfg: ModelConfig, arrays: Mapping[str, np.ndarray]):
        shapes = _checked_names(cfg, arrays)
        self._setup(cfg, {name: _frozen_copy(arrays[name], shape, name) for name, shape in shapes.items()})

    @classmethod
    def _from_frozen(cls, cfg: ModelConfig, arrays: Mapping[str, np.ndarray]) -> Params:
        """A Params over arrays that are already read-only float64 of the right shapes (not copied)."""
        self = cls.__new__(cls)
        self._setup(cfg, arrays)
        return self

    def _setup(
        self, cfg: ModelConfig, arrays: Mapping[str, np.ndarray], parent: Params | None = None, cells=None
    ) -> None:
        self.cfg = cfg
        self._arrays = arrays
        self._parent = parent
        self._cells = cells or {}
        self._edited = frozenset(self._cells) | (parent._edited if parent is not None else frozenset())
        self._depth = parent._depth + 1 if parent is not None else 0
        self._cache = {}

    def _overlay_on(self, cells: Cells, parent: Params | None) -> Params:
        new = Params.__new__(Params)
        new._setup(self.cfg, self._arrays, parent, cells)
        return new

    # ---- the mapping -------------------------------------------------------------------------------
    def __getitem__(self, name: str) -> np.ndarray:
        if name not in self._edited:
            return self._arrays[name]
        ref = self._cache.get(name)
        arr = ref() if ref is not None else None
        if arr is None:
            arr = self._build(name)
            self._cache[name] = weakref.ref(arr)
        return arr

    def _build(self, name: str) -> np.ndarray:
        """The edited array: the nearest overlay's that still exists (or the base) with the newer cells."""
        pending: list[dict[Index, float]] = []
        start: np.ndarray | None = None
        node: Params | None = self
        while node is not None:
            if node is not self:
                ref = node._cache.get(name)
                start = ref() if ref is not None else None
                if start is not None:
                    break
            if name in node._cells:
                pending.append(node._cells[name])
            node = node._parent
        arr = (start if start is not None else self._arrays[name]).copy()
        for cells in reversed(pending):  # oldest first: a newer edit of the same cell wins
            for index, value in cells.items():
                arr[index] = value
        arr.setflags(write=False)
        return arr

    def __contains__(self, name: object) -> bool:
        return name in self._arrays

    def __iter__(self) -> Iterator[str]:
        return iter(self._arrays)

    def __len__(self) -> int:
        return len(self._arrays)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Params):
            return NotImplemented
        if self.cfg != other.cfg:
            return False
        if self._arrays is other._arrays:
            return not self.changed_cells(other)
        return all((a := self[n]) is (b := other[n]) or np.array_equal(a, b) for n in self._arrays)

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self):
        # pickle and deepcopy as a plain Params of the arrays as they read (the weak cache is not data)
        return (_rebuild, (self.cfg, {name: self[name] for name in self._arrays}))

    def block(self, b: int) -> dict[str, np.ndarray]:
        """The parameters of block b under their short names (W_Q, …; b_Q, ln1_g, … when the config has
        them)."""
        return {name: self[in_block(b, name)] for name in block_params_of(self.cfg)}

    # ---- making new ones ---------------------------------------------------------------------------
    def with_edit(self, name: str, index: tuple[int, ...], value: float) -> Params:
        """A new Params with one cell changed (an overlay: no array is copied until it is read).
        Raises ValueError for a bad name, index or value."""
        if name not in self._arrays:
            raise ValueError(f"no parameter named {name!r}")
        shape = self._arrays[name].shape
        index = tuple(int(i) for i in index)
        if len(index) != len(shape) or any(not 0 <= i < n for i, n in zip(index, shape)):
            shown = label(name, self.cfg.n_blocks)
            raise ValueError(f"{shown}{list(index)} is outside its shape {shape}")
        value = float(value)
        if not np.isfinite(value):
            raise ValueError(f"{value} is not a finite number")
        if self._depth + 1 >= FLATTEN_DEPTH:
            merged = self.overlay()
            merged.setdefault(name, {})[index] = value
            return self._overlay_on(merged, None)
        return self._overlay_on({name: {index: value}}, self)

    def with_arrays(self, updates: Mapping[str, np.ndarray]) -> Params:
        """A new Params with some whole arrays replaced; the others are shared, not copied. An update is
        copied unless it already is a read-only float64 array that owns its memory."""
        shapes = param_shapes(self.cfg)
        unknown = sorted(set(updates) - set(shapes))
        if unknown:
            raise ValueError(f"parameters do not match the config: unknown {unknown}")
        arrays = {
            name: _taken(updates[name], shape, name) if name in updates else self[name]
            for name, shape in shapes.items()
        }
        return Params._from_frozen(self.cfg, arrays)

    # ---- reading ----------------------------------------------------------------------------------
    def total(self) -> int:
        return sum(math.prod(shape) for shape in param_shapes(self.cfg).values())  # reads no array

    def overlay(self) -> Cells:
        """Every cell this Params sets on top of its base arrays (a fresh dict: name -> {index: value})."""
        chain: list[Cells] = []
        node: Params | None = self
        while node is not None:
            chain.append(node._cells)
            node = node._parent
        out: Cells = {}
        for cells in reversed(chain):
            for name, values in cells.items():
                out.setdefault(name, {}).update(values)
        return out

    def shares_base(self, other: Params) -> bool:
        """True when both read the same base arrays (one is other with some cells edited, or both are)."""
        return self._arrays is other._arrays

    def differences(self, other: Params) -> dict[str, list[Index] | None]:
        """What may read differently from other, found without reading an edited array: for each array
        over the same base array in both, the cells either overlay sets whose values differ (bit for bit:
        0.0 and -0.0 differ); None for an array that is not the same object in both (not compared: the
        whole of it may differ). Used to recompute only what an edit changes (trace.run's reuse)."""
        if self is other:
            return {}
        mine, theirs = self.overlay(), other.overlay()
        out: dict[str, list[Index] | None] = {}
        for name, base in self._arrays.items():
            if other._arrays.get(name) is not base:
                out[name] = None
                continue
            a, b = mine.get(name, {}), theirs.get(name, {})
            cells = [i for i in a.keys() | b.keys() if not _same_bits(a.get(i, base[i]), b.get(i, base[i]))]
            if cells:
                out[name] = cells
        return out

    def changed_cells(self, other: Params) -> dict[str, list[tuple[int, ...]]]:
        """Cells whose value differs from other's (used to mark edited weights), in C order per array.

        Two Params over the same base differ only where either sets a cell, so that case reads only
        those cells; otherwise arrays that are the same object are skipped and the rest compared."""
        out: dict[str, list[tuple[int, ...]]] = {}
        if self._arrays is other._arrays:
            mine, theirs = self.overlay(), other.overlay()
            for name, base in self._arrays.items():
                a, b = mine.get(name, {}), theirs.get(name, {})
                cells = sorted(i for i in a.keys() | b.keys() if a.get(i, base[i]) != b.get(i, base[i]))
                if cells:
                    out[name] = cells
            return out
        for name in self._arrays:
            ours, theirs_array = self[name], other[name]
            if ours is theirs_array:
                continue
            idx = np.argwhere(ours != theirs_array)
            if idx.size:
                out[name] = [tuple(int(i) for i in row) for row in idx]
        return out


def _same_bits(a: float, b: float) -> bool:
    """a and b are the same float64 (finite values only: a Params holds no NaN)."""
    return bool(a == b) and math.copysign(1.0, a) == math.copysign(1.0, b)


def _rebuild(cfg: ModelConfig, arrays: dict[str, np.ndarray]) -> Params:
    return Params(cfg, arrays)


def _checked_names(cfg: ModelConfig, arrays: Mapping[str, np.ndarray]) -> dict[str, tuple[int, ...]]:
    shapes = param_shapes(cfg)
    if set(arrays) != set(shapes):
        missing = sorted(set(shapes) - set(arrays))
        extra = sorted(set(arrays) - set(shapes))
        raise ValueError(f"parameters do not match the config: missing {missing}, unknown {extra}")
    return shapes


def _frozen_copy(value: object, shape: tuple[int, ...], name: str) -> np.ndarray:
    arr = np.array(value, dtype=np.float64)  # always a private copy
    if arr.shape != shape:
        raise ValueError(f"{name} has shape {arr.shape}, expected {shape}")
    arr.setflags(write=False)
    return arr


def _taken(value: object, shape: tuple[int, ...], name: str) -> np.ndarray:
    """value itself when nobody can write to it through numpy's usual ways, else a frozen copy."""
    if (
        isinstance(value, np.ndarray)
        and value.dtype == np.float64
        and value.shape == shape
        and not value.flags.writeable
        and value.base is None
    ):
        return value
    return _frozen_copy(value, shape, name)


def adopt(cfg: ModelConfig, arrays: dict[str, np.ndarray]) -> Params:
    """A Params that takes over arrays its caller has just made and keeps no other reference to (a file
    being loaded): checked and made read-only, not copied. Anything else goes through Params(cfg, …)."""
    shapes = _checked_names(cfg, arrays)
    taken: dict[str, np.ndarray] = {}
    for name, shape in shapes.items():
        arr = arrays[name]
        if not isinstance(arr, np.ndarray) or arr.dtype != np.float64 or arr.shape != shape:
            arr = _frozen_copy(arr, shape, name)
        arr.setflags(write=False)
        taken[name] = arr
    return Params._from_frozen(cfg, taken)


Loader = Callable[[str], Mapping[str, np.ndarray]]


class LazyArrays(Mapping[str, np.ndarray]):
    """A Params' base arrays, each made the first time it is read (from a checkpoint file, say) and kept
    from then on. load(name) returns that array and any others made on the way (a GPT-2 block's W_Q,
    W_K and W_V are cut from one tensor of the file), each a read-only float64 array of its shape; a
    loader's error (the file changed since it was checked) reaches whoever read the array. One lock:
    an array read from two threads at once is made once, so every reader holds the same object."""

    def __init__(self, shapes: dict[str, tuple[int, ...]], load: Loader):
        self._shapes = shapes
        self._load = load
        self._made: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    def __getitem__(self, name: str) -> np.ndarray:
        arr = self._made.get(name)
        if arr is not None:
            return arr
        if name not in self._shapes:
            raise KeyError(name)
        with self._lock:
            if name not in self._made:
                for made, value in self._load(name).items():
                    if made in self._made:
                        continue  # kept as first made: every reader holds the same object
                    if (
                        value.dtype != np.float64
                        or value.shape != self._shapes[made]
                        or value.flags.writeable
                    ):
                        raise ValueError(
                            f"{made}: made as {value.dtype} {value.shape}, not read-only float64"
                        )
                    self._made[made] = value
            return self._made[name]

    def __contains__(self, name: object) -> bool:
        return name in self._shapes

    def __iter__(self) -> Iterator[str]:
        return iter(self._shapes)

    def __len__(self) -> int:
        return len(self._shapes)


def lazy(cfg: ModelConfig, load: Loader) -> Params:
    """A Params whose arrays are made by load when first read (LazyArrays): one whose file has been
    checked whole, so a read can only fail if the file changes under it."""
    return Params._from_frozen(cfg, LazyArrays(param_shapes(cfg), load))
