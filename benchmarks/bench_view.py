"""How fast a key reaches the screen, in a real pseudo-terminal at 120×40. Run by hand (never as a test):

python benchmarks/bench_view.py            # both models and the bare app; writes benchmarks/results/view.txt
python benchmarks/bench_view.py --quick    # fewer repeats

Each app runs as its own process on the slave side of a pty (TERM=xterm-256color, 120×40), as it runs in
a terminal. A key is its bytes written to the pty; it is timed two ways: to the last byte the app writes
for it (the output then stays quiet for QUIET seconds), and by the CPU time of the app's process over
that span (every thread of it, from /proc/PID/task/*/schedstat, in nanoseconds). Beside tinytui, in the
same run: a bare Textual app (benchmarks/bare_apps.py) whose one Line-API ScrollView formats and draws
all 40 lines anew on each key, the floor a key that redraws a screen of tables is held to. The bare app
runs the whole time, and each key tinytui is timed on is followed by one the bare app is timed on: a
key's ratio is its median over the median of the bare keys pressed beside it, so the machine's drift
(the bare app alone has measured 7 to 20 ms on this shared machine from one run to the next) falls on
both alike.

Models: the chapter's (172 parameters), and one made by `tinytui new` at d_model 64, 4 heads, 2 blocks,
vocab 64 and 16 tokens. Targets (issue 26): on the chapter model every key's CPU ≤ 2× the bare app's and
n ≤ 1.5×; at d_model 64 each key ≤ 1.5× the chapter's.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import platform
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

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self.fd)


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
    """tinytui's keys, each followed by a key of the bare app (running the whole time): the samples of
    both, by the name of the key measured."""

    def __init__(self, term: Terminal, bare: Terminal) -> None:
        self.term, self.bare = term, bare
        self.bare_samples: dict[str, list[Sample]] = {}

    def key(self, name: str, measured: str) -> Sample:
        sample = self.term.key(name)
        self.bare_samples.setdefault(measured, []).append(self.bare.key("x"))
        return sample


def measure(model: str | None, repeats: int, bare: Terminal) -> tuple[dict[str, Sample], dict[str, Sample]]:
    """(tinytui's samples by key, the bare app's beside each)."""
    argv = [sys.executable, "-m", "tinytui"] + (["--model", model] if model else [])
    term = Terminal(argv)
    pair = Beside(term, bare)
    out: dict[str, Sample] = {}
    try:
        ns, ps = [], []
        for _ in range(repeats):
            term.key("g")
            ns += [pair.key("n", "n") for _ in range(15)]
            ps += [pair.key("p", "p") for _ in range(15)]
        out["n median"], out["n max"] = med(ns), worst(ns)
        pair.bare_samples["n median"] = pair.bare_samples["n max"] = pair.bare_samples.pop("n")
        out["p"] = med(ps)
        term.key("9")
        term.key("tab")  # from the step list into the step view
        out["arrow"] = med([pair.key(k, "arrow") for _ in range(repeats) for k in ("down", "up")])
        # the next table and on to the weights (the third), then back: shift+Tab moves as Tab does
        out["Tab"] = med([pair.key(k, "Tab") for _ in range(repeats) for k in ("tab", "tab", "btab", "btab")])
        for key in ("m", "o", "d"):
            out[key] = med([pair.key(key, key) for _ in range(2 * repeats)])  # on and off
        out["b"] = med([pair.key("b", "b") for _ in range(2 * repeats)])  # into the walk and out
        chars, enters = [], []
        term.key("9")
        to_a_weight(term)
        for i in range(repeats):
            term.key("e")  # the editor over the weight under the cursor
            chars += [pair.key(ch, "typed char") for ch in f"0.{i + 1}"]
            enters.append(pair.key("enter", "edit Enter"))
        out["typed char"] = med(chars)
        out["edit Enter"] = med(enters)
        out["u"] = med([pair.key("u", "u") for _ in range(repeats)])
    finally:
        term.close()
    return out, {key: med(samples) for key, samples in pair.bare_samples.items()}


def bare_app() -> Terminal:
    return Terminal([sys.executable, str(Path(__file__).parent / "bare_apps.py")])


def main() -> None:
    quick = "--quick" in sys.argv
    repeats = 2 if quick else 5
    lines = [
        f"machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"load {os.getloadavg()[0]:.2f}",
        f"a pty at {COLS}×{ROWS}; a key is timed to the last byte written ({QUIET} s quiet after it) and by "
        f"the process's CPU time; medians of {repeats} rounds; each tinytui key is followed by a key of the "
        "bare app, and ÷ bare is over the bare keys beside it",
    ]
    bare = bare_app()
    try:
        chapter, bare_chapter = measure(None, repeats, bare)
        with tempfile.TemporaryDirectory() as folder:
            big, bare_big = measure(str(d64_model(Path(folder))), repeats, bare)
    finally:
        bare.close()
    cpus = sorted(b[1] for b in bare_chapter.values())
    lines.append(
        f"bare Line-API app, 40 lines formatted and drawn anew: CPU {statistics.median(cpus) * 1e3:.1f} ms "
        f"(the medians beside each key: {cpus[0] * 1e3:.1f} to {cpus[-1] * 1e3:.1f} ms), last byte "
        f"{statistics.median(b[0] for b in bare_chapter.values()) * 1e3:.1f} ms"
    )
    lines.append(
        "key            chapter: CPU  ÷ bare  last byte   |  d 64: CPU  ÷ chapter  last byte  (÷ bare)"
    )
    for key in chapter:
        (cw, cc), (bw, bc) = chapter[key], big[key]
        ratio = cc / bare_chapter[key][1]
        # the d 64 model's keys ran beside their own bare keys: compared with the chapter's by ÷ bare
        big_ratio = bc / bare_big[key][1]
        lines.append(
            f"{key:<12} {cc * 1e3:10.1f} ms {ratio:5.2f}× {cw * 1e3:7.1f} ms   |"
            f" {bc * 1e3:7.1f} ms {big_ratio / ratio:6.2f}×  {bw * 1e3:7.1f} ms  ({big_ratio:.2f}×)"
        )
    text = "\n".join(lines)
    print(text)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(text + "\n")


if __name__ == "__main__":
    os.chdir(ROOT)
    main()
