"""Immutable named parameters. An edit makes a new Params; nothing is changed in place."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np

from tinytui.model.config import ModelConfig
from tinytui.model.names import BLOCK_PARAMS, in_block, label


def block_param_shapes(cfg: ModelConfig) -> dict[str, tuple[int, ...]]:
    d, h, dh, ff = cfg.d_model, cfg.n_heads, cfg.d_head, cfg.d_ff
    return {
        "W_Q": (h, d, dh),
        "W_K": (h, d, dh),
        "W_V": (h, d, dh),
        "W_O": (h * dh, d),
        "W_1": (d, ff),
        "b_1": (ff,),
        "W_2": (ff, d),
        "b_2": (d,),
    }


def param_shapes(cfg: ModelConfig) -> dict[str, tuple[int, ...]]:
    """Every parameter's full name and shape: "E", then "blocks.<b>.<name>"."""
    shapes: dict[str, tuple[int, ...]] = {"E": (cfg.n_vocab, cfg.d_model)}
    for b in range(cfg.n_blocks):
        for name, shape in block_param_shapes(cfg).items():
            shapes[in_block(b, name)] = shape
    return shapes


class Params(Mapping[str, np.ndarray]):
    """A read-only mapping from full parameter name to a read-only float64 array."""

    def __init__(self, cfg: ModelConfig, arrays: Mapping[str, np.ndarray]):
        shapes = param_shapes(cfg)
        if set(arrays) != set(shapes):
            missing = sorted(set(shapes) - set(arrays))
            extra = sorted(set(arrays) - set(shapes))
            raise ValueError(f"parameters do not match the config: missing {missing}, unknown {extra}")
        frozen: dict[str, np.ndarray] = {}
        for name, shape in shapes.items():
            arr = np.array(arrays[name], dtype=np.float64)  # always a private copy
            if arr.shape != shape:
                raise ValueError(f"{name} has shape {arr.shape}, expected {shape}")
            arr.setflags(write=False)
            frozen[name] = arr
        self.cfg = cfg
        self._arrays = frozen

    def __getitem__(self, name: str) -> np.ndarray:
        return self._arrays[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._arrays)

    def __len__(self) -> int:
        return len(self._arrays)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Params):
            return NotImplemented
        return self.cfg == other.cfg and all(np.array_equal(self[n], other[n]) for n in self._arrays)

    __hash__ = None  # type: ignore[assignment]

    def block(self, b: int) -> dict[str, np.ndarray]:
        """The parameters of block b under their short names (W_Q, …)."""
        return {name: self[in_block(b, name)] for name in BLOCK_PARAMS}

    def with_edit(self, name: str, index: tuple[int, ...], value: float) -> Params:
        """A new Params with one cell changed. Raises ValueError for a bad name, index or value."""
        if name not in self._arrays:
            raise ValueError(f"no parameter named {name!r}")
        arr = self._arrays[name]
        index = tuple(int(i) for i in index)
        if len(index) != arr.ndim or any(not 0 <= i < n for i, n in zip(index, arr.shape)):
            shown = label(name, self.cfg.n_blocks)
            raise ValueError(f"{shown}{list(index)} is outside its shape {arr.shape}")
        value = float(value)
        if not np.isfinite(value):
            raise ValueError(f"{value} is not a finite number")
        new = arr.copy()
        new[index] = value
        return self.with_arrays({name: new})

    def with_arrays(self, updates: Mapping[str, np.ndarray]) -> Params:
        """A new Params with some whole arrays replaced."""
        merged = dict(self._arrays)
        merged.update(updates)
        return Params(self.cfg, merged)

    def total(self) -> int:
        return int(sum(a.size for a in self._arrays.values()))

    def changed_cells(self, other: Params) -> dict[str, list[tuple[int, ...]]]:
        """Cells whose value differs from other's (used to mark edited weights)."""
        out: dict[str, list[tuple[int, ...]]] = {}
        for name, arr in self._arrays.items():
            idx = np.argwhere(arr != other[name])
            if idx.size:
                out[name] = [tuple(int(i) for i in row) for row in idx]
        return out
