"""Which rows of the screen a key writes, and which of them it really changes, in a real pseudo-terminal at
120×40. Run by hand (never as a test), with a Python that has pyte (below):

PY benchmarks/rows_written.py [--python APP_PY] [--model PATH] SETUP KEYS
    e.g. PY benchmarks/rows_written.py --python .venv/bin/python 9,tab m,m,o,o,d,d,b,b
         PY benchmarks/rows_written.py --python .venv/bin/python --model d64.json 9,tab,9,W e,0,.,5,enter,u
PY benchmarks/rows_written.py [--python APP_PY] [--model PATH]   # bench_view.py's keys, in its order

SETUP and KEYS are comma-separated keys as bench_view.py sends them (a character, or down, up, right,
tab, btab, enter, escape); the setup key W presses Tab until the cursor is on a weight the inspector
offers to edit. The app runs as bench_view.py runs it (its Terminal), with APP_PY (default: the Python
running this), and everything it writes is fed to the terminal emulator pyte, so the screen is known
before and after each key. Per key it prints the app's CPU time, the bytes written, the rows written (a
row some text was written to: Textual parking the cursor at the end of a frame writes nothing), the rows
whose cells really changed (text, colours, bold, reverse…), and the rows written though they show what
they showed (0-based, row 0 the top): each of those is a widget drawing a line that did not change, work
for the app and for the terminal. The d_model 64 model of bench_view.py is made by its d64_model
(`tinytui new --d 64 --heads 4 --blocks 2 --vocab words.txt --prompt ... -o d64.json`).

pyte is not one of the project's dependencies: put it in a scratch venv, run this script with that
venv's Python and the apps with the project's:

python3 -m venv /tmp/pyte-venv && /tmp/pyte-venv/bin/pip install pyte
/tmp/pyte-venv/bin/python benchmarks/rows_written.py --python .venv/bin/python 9,tab m,m
"""

from __future__ import annotations

import argparse
import os
import sys

from bench_view import COLS, ROWS, Terminal, rows_written, to_a_weight

try:
    import pyte
except ModuleNotFoundError:  # not one of the project's dependencies
    sys.exit("rows_written.py needs pyte, in a scratch venv: see its docstring")

# the keys bench_view.measure presses, in its order, one round: (setup keys, measured keys)
BENCH_KEYS = [
    ("g", "n,n,n,n,n"),
    ("", "p,p,p,p,p"),
    ("9,tab", "down,up,down,up"),
    ("", "tab,tab,btab,btab"),
    ("", "m,m,o,o,d,d,b,b"),
    ("9,W,e", "0,.,1,1,enter"),
    ("e", "0,.,1,2,enter"),
    ("", "u,u"),
]


class Watched:
    """An app in a pseudo-terminal whose output is played on an emulated screen (pyte)."""

    def __init__(self, argv: list[str]) -> None:
        self.screen = pyte.Screen(COLS, ROWS)
        self.stream = pyte.ByteStream(self.screen)
        self.term = Terminal(argv)
        self.stream.feed(self.term.seen)

    def rows(self) -> list[tuple]:
        """Each row of the screen as its cells: text, colours and attributes."""
        buffer = self.screen.buffer
        return [
            tuple(
                (c.data, c.fg, c.bg, c.bold, c.italics, c.underscore, c.reverse, c.strikethrough)
                for c in (buffer[y][x] for x in range(COLS))
            )
            for y in range(ROWS)
        ]

    def setup(self, key: str) -> None:
        if key == "W":
            to_a_weight(self.term)
        else:
            self.term.key(key)
        self.stream.feed(self.term.seen)

    def key(self, key: str) -> str:
        """Press a key: a line of what it cost and which rows it wrote and changed."""
        before = self.rows()
        _, cpu = self.term.key(key)
        data = self.term.seen
        self.stream.feed(data)
        after = self.rows()
        written = rows_written(data)
        changed = [y for y in range(ROWS) if before[y] != after[y]]
        same = sorted(y for y in written if before[y] == after[y])
        missed = [y for y in changed if y not in written]  # never expected: the parse would be wrong
        unseen = f"; changed, not written: {missed}" if missed else ""
        return (
            f"{key:>6}: cpu {cpu * 1000:5.1f} ms, {len(data):6d} B; rows written {len(written):2d}, "
            f"changed {len(changed):2d}; written but same: {same}{unseen}"
        )

    def close(self) -> None:
        self.term.close()


def run(argv: list[str], plan: list[tuple[str, str]]) -> None:
    watched = Watched(argv)
    try:
        for setup, keys in plan:
            for key in (k for k in setup.split(",") if k):
                watched.setup(key)
            for key in (k for k in keys.split(",") if k):
                print(watched.key(key), flush=True)
    finally:
        watched.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="the model to run (default: the chapter's)")
    parser.add_argument("--python", default=sys.executable, help="the Python the apps run with")
    parser.add_argument("setup", nargs="?", default="")
    parser.add_argument("keys", nargs="?")
    opts = parser.parse_args()
    python = os.path.abspath(opts.python)  # the apps run in a folder of their own
    argv = [python, "-m", "tinytui"] + (["--model", opts.model] if opts.model else [])
    run(argv, BENCH_KEYS if opts.keys is None else [(opts.setup, opts.keys)])


if __name__ == "__main__":
    main()
