"""How long tinytui takes to start. Run by hand (never as a test):

python benchmarks/bench_start.py            # both measures; writes benchmarks/results/start.txt
python benchmarks/bench_start.py --quick    # fewer runs
python benchmarks/bench_start.py --source /tmp/before --source /tmp/after --out start-44.txt
    # checkouts of the project measured in one run (each source's tinytui/ holding links to ../model and
    # ../themes, as the wheel installs them): its processes import tinytui from there (PYTHONPATH)

Two measures, each interleaved with its baseline (A B A B …, with several checkouts A B A' B …) so the
machine's drift falls on both alike, and quoted as the median of the pairs' ratios. The checkouts'
modules are compiled first, as an installed wheel's are.

- The debugger's first screen: `python -m tinytui` on the slave side of a pty at 120×40, as in a
  terminal (benchmarks/bench_view.py's Terminal), against the bare Textual app of benchmarks/bare_apps.py.
  Timed from the process's start to the last byte of its first screen (nothing more written for QUIET
  seconds), with the process's CPU time at that moment and its peak resident memory. Target (issue 44):
  ≤ 1.5× the bare app's.
- `tinytui print --step 1` (output to /dev/null) against `python -c "import numpy, rich"`: each a whole
  process, wall time and CPU time (user + system, from wait4). Target: ≤ 1.5× the import.
"""

from __future__ import annotations

import compileall
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
# the pty, its size and its environment: the same as bench_view's
from bench_view import Terminal

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).parent / "results"
QUIET = 0.5  # seconds without output: the first screen is done


class Started(Terminal):
    """An app started in a pty, timed to its first screen (the marker drawn, then QUIET seconds without
    output) instead of settled at once."""

    def __init__(self, argv: list[str], marker: bytes) -> None:
        self.t0 = time.perf_counter()
        self.marker = marker
        super().__init__(argv)

    def settle(self, timeout: float = 30.0, quiet: float = QUIET) -> float:
        if hasattr(self, "first"):
            return super().settle(timeout, quiet)
        # the first call, from Terminal.__init__: the first screen. Textual may go quiet for longer than
        # QUIET between switching the terminal over and drawing (a loaded machine): read on until the
        # marker is on the screen and the output is quiet after it
        seen, last = b"", 0.0
        while self.marker not in seen and time.perf_counter() - self.t0 < timeout:
            last = super().settle(timeout, quiet) or last
            seen += self.seen
        self.seen = seen
        self.first = last - self.t0
        self.first_cpu = self.cpu()
        self.peak = peak_memory(self.proc.pid)
        return last


