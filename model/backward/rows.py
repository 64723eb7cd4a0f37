"""Rows of E's gradient without the whole table (Gradients.rows).

At GPT-2 small ∂L/∂E and its unembedding share are 50,257 × 768 each (300 MB): writing one costs more
than the arithmetic of the backward's twelve blocks, yet the overlay at step 14 and the inspector read
only the rows a window shows. The unembedding share's row t is ∂L/∂ℓ[t] · z, the total's is that row
plus, for a token of the prompt, the lookup share's row: computed row by row with the same operations
as the whole tables (parts.py), so the same bits.
"""

from __future__ import annotations

from typing import Any

import numpy as np

ROWS_OF = ("grad.E", "grad.E.unembed")


def unembed_share(d_logits: np.ndarray, z: np.ndarray) -> np.ndarray:
    """∂L/∂ℓ ⊗ z, cleaned of −0.0 in place as Gradients._put cleans: E's unembedding share, or the rows
    of it that the rows of ∂L/∂ℓ given make (the whole table and its rows share these operations)."""
    part = np.outer(d_logits, z)
    np.add(part, 0.0, out=part)
    return part


def e_rows(grads: Any, name: str, at: np.ndarray) -> np.ndarray:
    """grads[name][at], for E's total or unembedding share made for those rows only when the whole
    table is not there yet (any other gradient: its rows, from the whole)."""
    done = grads._done
    if name not in ROWS_OF or name in done or not grads.cfg.tied:
        return np.array(grads[name][at])
    unembed = done.get("grad.E.unembed")
    if unembed is not None:
        part = np.array(unembed.values[at])
    else:
        grads._finish("logits")
        part = unembed_share(grads._passed["logits"][at], grads._trace["z"])
    if name == "grad.E.unembed":
        return part
    lookup = grads.tensor("grad.E.lookup").values
    prompt = np.unique(grads._trace["ids"].astype(int))
    mine = np.isin(at, prompt)
    part[mine] = lookup[at[mine]] + part[mine]
    return part
