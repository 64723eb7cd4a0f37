"""The fingerprint of every parameter bit that the session log carries after each event (replay compares
it to know the replayed state is the recorded one), in today's form and in the form older logs hold."""

from __future__ import annotations

import hashlib
import weakref
from typing import Any

import numpy as np

from tinytui.model.params import Params

DIGEST = "2:"  # params_digest: a hash of per-array hashes. Older recordings hold legacy_params_digest.

# id(array) -> (a weak reference to it, its sha256). Params arrays are read-only and shared between
# states, so an array's hash is computed once, however many events see it; the entry goes with the array.
_ARRAY_HASHES: dict[int, tuple[weakref.ref[np.ndarray], bytes]] = {}


def _array_hash(arr: np.ndarray) -> bytes:
    if arr.flags.writeable:  # could change under a cached hash: never cached
        return hashlib.sha256(np.ascontiguousarray(arr, dtype="<f8")).digest()
    key = id(arr)
    hit = _ARRAY_HASHES.get(key)
    if hit is not None and hit[0]() is arr:
        return hit[1]
    digest = hashlib.sha256(np.ascontiguousarray(arr, dtype="<f8")).digest()

    def forget(ref: weakref.ref[np.ndarray], key: int = key) -> None:
        if _ARRAY_HASHES.get(key, (None,))[0] is ref:
            del _ARRAY_HASHES[key]

    _ARRAY_HASHES[key] = (weakref.ref(arr, forget), digest)
    return digest


def params_digest(params: Params) -> str:
    """A short fingerprint of every parameter bit: replay checks it after each event.

    sha256 over each parameter's name, shape and the sha256 of its bytes; the per-array hashes are
    cached by array (see _array_hash), so an event costs hashing only the arrays it changed."""
    h = hashlib.sha256()
    for name in sorted(params):
        arr = params[name]
        h.update(f"{name}{arr.shape}".encode())
        h.update(_array_hash(arr))
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