def peak_memory(pid: int) -> float:
    """The process's peak resident memory (VmHWM), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def first_screen(argv: list[str], marker: bytes = b"\x1b[") -> tuple[float, float, float]:
    """(seconds to the first screen's last byte, CPU seconds by then, peak MB) of one start."""
    term = Started(argv, marker)
    try:
        if marker not in term.seen:
            raise RuntimeError(f"{argv}: the first screen lacks {marker!r}")
        return term.first, term.first_cpu, term.peak
    finally:
        term.close()


def whole_process(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run, its output thrown away."""
    env = dict(os.environ, NO_COLOR="1")
    with open(os.devnull, "w") as null:
        t0 = time.perf_counter()
        # not run in the checkout: `python -m` would import the tinytui beside it, whatever PYTHONPATH says
        proc = subprocess.Popen(argv, stdout=null, stderr=subprocess.PIPE, env=env, cwd=tempfile.gettempdir())
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
    err = proc.stderr.read() if proc.stderr else b""
    proc.stderr.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise RuntimeError(f"{argv} exited {proc.returncode}: {err.decode(errors='replace')}")
    return wall, usage.ru_utime + usage.ru_stime


def ratios(a: list[tuple[float, ...]], b: list[tuple[float, ...]], i: int) -> tuple[float, float, float]:
    """(median of a's i-th figure, median of b's, median of the pairs' ratios)."""
    return (
        statistics.median(x[i] for x in a),
        statistics.median(x[i] for x in b),
        statistics.median(x[i] / y[i] for x, y in zip(a, b)),
    )


def compiled(checkout: Path) -> None:
    """Compile the checkout's modules, as an installed wheel's are: with PYTHONDONTWRITEBYTECODE set, or a
    file changed since, every start would compile it again and time that too."""
    for folder in ("tinytui", "model", "themes"):
        compileall.compile_dir(str(checkout / folder), quiet=1)


def with_source(source: str | None, measure, *args):
    """measure(*args) with tinytui imported from source (a checkout; None: as installed)."""
    saved = os.environ.get("PYTHONPATH")
    if source is None:
        os.environ.pop("PYTHONPATH", None)
    else:
        os.environ["PYTHONPATH"] = source
    try:
        return measure(*args)
    finally:
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved


def interleaved(sources: list[str | None], runs: int, measure, argv, baseline, *extra) -> tuple[dict, dict]:
    """Each source's runs of argv, each followed by one of baseline: ({source: runs}, {source: the
    baseline's runs beside them}); one of each first, not counted."""
    mine: dict = {s: [] for s in sources}
    beside: dict = {s: [] for s in sources}
    for k in range(runs + 1):
        for source in sources:
            a = with_source(source, measure, argv, *extra)
            b = with_source(None, measure, baseline, *extra[1:])
            if k:
                mine[source].append(a)
                beside[source].append(b)
    return mine, beside


def main() -> None:
    quick = "--quick" in sys.argv
    out = RESULTS / (sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else "start.txt")
    runs = 5 if quick else 11
    # --source PATH (repeated): checkouts measured in the same run, each beside its own baseline runs
    sources: list[str | None] = [sys.argv[i + 1] for i, a in enumerate(sys.argv) if a == "--source"] or [None]
    for source in sources:
        compiled(Path(source) if source else ROOT)
    py = sys.executable
    lines = [
        f"machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"load {os.getloadavg()[0]:.2f}",
        f"each tinytui run followed by one of its baseline, the checkouts in turn, {runs} times after one "
        "of each not counted; medians, and the median of the pairs' ratios",
    ]
    bare_argv = [py, str(Path(__file__).parent / "bare_apps.py")]
    tui, bare = interleaved(sources, runs, first_screen, [py, "-m", "tinytui"], bare_argv, b"chuck")
    lines.append(
        f"first screen in a pty at 120×40 (last byte, then {QUIET} s quiet) against the bare Textual app "
        "of bare_apps.py (target ≤ 1.5×)"
    )
    for source in sources:
        when, when_bare, when_ratio = ratios(tui[source], bare[source], 0)
        cpu, cpu_bare, cpu_ratio = ratios(tui[source], bare[source], 1)
        mem, mem_bare, mem_ratio = ratios(tui[source], bare[source], 2)
        lines += [
            f"  tinytui from {source or 'this checkout'}",
            f"    to the last byte  {when * 1e3:7.0f} ms  bare {when_bare * 1e3:5.0f} ms   {when_ratio:.2f}×",
            f"    CPU by then       {cpu * 1e3:7.0f} ms  bare {cpu_bare * 1e3:5.0f} ms   {cpu_ratio:.2f}×",
            f"    peak memory       {mem:7.1f} MB  bare {mem_bare:5.1f} MB   {mem_ratio:.2f}×",
        ]
    print_argv = [py, "-m", "tinytui", "print", "--step", "1"]
    printed, imported = interleaved(
        sources, runs, whole_process, print_argv, [py, "-c", "import numpy, rich"]
    )
    lines.append(
        "`tinytui print --step 1 > /dev/null` against `python -c 'import numpy, rich'`, whole processes "
        "(target ≤ 1.5×)"
    )
    for source in sources:
        wall, wall_import, wall_ratio = ratios(printed[source], imported[source], 0)
        cpu, cpu_import, cpu_ratio = ratios(printed[source], imported[source], 1)
        lines += [
            f"  tinytui from {source or 'this checkout'}",
            f"    wall        {wall * 1e3:7.0f} ms  import {wall_import * 1e3:5.0f} ms   {wall_ratio:.2f}×",
            f"    CPU         {cpu * 1e3:7.0f} ms  import {cpu_import * 1e3:5.0f} ms   {cpu_ratio:.2f}×",
        ]
    text = "\n".join(lines)
    print(text)
    out.parent.mkdir(exist_ok=True)
    out.write_text(text + "\n")


if __name__ == "__main__":
    main()
