"""The fingerprint of every parameter bit that the session log carries after each event (replay compares
it to know the replayed state is the recorded one), in today's form and in the form older logs hold."""

from __future__ import annotations

import hashlib
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from tinytui.model.params import Params

DIGEST = "2:"  # params_digest: a hash of per-array hashes. Older recordings hold legacy_params_digest.


class Digests:
    """params_digest with each array's hash kept while the array lives. Params arrays are read-only and
    shared between states, so an array is hashed once however many events see it. A recorder or a
    replay owns one; the entries go with their arrays."""

    def __init__(self) -> None:
        self._hashes: dict[int, tuple[weakref.ref[np.ndarray], bytes]] = {}  # id(array) -> (ref, sha256)

    def of(self, params: Params) -> str:
        return params_digest(params, self._array_hash)

    def _array_hash(self, arr: np.ndarray) -> bytes:
        if arr.flags.writeable:  # could change under a kept hash: never kept
            return _sha256(arr)
        key, hashes = id(arr), self._hashes
        hit = hashes.get(key)
        if hit is not None and hit[0]() is arr:
            return hit[1]
        digest = _sha256(arr)

        def forget(ref: weakref.ref[np.ndarray], key: int = key) -> None:
            if hashes.get(key, (None,))[0] is ref:
                del hashes[key]

        hashes[key] = (weakref.ref(arr, forget), digest)
        return digest


def _sha256(arr: np.ndarray) -> bytes:
    return hashlib.sha256(np.ascontiguousarray(arr, dtype="<f8").data).digest()


def params_digest(params: Params, array_hash: Callable[[np.ndarray], bytes] = _sha256) -> str:
    """A short fingerprint of every parameter bit: replay checks it after each event.

    sha256 over each parameter's name, shape and the sha256 of its bytes (array_hash: a Digests' kept
    hashes, so an event costs hashing only the arrays it changed)."""
    h = hashlib.sha256()
    for name in sorted(params):
        arr = params[name]
        h.update(f"{name}{arr.shape}".encode())
        h.update(array_hash(arr))
    return DIGEST + h.hexdigest()[:16]


def legacy_params_digest(params: Params) -> str:
    """The fingerprint recordings made before DIGEST hold: one sha256 over every parameter's bytes."""
    h = hashlib.sha256()
    for name in sorted(params):
        arr = np.ascontiguousarray(params[name], dtype="<f8")
        h.update(f"{name}{arr.shape}".encode())
        h.update(arr.tobytes())
    return h.hexdigest()[:16]


def is_legacy_digest(x: Any) -> bool:
    return isinstance(x, str) and len(x) == 16 and all(c in "0123456789abcdef" for c in x)
