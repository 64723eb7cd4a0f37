"""How fast a key reaches the screen, in a real pseudo-terminal at 120×40. Run by hand (never as a test):

python benchmarks/bench_view.py            # both models and the bare app; writes benchmarks/results/view.txt
python benchmarks/bench_view.py --quick    # fewer repeats
python benchmarks/bench_view.py --out view-before.txt   # another file in benchmarks/results
python benchmarks/bench_view.py --memory   # only the memory rounds (MEMORY_ROUNDS of them), no timed keys
PYTHONPATH=/path/to/a/checkout python benchmarks/bench_view.py   # the apps import tinytui from there

Each app runs as its own process on the slave side of a pty (TERM=xterm-256color, 120×40), as it runs in
a terminal. A key is its bytes written to the pty; it is timed two ways: to the last byte the app writes
for it (the output then stays quiet for QUIET seconds), and by the CPU time of the app's process over
that span (every thread of it, from /proc/PID/task/*/schedstat, in nanoseconds). Beside tinytui, in the
same run: a bare Textual app (benchmarks/bare_apps.py) whose one Line-API ScrollView formats and draws
all 40 lines anew on each key, the floor a key that redraws a screen of tables is held to. The bare app
runs the whole time, and each key tinytui is timed on is followed by one the bare app is timed on: a
key's ratio is its median over the median of the bare keys pressed beside it, so the machine's drift
(the bare app alone has measured 7 to 20 ms on this shared machine from one run to the next) falls on
both alike. The two models' apps run side by side too and take each key in turn, so the d 64 model is
compared with the chapter's CPU for CPU, under the same conditions (timed one after the other, minutes
apart, the bare keys beside them had differed by 2× and the ratio of ratios with them).

Models: the chapter's (172 parameters), and one made by `tinytui new` at d_model 64, 4 heads, 2 blocks,
vocab 64 and 16 tokens. Targets (issue 26): on the chapter model every key's CPU ≤ 2× the bare app's and
n ≤ 1.5×; at d_model 64 each key ≤ 1.5× the chapter's. Issue 44's: every key of the chapter model ≤ 1.5×
the bare app's CPU and ≤ 2× its last byte; d_model 64 ≤ 1.3× the chapter.

Rows: each key's output is also counted by the screen rows it writes to (its cursor moves), and its CPU
per row written is compared between the models: a key that changes every position writes about three
times the rows at d 64 (16 positions to the chapter's 5).

Memory: after the timed keys, each app takes rounds of (b, b, an edit, u, m, m), every change made and
taken back, the models in turn; its resident memory (VmRSS) is read after each round. Issue 44's target:
round 20 ≤ 1.02× round 2 (flat once the first rounds have filled the caches).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import platform
import re
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).parent / "results" / "view.txt"
COLS, ROWS = 120, 40
QUIET = 0.25  # seconds without output: the key's frame is done
EDITS = 3  # edits (and undos) per round
CURSOR_MOVE = re.compile(rb"\x1b\[(\d+);\d+H")  # Textual moves the cursor to each run of cells it writes
NOT_TEXT = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]|[\r\n]")  # escape sequences and line ends
MEMORY_ROUNDS = 20  # rounds of (b, b, an edit, u, m, m) whose resident memory is read (--quick: 6)
KEYS = {
    "down": b"\x1b[B", "up": b"\x1b[A", "right": b"\x1b[C", "tab": b"\t", "btab": b"\x1b[Z", "enter": b"\r",
    "escape": b"\x1b",
}  # fmt: skip


class Terminal:
    """An app in a pseudo-terminal: keys in, bytes out, the process's CPU time."""

    def __init__(self, argv: list[str]) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
        env = dict(os.environ, TERM="xterm-256color", COLORTERM="truecolor", COLUMNS=str(COLS))
        env.pop("NO_COLOR", None)
        env["XDG_CONFIG_HOME"] = tempfile.mkdtemp()  # no remembered theme or keymap
        self.proc = subprocess.Popen(
            argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=tempfile.mkdtemp(),
            start_new_session=True, close_fds=True,
        )  # fmt: skip
        os.close(slave)
        self.fd = master
        self.settle(timeout=30, quiet=1.0)

    def cpu(self) -> float:
        """Seconds on a CPU, every thread of the process (schedstat: nanoseconds)."""
        total = 0
        for task in Path(f"/proc/{self.proc.pid}/task").iterdir():
            with contextlib.suppress(FileNotFoundError, ProcessLookupError):
                total += int((task / "schedstat").read_text().split()[0])
        return total / 1e9

    def settle(self, timeout: float = 10.0, quiet: float = QUIET) -> float:
        """Read until the output is quiet for `quiet` s; the time of the last byte (0: none came)."""
        self.seen = b""
        last, start = 0.0, time.perf_counter()
        while time.perf_counter() - start < timeout:
            ready, _, _ = select.select([self.fd], [], [], quiet)
            if not ready:
                break
            try:
                data = os.read(self.fd, 1 << 16)
            except OSError:
                break
            if data:
                last = time.perf_counter()
                self.seen += data
                if b"\x1b[6n" in data:  # a cursor-position query: answer as a terminal would
                    os.write(self.fd, b"\x1b[1;1R")
        return last

    def key(self, name: str) -> tuple[float, float]:
        """(seconds from the key to the last byte written for it, CPU seconds over that span)."""
        data = KEYS.get(name, name.encode())
        cpu, t0 = self.cpu(), time.perf_counter()
        os.write(self.fd, data)
        last = self.settle()
        return (last - t0 if last else 0.0), self.cpu() - cpu

    def rows_written(self) -> int:
        """How many of the screen's rows the last key's output wrote to (changed or not)."""
        return len(rows_written(self.seen))

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self.fd)


