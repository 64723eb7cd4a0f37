"""How long tinytui takes to start. Run by hand (never as a test):

python benchmarks/bench_start.py            # both measures; writes benchmarks/results/start.txt
python benchmarks/bench_start.py --quick    # fewer runs
python benchmarks/bench_start.py --instructions   # instructions counted instead (valgrind; ~3 min)
python benchmarks/bench_start.py --source /tmp/before --source /tmp/after --out start-44.txt
    # checkouts of the project measured in one run (each source's tinytui/ holding links to ../model,
    # ../themes and ../lesson, as the wheel installs them): its processes import tinytui from there
    # (PYTHONPATH); e.g. git archive COMMIT tinytui model themes lesson | tar -x -C /tmp/before

Two measures, each interleaved with its baseline (A B A B …, with several checkouts A B A' B …) so the
machine's drift falls on both alike, and quoted as the median of the pairs' ratios. The checkouts'
modules are compiled first, as an installed wheel's are.

- The debugger's first screen: `python -m tinytui` on the slave side of a pty at 120×40, as in a
  terminal (benchmarks/bench_view.py's Terminal), against the bare Textual app of benchmarks/bare_apps.py.
  Timed from the process's start to the last byte of its first screen (nothing more written for QUIET
  seconds), with the process's CPU time at that moment and its peak resident memory. Target (issue 44):
  ≤ 1.5× the bare app's. Beside them, in the same run, the floor: the bare app started after importing
  numpy with one BLAS thread (as tinytui does), what tinytui's start costs before any module of its own.
- `tinytui print --step 1` (output to /dev/null) against `python -c "import numpy, rich"`: each a whole
  process, wall time and CPU time (user + system, from wait4). Target: ≤ 1.5× the import. The import is
  run both ways, as it comes (OpenBLAS starts a thread per core: CPU above wall) and with one BLAS thread
  as tinytui's command runs numpy (tinytui.cli.launch): the second is the like-for-like ratio.

--instructions: each of the same processes once under valgrind's callgrind, its instructions counted
(the first screens: from the process's start to its exit by ctrl+q once the screen is drawn). A shared
machine's load moves the times above by tens of percent; the counts move by under 0.1 %, so they judge
a change of a few milliseconds. They weigh Python's work more than loading libraries (numpy's import
is a larger share of the time than of the instructions), so their ratios run higher than the times'.
"""

from __future__ import annotations

import compileall
import os
import platform
import re
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


