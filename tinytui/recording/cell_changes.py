"""Which weight cells differ between two Params, bit for bit: what the log writes as a state's edits,
what the transcript lists as weights old → new, and how an undo names the change it took back."""

from __future__ import annotations

import numpy as np

from tinytui.model.params import Params


def changed_cells(params: Params, base: Params) -> list[tuple[str, tuple[int, ...], float]]:
    """(name, index, value) where params differ from base bit for bit (so −0.0 vs 0.0 counts)."""
    out = []
    for name in params:
        a, b = params[name], base[name]
        if a is b:  # shared, unchanged (Params never copies an array it does not change)
            continue
        for idx in np.argwhere(a.view(np.int64) != b.view(np.int64)):
            index = tuple(int(i) for i in idx)
            out.append((name, index, float(a[index])))
    return out
