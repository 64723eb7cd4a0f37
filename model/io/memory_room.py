"""Whether a model's weights, as the float64 arrays tinytui computes with, fit in the memory this process
may have: asked before a weights file is read, so a file whose sizes are all within bounds but together
need more than the machine holds (a sparse file of 70 GB of zeros costs no disk) is refused in one line
instead of being read until the machine runs out of memory.

The room is the smallest of: the machine's physical memory, the process's address-space and data
limits (ulimit -v, prlimit --as), and the memory limit of its control group (a container's).
"""

from __future__ import annotations

import contextlib
import math
import os

from tinytui.model.config import ModelConfig
from tinytui.model.params import param_shapes

CGROUP_LIMIT = "/sys/fs/cgroup/memory.max"  # cgroup v2: a number of bytes, or "max"


def room() -> int | None:
    """The bytes this process may hold at most; None when nothing says."""
    sizes = []
    with contextlib.suppress(ValueError, OSError, AttributeError):  # no such name on this platform
        sizes.append(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    sizes += _rlimits()
    try:
        with open(CGROUP_LIMIT, "rb") as f:
            text = f.read(64).strip()
        if text.isdigit():
            sizes.append(int(text))
    except OSError:
        pass
    return min(sizes) if sizes else None


def _rlimits() -> list[int]:
    """The process's address-space and data limits, where it has any."""
    try:
        import resource
    except ImportError:  # Windows
        return []
    found = []
    for kind in ("RLIMIT_AS", "RLIMIT_DATA"):
        try:
            soft = resource.getrlimit(getattr(resource, kind))[0]
        except (AttributeError, ValueError, OSError):
            continue
        if soft != resource.RLIM_INFINITY and soft > 0:
            found.append(soft)
    return found


def weights_bytes(cfg: ModelConfig) -> int:
    """The bytes of every parameter of cfg as float64."""
    return 8 * sum(math.prod(shape) for shape in param_shapes(cfg).values())


def too_large(cfg: ModelConfig) -> str:
    """Why cfg's weights cannot be held ("" when they can, or when the room is unknown)."""
    need, have = weights_bytes(cfg), room()
    if have is None or need <= have:
        return ""
    return (
        f"its weights take {_size(need)} as float64, more than the {_size(have)} this machine, "
        "or the limit it runs under, gives tinytui"
    )


def _size(n: int) -> str:
    if n >= 2**30:
        return f"{n / 2**30:.1f} GB"
    return f"{n / 2**20:.1f} MB" if n >= 2**20 else f"{n / 2**10:.0f} KB"
