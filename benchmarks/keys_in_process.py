"""The CPU a key takes in a headless app, the chapter's and the d_model 64 model's, by time.thread_time:
a measure that a machine shared with other work disturbs less than bench_view's pty. Run by hand (never
as a test):

python benchmarks/keys_in_process.py [--count N] [--model PATH] [KEY ...]
python benchmarks/keys_in_process.py --trees OLD NEW [--rounds R] [KEY ...]

KEY: n, tab, m, o, d, b, edit (an edit's Enter), u (default: all). The app starts at 120×40; n is
pressed from step 1 (g), tab at step 9 in its tables (Tab, Tab, shift+Tab, shift+Tab, as bench_view
does), m, o, d and b there (each twice as often: on and off; b into the walk and out), and an edit
types 0.NN into a weight of step 9 and presses Enter, N times, then u takes them back, as bench_view
does.
The medians are in-process: no terminal is written to, so the bytes a terminal is sent are not in them.
--trees: each of two checkouts (a clone with lesson/, model/ and themes/ linked into tinytui/, see
bench_start) measured in its own process, model after model and checkout after checkout in turn, the
median of R rounds of medians: a change's before and after under the same load.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

KEYS = ("n", "tab", "m", "o", "d", "b", "edit", "u")


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("keys", nargs="*", default=list(KEYS))
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--model", default="/tmp/d64/d64.json", help="bench_view.d64_model's model")
    parser.add_argument("--only", choices=("chapter", "big"), help="one model, printed as JSON")
    parser.add_argument("--trees", nargs=2, metavar=("OLD", "NEW"))
    parser.add_argument("--rounds", type=int, default=3)
    return parser.parse_args()


async def run(model: str | None, keys: list[str], count: int) -> dict[str, list[float]]:
    """Each key's CPU seconds, press by press, in one app."""
    from tinytui.cli.options import build_parser
    from tinytui.cli.run_setup import setup_from
    from tinytui.session.session import Session
    from tinytui.tui.app import TinyTuiApp
    from tinytui.tui.widgets.status_bar import Inspector

    setup = setup_from(build_parser().parse_args(["--model", model] if model else []))
    session = setup.session if setup.session is not None else Session(setup.model, setup.state)
    app = TinyTuiApp(session)
    out: dict[str, list[float]] = {}

    async with app.run_test(size=(120, 40)) as pilot:

        async def press(key: str) -> float:
            start = time.thread_time()
            await pilot.press(key)
            await pilot.pause()
            return time.thread_time() - start

        await pilot.pause()
        if "n" in keys:
            await press("g")
            out["n"] = [await press("n") for _ in range(count)]
        await press("9")
        await press("tab")
        if "tab" in keys:  # to the next table and on to the weights (the third), then back
            out["tab"] = [
                await press(k) for _ in range(count // 2) for k in ("tab", "tab", "shift+tab", "shift+tab")
            ]
        for key in ("m", "o", "d", "b"):
            if key in keys:
                out[key] = [await press(key) for _ in range(2 * count)]
        if "edit" in keys or "u" in keys:
            await press("9")
            for _ in range(16):  # Tab to a weight: the inspector says "Enter to edit"
                await press("tab")
                if "to edit" in str(app.query_one(Inspector).render()):
                    break
            edits = []
            for i in range(count):
                await press("e")
                for ch in f"0.{i + 11}":
                    await press(ch)
                edits.append(await press("enter"))
            out["edit"] = edits
            out["u"] = [await press("u") for _ in range(count)]
    return {k: v for k, v in out.items() if k in keys}


def medians(samples: dict[str, list[float]]) -> dict[str, float]:
    return {k: statistics.median(v) * 1000 for k, v in samples.items()}


def one_tree(opts: argparse.Namespace) -> None:
    models = {"chapter": None, "big": opts.model}
    if opts.only:
        found = asyncio.run(run(models[opts.only], opts.keys, opts.count))
        print("JSON", json.dumps(medians(found)))
        return
    got = {name: medians(asyncio.run(run(model, opts.keys, opts.count))) for name, model in models.items()}
    for key in opts.keys:
        c, b = got["chapter"][key], got["big"][key]
        print(f"{key:5s} chapter {c:6.2f} ms  d64 {b:6.2f} ms  {b / c:.2f}×")


def two_trees(opts: argparse.Namespace) -> None:
    found: dict[tuple[str, str, str], list[float]] = {}
    for _ in range(opts.rounds):
        for model in ("chapter", "big"):
            for tree in opts.trees:
                argv = [sys.executable, __file__, "--only", model, "--count", str(opts.count)]
                argv += ["--model", opts.model, *opts.keys]
                env = dict(os.environ, PYTHONPATH=str(Path(tree).resolve()))
                done = subprocess.run(argv, env=env, cwd=tree, capture_output=True, text=True, check=True)
                line = next(x for x in done.stdout.splitlines() if x.startswith("JSON "))
                for key, ms in json.loads(line[5:]).items():
                    found.setdefault((tree, model, key), []).append(ms)
    for key in opts.keys:
        cols = []
        for tree in opts.trees:
            c = statistics.median(found[(tree, "chapter", key)])
            b = statistics.median(found[(tree, "big", key)])
            cols.append(f"chapter {c:6.2f} d64 {b:6.2f} ({b / c:.2f}×)")
        print(f"{key:5s}", " | ".join(cols))


def main() -> None:
    opts = parse()
    if opts.trees:
        two_trees(opts)
    else:
        one_tree(opts)


if __name__ == "__main__":
    main()
