"""How long one edit costs: a full forward run plus a diff against the previous trace. Run by hand:

python benchmarks/bench_recompute.py
"""

from __future__ import annotations

import time

from tinytui.model.diff import diff
from tinytui.model.io.model_file import load_default
from tinytui.model.trace import run


def main(repeats: int = 2000) -> None:
    m = load_default()
    base = run(m.params, m.prompt, m.target)
    t0 = time.perf_counter()
    for i in range(repeats):
        p = m.params.with_edit("blocks.0.W_O", (0, 0), 1.0 + i * 1e-6)
        after = run(p, m.prompt, m.target)
    t1 = time.perf_counter()
    for _ in range(repeats):
        diff(base, after)
    t2 = time.perf_counter()
    print(f"edit + full recompute: {(t1 - t0) / repeats * 1e6:8.1f} µs")
    print(f"diff of two traces:    {(t2 - t1) / repeats * 1e6:8.1f} µs")
    print(f"tensors per trace:     {len(after)}")


if __name__ == "__main__":
    main()