def whole_process(argv: list[str], extra_env: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run, its output thrown away."""
    env = dict(os.environ, NO_COLOR="1", **(extra_env or {}))
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
    for folder in ("tinytui", "model", "themes", "lesson"):
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


def interleaved(
    sources: list[str | None], runs: int, measure, argv, baselines: list[tuple], *extra
) -> tuple[dict, list[dict]]:
    """Each source's runs of argv, each followed by one of each baseline (its argv and the extra
    arguments measure takes for it): ({source: runs}, [{source: that baseline's runs beside them}, …]);
    one of each first, not counted."""
    mine: dict = {s: [] for s in sources}
    beside: list[dict] = [{s: [] for s in sources} for _ in baselines]
    for k in range(runs + 1):
        for source in sources:
            a = with_source(source, measure, argv, *extra)
            b = [with_source(None, measure, *baseline) for baseline in baselines]
            if k:
                mine[source].append(a)
                for runs_of, run in zip(beside, b):
                    runs_of[source].append(run)
    return mine, beside


def counted(argv: list[str], marker: bytes | None = None, extra_env: dict[str, str] | None = None) -> float:
    """Millions of instructions argv runs under callgrind: a first screen (marker: in a pty, until the
    marker is drawn and the output rests, then ctrl+q) or a whole command (its output thrown away)."""
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "callgrind.log"
        valgrind = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", f"--log-file={log}"]
        if marker is None:
            env = dict(os.environ, NO_COLOR="1", **(extra_env or {}))
            subprocess.run([*valgrind, *argv], stdout=subprocess.DEVNULL, env=env, cwd=folder, check=True)
        else:
            term = Terminal([*valgrind, *argv])  # ~50 times slower: quiet for 5 s is the screen done
            try:
                seen, start = term.seen, time.perf_counter()
                while True:
                    last = term.settle(timeout=60, quiet=5.0)
                    seen += term.seen
                    if marker in seen and not last:
                        break
                    if time.perf_counter() - start > 600:
                        raise RuntimeError(f"{argv}: no first screen under valgrind in 10 minutes")
                os.write(term.fd, b"\x11")  # ctrl+q: the app exits and callgrind writes its count
                while term.proc.poll() is None and time.perf_counter() - start < 900:
                    term.settle(timeout=10, quiet=1.0)
            finally:
                term.close()
        found = re.search(r"Collected : (\d+)", log.read_text())
    if found is None:
        raise RuntimeError(f"{argv}: callgrind counted nothing (is valgrind installed?)")
    return int(found.group(1)) / 1e6


def instruction_counts(sources: list[str | None], bare_app: str, floor_argv: list[str]) -> list[str]:
    """--instructions: each process once under callgrind (see the module's docstring)."""
    py = sys.executable
    os.environ["PYTHONHASHSEED"] = "0"  # the same dicts and sets every run
    lines = ["instructions (callgrind, millions; each process once, PYTHONHASHSEED=0)"]
    bare = counted([py, bare_app], b"\x1b[")
    floor = counted(floor_argv, b"\x1b[")
    numpy_rich = counted([py, "-c", "import numpy, rich"], extra_env={"OPENBLAS_NUM_THREADS": "1"})
    lines.append(
        f"  first screen: bare {bare:,.0f} M   floor {floor:,.0f} M ({floor / bare:.2f}×); "
        f"`import numpy, rich` (one BLAS thread) {numpy_rich:,.0f} M"
    )
    for source in sources:
        tui = with_source(source, counted, [py, "-m", "tinytui"], b"chuck")
        printed = with_source(source, counted, [py, "-m", "tinytui", "print", "--step", "1"])
        where = source or "this checkout"
        lines.append(
            f"  tinytui from {where}: first screen {tui:,.0f} M ({tui / bare:.2f}× bare), "
            f"print --step 1 {printed:,.0f} M ({printed / numpy_rich:.2f}× the import)"
        )
    return lines


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
    ]
    bare_app = str(Path(__file__).parent / "bare_apps.py")
    bare_argv = [py, bare_app]
    # the floor: the same bare app, numpy imported first with one BLAS thread, as tinytui's command does
    floor_argv = [
        py,
        "-c",
        "import os, runpy; os.environ.setdefault('OPENBLAS_NUM_THREADS', '1'); import numpy; "
        f"runpy.run_path({bare_app!r}, run_name='__main__')",
    ]
    if "--instructions" in sys.argv:
        lines += instruction_counts(sources, bare_app, floor_argv)
        text = "\n".join(lines)
        print(text)
        out.parent.mkdir(exist_ok=True)
        out.write_text(text + "\n")
        return
    lines.append(
        f"each tinytui run followed by one of its baseline, the checkouts in turn, {runs} times after one "
        "of each not counted; medians, and the median of the pairs' ratios"
    )
    tui, (bare, floor) = interleaved(
        sources, runs, first_screen, [py, "-m", "tinytui"], [(bare_argv,), (floor_argv,)], b"chuck"
    )
    lines.append(
        f"first screen in a pty at 120×40 (last byte, then {QUIET} s quiet) against the bare Textual app "
        "of bare_apps.py (target ≤ 1.5×), and the floor: that app after `import numpy` (one BLAS thread)"
    )
    for source in sources:
        lines.append(f"  tinytui from {source or 'this checkout'}")
        for i, what in enumerate(("to the last byte", "CPU by then     ", "peak memory     ")):
            value, value_bare, ratio = ratios(tui[source], bare[source], i)
            value_floor, _, floor_ratio = ratios(floor[source], bare[source], i)
            scale, unit = (1, "MB") if i == 2 else (1e3, "ms")
            lines.append(
                f"    {what}  {value * scale:7.0f} {unit}  bare {value_bare * scale:5.0f} {unit}   "
                f"{ratio:.2f}×   floor {value_floor * scale:5.0f} {unit}   {floor_ratio:.2f}×"
            )
    print_argv = [py, "-m", "tinytui", "print", "--step", "1"]
    import_argv = [py, "-c", "import numpy, rich"]
    one_thread = {"OPENBLAS_NUM_THREADS": "1"}
    printed, (imported, imported_one) = interleaved(
        sources, runs, whole_process, print_argv, [(import_argv,), (import_argv, one_thread)]
    )
    lines.append(
        "`tinytui print --step 1 > /dev/null` against `python -c 'import numpy, rich'` (as it comes, and "
        "with OPENBLAS_NUM_THREADS=1 as tinytui runs numpy), whole processes (target ≤ 1.5×)"
    )
    for source in sources:
        lines.append(f"  tinytui from {source or 'this checkout'}")
        for i, what in enumerate(("wall", "CPU ")):
            value, value_import, ratio = ratios(printed[source], imported[source], i)
            _, value_one, ratio_one = ratios(printed[source], imported_one[source], i)
            lines.append(
                f"    {what}  {value * 1e3:7.0f} ms  import {value_import * 1e3:5.0f} ms   {ratio:.2f}×   "
                f"one BLAS thread {value_one * 1e3:5.0f} ms   {ratio_one:.2f}×"
            )
    text = "\n".join(lines)
    print(text)
    out.parent.mkdir(exist_ok=True)
    out.write_text(text + "\n")


if __name__ == "__main__":
    main()
