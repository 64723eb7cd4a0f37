"""What a typed character costs the command palette's search: Textual's matcher with the entries made
again for every key (how TinyTuiCommands searched before issue 28) against the entries made once and
palette.match, for queries of 1 to 800 characters, on the chapter's model, woodland and the tiny GPT-2.
Run by hand:

python benchmarks/bench_palette.py
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from textual.fuzzy import Matcher

from tinytui.cli.options import build_parser
from tinytui.cli.run_setup import setup_from
from tinytui.session.session import Session
from tinytui.tui.app import TinyTuiApp
from tinytui.tui.palette import match

TINY_GPT2 = Path(__file__).parent.parent / "tests" / "gpt2" / "fixtures" / "tiny-gpt2"
QUERIES = [
    "e",
    "edit par",
    "edit parameter w",
    "o o o o o o",
    "abcdefghij" * 2,
    ("edit parameter w " * 50)[:800],
]


def per_key(fn, repeats: int = 20) -> float:
    t0 = time.perf_counter()
    for _ in range(repeats):
        fn()
    return (time.perf_counter() - t0) / repeats


async def one(name: str, *argv: str) -> None:
    setup = setup_from(build_parser().parse_args(list(argv)))
    app = TinyTuiApp(Session(setup.model, setup.state))
    async with app.run_test(size=(120, 40)):
        made = list(app.palette_commands())

        def before(q: str) -> list:
            m = Matcher(q)
            return [m.highlight(c.title) for c in list(app.palette_commands()) if m.match(c.title) > 0]

        def now(q: str) -> list:
            return [c for c in made if match(q, c.title) is not None]

        for q in QUERIES:
            old, new = per_key(lambda q=q: before(q)), per_key(lambda q=q: now(q))
            hits = len(now(q))
            print(
                f"{name:10} {len(made):4} entries  query of {len(q):3} ({q[:12]!r:15}): "
                f"before {1000 * old:6.2f} ms, now {1000 * new:5.2f} ms, {hits} hits"
            )


def main() -> None:
    for name, argv in (
        ("chapter17", ()),
        ("woodland", ("--model", "woodland")),
        ("tiny GPT-2", ("--model", str(TINY_GPT2))),
    ):
        asyncio.run(one(name, *argv))


if __name__ == "__main__":
    main()
