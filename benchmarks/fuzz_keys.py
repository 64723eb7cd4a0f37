"""Thousands of seeded random key sequences against the app (tests/fuzz/keys.py says what each one does
and checks). Run by hand from the repository's top folder:

python benchmarks/fuzz_keys.py                    # 1000 sequences of 40 keys, seeds 0…999
python benchmarks/fuzz_keys.py 5000 --length 60 --first 1000 --jobs 4
python benchmarks/fuzz_keys.py 600 --modes       # each starting in a mode on a model (keys.MODES, MODELS)

Every file a dialog writes goes to a temporary folder (the current folder and XDG_CONFIG_HOME are moved
there). Prints each failure (its seed reproduces it: --first SEED 1) and then the counts: sequences,
keys, crashes, mismatches.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.fuzz.keys


def _run(seeds: range, length: int, modes: bool = False) -> tuple[int, int, int, int, list[str]]:
    from tests.fuzz.keys import Counts, run_mode_sequence, run_sequence

    folder = tempfile.mkdtemp(prefix="tinytui-fuzz-")
    os.chdir(folder)
    os.environ["XDG_CONFIG_HOME"] = str(Path(folder) / "config")

    async def all_of_them() -> Counts:
        total = Counts()
        for seed in seeds:
            counts = await (run_mode_sequence if modes else run_sequence)(seed, length)
            for failure in counts.failures:
                print(failure, flush=True)
            total.add(counts)
        return total

    t = asyncio.run(all_of_them())
    return t.sequences, t.keys, t.crashes, t.mismatches, t.failures


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("sequences", type=int, nargs="?", default=1000)
    p.add_argument("--length", type=int, default=40, help="keys per sequence (default 40)")
    p.add_argument("--first", type=int, default=0, help="the first seed (default 0)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes (default: every core)")
    p.add_argument("--modes", action="store_true", help="start each sequence in a mode on a model")
    args = p.parse_args()
    start, stop = args.first, args.first + args.sequences
    jobs = max(1, min(args.jobs, args.sequences))
    chunks = [range(start + i, stop, jobs) for i in range(jobs)]
    t0 = time.perf_counter()
    with ProcessPoolExecutor(jobs) as pool:
        results = list(pool.map(_run, chunks, [args.length] * jobs, [args.modes] * jobs))
    sequences, keys, crashes, mismatches = (sum(r[i] for r in results) for i in range(4))
    print(
        f"sequences {sequences}  keys {keys}  crashes {crashes}  mismatches {mismatches}  "
        f"({time.perf_counter() - t0:.0f} s, seeds {start}–{stop - 1}, {args.length} keys each)"
    )
    sys.exit(1 if crashes or mismatches else 0)


if __name__ == "__main__":
    main()
