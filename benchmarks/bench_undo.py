"""What an undo chain costs the session (no screen) at d_model 64: bench_view's model, 15 edits of a weight
then 15 undos, as bench_view's rounds. Run by hand (never as a test):

python benchmarks/bench_undo.py                       # writes benchmarks/results/undo.txt
PYTHONPATH=/path/to/a/checkout python benchmarks/bench_undo.py --out undo-before.txt

For each undo: its time, and whether its trace is one the session had shown before (taken back) or a new
one (computed). Then the bytes of tensor values in the traces still alive (those shown, and the session's
current and previous ones).
"""

from __future__ import annotations

import gc
import os
import platform
import statistics
import sys
import tempfile
import time
import weakref
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_view import d64_model

from tinytui.model.io.checkpoint import load_model
from tinytui.session.session import Session

RESULTS = Path(__file__).parent / "results"
EDITS = 15
ROUNDS = 7


def one_round(path: Path) -> tuple[list[float], int, int]:
    """(each undo's seconds, how many undos made a new trace, bytes of the traces alive at the end)."""
    session = Session(load_model(path))
    shown = [weakref.ref(session.trace)]
    for i in range(EDITS):
        session.edit("blocks.0.W_O", (i % 64, i % 3), 0.05 * (i + 1))
        shown.append(weakref.ref(session.trace))
    times, new = [], 0
    for _ in range(EDITS):
        t0 = time.perf_counter()
        session.undo()
        times.append(time.perf_counter() - t0)
        new += all(session.trace is not r() for r in shown)
    gc.collect()
    alive = {id(t): t for t in (session.trace, session.previous, *(r() for r in shown)) if t is not None}
    arrays = {id(x.values): x.values.nbytes for t in alive.values() for x in t.tensors.values()}
    return times, new, sum(arrays.values())


def main() -> None:
    out = RESULTS / (sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else "undo.txt")
    with tempfile.TemporaryDirectory() as folder:
        path = d64_model(Path(folder))
        rounds = [one_round(path) for _ in range(ROUNDS)]
    times = [t for r in rounds for t in r[0]]
    first = [r[0][0] for r in rounds]
    rest = [t for r in rounds for t in r[0][1:]]
    lines = [
        f"machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"load {os.getloadavg()[0]:.2f}; tinytui from {os.environ.get('PYTHONPATH') or 'this checkout'}",
        f"d_model 64 (bench_view's model), {EDITS} edits of blocks.0.W_O then {EDITS} undos, {ROUNDS} rounds",
        f"  undo, median of all    {statistics.median(times) * 1e3:7.2f} ms",
        f"  the first undo         {statistics.median(first) * 1e3:7.2f} ms",
        f"  each later undo        {statistics.median(rest) * 1e3:7.2f} ms",
        f"  undos that computed a new trace: {rounds[0][1]} of {EDITS}",
        f"  tensor values of the traces still alive after the undos: {rounds[0][2] / 2**20:.2f} MiB",
    ]
    text = "\n".join(lines)
    print(text)
    out.write_text(text + "\n")


if __name__ == "__main__":
    main()
