"""The `tinytui` command's entry point: one BLAS thread, freed arrays handed back to the system, and
Python's cycle collector paused while the program loads.

BLAS threads: numpy's OpenBLAS starts one thread per core (two here) for every matrix product, and at
tinytui's sizes (GPT-2 small, 16 tokens: products of 16 rows) the threads spend their time waking and
waiting for each other, and fight the app's own thread and every other program on the machine for the
cores. Measured on this 2-core machine, shared with other work (benchmarks/bench_gpt2_session.py
--only threads; results/gpt2_session.txt), one thread against two: tinytui's GPT-2 forward 338 ms
against 1,334 ms, the whole backward 2.1 s against 6.2 s (load ~3); beside one busy process 639 ms
against 2,236 ms; at load ~12, 1.2 s against 3.6 s. (Issue 29 saw an edit take 2.8 s with two threads,
0.82 s with one.) The forward never came out ahead with two; the whole backward (the outer products of
124 M weight gradients) sometimes did (5.5 s against 9.4 s in one run beside a busy process) and as
often did not, and the keys wait for forwards and parts of the backward. So before numpy loads, the
command sets each BLAS library's thread count to 1: steady, and the app's thread and numpy's are never
more than the cores. A
variable the user has set is kept (`OPENBLAS_NUM_THREADS=2 tinytui` gives OpenBLAS two threads).

Freed arrays: glibc's malloc maps a block over 128 KiB of its own and unmaps it when freed, but after
the first such free it raises that threshold (up to 32 MiB), and the blocks under it then come from its
heap, where a freed one stays counted against the process. At GPT-2 small every edit, undo and backward
frees weight-sized arrays (a block's gradient is 5 to 19 MB): over rounds of an edit, u, d, d, b, b,
each ended by a full collection, the RSS rose 9 MB a round (1,256 MB after the second, 1,329 after the
ninth). Held at 4 MiB, an array that large is always a mapping of its own, handed back when freed,
while the many small ones a forward makes still come from the heap: 1 MB a round (1,249 → 1,255 MB
from the second to the sixth). Elsewhere than glibc, nothing.

The collector: loading Textual, Rich, numpy and the app makes a few hundred thousand objects that live as
long as the program, and the collector walked them again and again as they came (a sixth of the time to
the first frame). The app's process then freezes them and turns the collector back on
(garbage_collector.settle, just before the app runs); every other command turns it back on as soon as
its arguments are read.
"""

from __future__ import annotations

import os
import sys

from tinytui.cli import garbage_collector, refusal

BLAS_THREADS = "1"
# OpenBLAS (numpy's wheels), the OpenMP runtime some builds use, MKL, BLIS and Apple's Accelerate
THREAD_VARIABLES = (
    "OPENBLAS_NUM_THREADS",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
)


def limit_blas_threads() -> None:
    """One thread for BLAS unless the user chose: must run before numpy is first imported (the libraries
    read the variables once, when they load)."""
    for name in THREAD_VARIABLES:
        os.environ.setdefault(name, BLAS_THREADS)


M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter
MMAP_THRESHOLD = 4 * 2**20


def hand_back_freed_arrays() -> None:
    """Hold glibc's mmap threshold fixed at MMAP_THRESHOLD (see the module's docstring)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes  # (numpy imports it too)

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # a C library other than glibc
        return
    mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)


# what the dynamic loader says when a library cannot be mapped for want of memory (ulimit -v)
NO_MEMORY_TO_LOAD = ("failed to map segment", "Cannot allocate memory")


def main(argv: list[str] | None = None) -> int:
    """Run the command; running out of memory anywhere, even while loading numpy, is one line."""
    limit_blas_threads()
    hand_back_freed_arrays()
    garbage_collector.pause()
    try:
        from tinytui.cli.main import main as run

        return run(argv)
    except MemoryError:
        pass
    except ImportError as exc:
        if not any(words in str(exc) for words in NO_MEMORY_TO_LOAD):
            raise
    refusal.say(refusal.OUT_OF_MEMORY)
    return 1
