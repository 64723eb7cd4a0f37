"""Where a key's time goes, by cProfile, in a headless app at 120×40. Run by hand (never as a test):

python benchmarks/profile_keys.py [--model PATH] [--setup KEYS] KEY [COUNT]
    e.g. python benchmarks/profile_keys.py --model d64.json --setup 9,tab m 20

Setup keys (comma-separated Textual key names) bring the app where the profiled key starts; the key is
then pressed COUNT times (default 10), each followed by a pause so its frame is drawn, and the profile
of those presses alone is printed, sorted by cumulative and by own time. Headless, the driver writes
nothing to a terminal, so this shows the app's own work; bench_view.py measures the whole key.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import sys

from tinytui.cli.options import build_parser
from tinytui.cli.run_setup import setup_from
from tinytui.session.session import Session
from tinytui.tui.app import TinyTuiApp


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model")
    parser.add_argument("--setup", default="")
    parser.add_argument("--top", type=int, default=35)
    parser.add_argument("key")
    parser.add_argument("count", type=int, nargs="?", default=10)
    return parser.parse_args()


async def profile(app: TinyTuiApp, setup: list[str], key: str, count: int) -> cProfile.Profile:
    prof = cProfile.Profile()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        for name in setup:
            await pilot.press(name)
            await pilot.pause()
        for _ in range(count):
            prof.enable()
            await pilot.press(key)
            await pilot.pause()
            prof.disable()
    return prof


def main() -> None:
    opts = parse()
    argv = ["--model", opts.model] if opts.model else []
    setup = setup_from(build_parser().parse_args(argv))
    session = setup.session if setup.session is not None else Session(setup.model, setup.state)
    setup_keys = [k for k in opts.setup.split(",") if k]
    prof = asyncio.run(profile(TinyTuiApp(session), setup_keys, opts.key, opts.count))
    stats = pstats.Stats(prof, stream=sys.stdout)
    stats.sort_stats("cumulative").print_stats(opts.top)
    stats.sort_stats("tottime").print_stats(opts.top)


if __name__ == "__main__":
    main()