def rows_written(data: bytes) -> set[int]:
    """The rows (0-based) the output writes text to: a cursor move followed by text before the next (at
    the end of each frame Textual moves the cursor to the top left and writes nothing there)."""
    moves = list(CURSOR_MOVE.finditer(data))
    rows = set()
    for move, after in zip(moves, [*moves[1:], None]):
        end = after.start() if after is not None else len(data)
        if NOT_TEXT.sub(b"", data[move.end() : end]):
            rows.add(int(move.group(1)) - 1)
    return rows


def resident(pid: int) -> float:
    """The process's resident memory now (VmRSS), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def memory_rounds(terms: dict[str, Terminal], rounds: int) -> dict[str, list[float]]:
    """Each app's resident memory (MB) after each of `rounds` rounds of b twice (into the walk and out),
    an edit of a weight at step 9, its undo and m twice, the apps in turn."""
    after: dict[str, list[float]] = {name: [] for name in terms}
    for _ in range(rounds):
        for name, term in terms.items():
            for key in ("b", "b", "9"):
                term.key(key)
            to_a_weight(term)  # out of the walk the cursor is on no weight
            for key in ("e", "0", ".", "5", "enter", "u", "m", "m"):
                term.key(key)
            after[name].append(resident(term.proc.pid))
    return after


def to_a_weight(term: Terminal) -> None:
    """Tab from table to table until the cursor is on a weight (the inspector says "Enter to edit")."""
    for _ in range(16):
        term.key("tab")
        if b"to edit" in term.seen:
            return
    raise RuntimeError("no editable table reached with Tab")


def d64_model(folder: Path) -> Path:
    """The d_model 64 model, made by `tinytui new` (64 words, a 16-token prompt)."""
    words = folder / "words.txt"
    vocab = [f"w{i}" for i in range(64)]
    words.write_text("\n".join(vocab) + "\n")
    out = folder / "d64.json"
    prompt = " ".join(vocab[(5 * i) % 64] for i in range(16))
    subprocess.run(
        [sys.executable, "-m", "tinytui", "new", "--d", "64", "--heads", "4", "--blocks", "2",
         "--vocab", str(words), "--prompt", prompt, "--target", vocab[1], "-o", str(out)],
        check=True, capture_output=True,
    )  # fmt: skip
    return out


Sample = tuple[float, float]


def med(samples: list[Sample]) -> Sample:
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def worst(samples: list[Sample]) -> Sample:
    return max(s[0] for s in samples), max(s[1] for s in samples)


class Beside:
    """Both models' apps and the bare app, running the whole time: a measured key is pressed in each
    model's app in turn, each followed by a key of the bare app, so the two models are timed under the
    same conditions, key for key, and each beside bare keys of its own."""

    def __init__(self, terms: dict[str, Terminal], bare: Terminal) -> None:
        self.terms, self.bare = terms, bare
        self.samples: dict[str, dict[str, list[Sample]]] = {name: {} for name in terms}
        self.bare_samples: dict[str, dict[str, list[Sample]]] = {name: {} for name in terms}
        self.rows: dict[str, dict[str, list[int]]] = {name: {} for name in terms}  # rows each key wrote
        self.memory: dict[str, list[float]] = {}  # each app's VmRSS after each memory round (MB)

    def key(self, name: str, measured: str) -> None:
        for model, term in self.terms.items():
            self.samples[model].setdefault(measured, []).append(term.key(name))
            self.rows[model].setdefault(measured, []).append(term.rows_written())
            self.bare_samples[model].setdefault(measured, []).append(self.bare.key("x"))

    def setup(self, name: str) -> None:
        """A key that brings each app where the next measured keys start (not timed)."""
        for term in self.terms.values():
            term.key(name)


def measure(models: dict[str, str | None], repeats: int, bare: Terminal, rounds: int) -> Beside:
    """Every model's app measured key for key beside the others' (models: name -> --model, None for the
    chapter's)."""
    terms = {
        name: Terminal([sys.executable, "-m", "tinytui"] + (["--model", model] if model else []))
        for name, model in models.items()
    }
    pair = Beside(terms, bare)
    try:
        for _ in range(repeats):
            pair.setup("g")
            for _ in range(15):
                pair.key("n", "n")
            for _ in range(15):
                pair.key("p", "p")
        pair.setup("9")
        pair.setup("tab")  # from the step list into the step view
        for _ in range(repeats):
            for k in ("down", "up"):
                pair.key(k, "arrow")
        for _ in range(repeats):  # the next table and on to the weights (the third), then back
            for k in ("tab", "tab", "btab", "btab"):
                pair.key(k, "Tab")
        for key in ("m", "o", "d", "b"):  # on and off; b: into the walk and out
            for _ in range(2 * repeats):
                pair.key(key, key)
        pair.setup("9")
        for term in terms.values():
            to_a_weight(term)
        # three times as many edits and undos as other keys: one in a few meets a collection of the
        # cycle collector or a first sight of a shade, and five made a median that moved by half
        for i in range(EDITS * repeats):
            pair.setup("e")  # the editor over the weight under the cursor
            for ch in f"0.{i + 11}":
                pair.key(ch, "typed char")
            pair.key("enter", "edit Enter")
        for _ in range(EDITS * repeats):
            pair.key("u", "u")
        pair.memory = memory_rounds(terms, rounds)
    finally:
        for term in terms.values():
            term.close()
    return pair


def summary(samples: dict[str, list[Sample]]) -> dict[str, Sample]:
    """Each key's median sample; n also its worst."""
    out = {"n median": med(samples["n"]), "n max": worst(samples["n"])}
    out |= {key: med(s) for key, s in samples.items() if key != "n"}
    return out


def bare_app() -> Terminal:
    return Terminal([sys.executable, str(Path(__file__).parent / "bare_apps.py")])


def memory_only(models: dict[str, str | None], rounds: int) -> dict[str, list[float]]:
    """Each model's app brought to step 9's tables and given the memory rounds alone (no timed keys)."""
    terms = {
        name: Terminal([sys.executable, "-m", "tinytui"] + (["--model", model] if model else []))
        for name, model in models.items()
    }
    try:
        for term in terms.values():
            for key in ("9", "tab"):  # step 9, from the step list into the step view
                term.key(key)
        return memory_rounds(terms, rounds)
    finally:
        for term in terms.values():
            term.close()


def memory_lines(memory: dict[str, list[float]], rounds: int) -> list[str]:
    lines = [
        f"resident memory after rounds of (b, b, an edit, u, m, m), round 2 → round {rounds} "
        "(target ≤ 1.02×):"
    ]
    for name, after in memory.items():
        shown = " ".join(f"{mb:.1f}" for mb in after)
        lines.append(
            f"  {name:<8} {after[1]:6.1f} → {after[-1]:6.1f} MB  {after[-1] / after[1]:.3f}×"
            f"   (each round: {shown})"
        )
    return lines


def write(lines: list[str]) -> None:
    text = "\n".join(lines)
    print(text)
    out = RESULTS.parent / sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else RESULTS
    out.parent.mkdir(exist_ok=True)
    out.write_text(text + "\n")


def main() -> None:
    quick = "--quick" in sys.argv
    repeats = 2 if quick else 5
    rounds = 6 if quick else MEMORY_ROUNDS
    if "--memory" in sys.argv:
        lines = [
            f"machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
            f"load {os.getloadavg()[0]:.2f}; tinytui from {os.environ.get('PYTHONPATH') or 'this checkout'}",
            f"a pty at {COLS}×{ROWS}; the memory rounds only, from step 9 (no timed keys before them)",
        ]
        with tempfile.TemporaryDirectory() as folder:
            memory = memory_only({"chapter": None, "d64": str(d64_model(Path(folder)))}, MEMORY_ROUNDS)
        write(lines + memory_lines(memory, MEMORY_ROUNDS))
        return
    lines = [
        f"machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"load {os.getloadavg()[0]:.2f}; tinytui from {os.environ.get('PYTHONPATH') or 'this checkout'}",
        f"a pty at {COLS}×{ROWS}; a key is timed to the last byte written ({QUIET} s quiet after it) and by "
        f"the process's CPU time; medians of {repeats} rounds ({EDITS * repeats} edits and undos); the "
        "chapter's and the d 64 model's apps take "
        "each key in turn, each followed by a key of the bare app: ÷ bare is over the bare keys beside it, "
        "d 64 ÷ chapter is CPU over CPU",
    ]
    bare = bare_app()
    try:
        with tempfile.TemporaryDirectory() as folder:
            pair = measure({"chapter": None, "d64": str(d64_model(Path(folder)))}, repeats, bare, rounds)
    finally:
        bare.close()
    chapter, big = summary(pair.samples["chapter"]), summary(pair.samples["d64"])
    bare_chapter, bare_big = summary(pair.bare_samples["chapter"]), summary(pair.bare_samples["d64"])
    bare_chapter["n max"] = bare_chapter["n median"]  # the worst n is held to the usual bare key
    bare_big["n max"] = bare_big["n median"]
    cpus = sorted(b[1] for b in bare_chapter.values())
    lines.append(
        f"bare Line-API app, 40 lines formatted and drawn anew: CPU {statistics.median(cpus) * 1e3:.1f} ms "
        f"(the medians beside each key: {cpus[0] * 1e3:.1f} to {cpus[-1] * 1e3:.1f} ms), last byte "
        f"{statistics.median(b[0] for b in bare_chapter.values()) * 1e3:.1f} ms"
    )
    lines.append(
        "key            chapter: CPU  ÷ bare  last byte ÷ bare  |  d 64: CPU  ÷ chapter  last byte"
        "  (CPU ÷ bare)"
    )
    for key in chapter:
        (cw, cc), (bw, bc) = chapter[key], big[key]
        # the two models' keys ran in turn, each beside its own bare key: d 64 ÷ chapter is by CPU
        lines.append(
            f"{key:<12} {cc * 1e3:10.1f} ms {cc / bare_chapter[key][1]:5.2f}× {cw * 1e3:7.1f} ms"
            f" {cw / bare_chapter[key][0]:5.2f}×  |"
            f" {bc * 1e3:7.1f} ms {bc / cc:6.2f}×  {bw * 1e3:7.1f} ms  ({bc / bare_big[key][1]:.2f}×)"
        )
    lines += rows_lines(pair, chapter, big)
    write(lines + memory_lines(pair.memory, rounds))


def rows_lines(pair: Beside, chapter: dict[str, Sample], big: dict[str, Sample]) -> list[str]:
    """Rows each key wrote (median) and its CPU per row written: the d 64 model shows 16 positions to the
    chapter's 5, so a key that changes every position writes more rows there; per row, the two compare
    what each row costs."""
    lines = ["rows written per key (median) and CPU per row written:",
             "key            chapter: rows  ms/row  |  d 64: rows  ms/row  ÷ chapter"]  # fmt: skip
    for key in chapter:
        measured = "n" if key.startswith("n ") else key
        if key == "n max":
            continue
        rc = statistics.median(pair.rows["chapter"][measured])
        rb = statistics.median(pair.rows["d64"][measured])
        pc, pb = chapter[key][1] / max(rc, 1) * 1e3, big[key][1] / max(rb, 1) * 1e3
        lines.append(f"{measured:<12} {rc:12.1f} {pc:7.2f}  | {rb:11.1f} {pb:7.2f}  {pb / pc:6.2f}×")
    return lines


if __name__ == "__main__":
    os.chdir(ROOT)
    main()
