"""The backward walk and the gradient overlay at GPT-2 small, key by key, in a headless Pilot at 120×40,
each figure beside the pause floor measured in the same app. By hand (needs the gpt2 extra):

python benchmarks/bench_gpt2_keys.py [FOLDER]     # default /tmp/gpt2-small, written there if missing

The checkpoint is bench_gpt2.make's: random weights of GPT-2 small's exact shapes (12 blocks, d 768,
12 heads, 50,257 tokens); the prompt is 16 tokens. A figure is as bench_gpt2_session.py times a key:
Pilot.press, then one `await pilot.pause()` (so it includes the floor), with the `tinytui` command's
BLAS thread policy (one thread). Three scenes, each
in a fresh app (a fresh session, so no gradient is known at its start):
  walk     at step 15: b enters the walk; n through block 12's steps to block 11's step 12; p back up
           to step 15; b leaves
  d@14     at step 14: d shows ∂L/∂w beside E (∂L/∂E: the whole backward), d hides it
  d@b1s7   at block 1's step 7: d, d
  walk d@b1s7  in the walk at block 12's step 7: [ down to block 1 (one more block each), d, d
After each key: of its time, how much went to computing gradients (Gradients' parts), and how many of
the gradients the session has computed so far (of all of them).
Results also go to benchmarks/results/gpt2_keys.txt.
"""

from __future__ import annotations

import asyncio
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from tinytui.cli.launch import limit_blas_threads  # the command's thread policy, before numpy loads

limit_blas_threads()

from bench_gpt2 import TEXT, make  # noqa: E402
from bench_gpt2_session import SIZE, floor, timed  # noqa: E402

from tinytui.cli import garbage_collector  # noqa: E402
from tinytui.model import step_path  # noqa: E402
from tinytui.model.backward.gradients import Gradients  # noqa: E402
from tinytui.model.io.checkpoint import load_checkpoint  # noqa: E402
from tinytui.model.switches import defaults  # noqa: E402
from tinytui.session.session import Session  # noqa: E402
from tinytui.session.state import State  # noqa: E402
from tinytui.tui.app import TinyTuiApp  # noqa: E402

RESULTS = Path(__file__).parent / "results" / "gpt2_keys.txt"
TOKENS = 16
WALK_KEYS = 11  # n from step 15: 14, 13, then block 12's 12 … 5, then block 11's step 12


def app_for(model) -> TinyTuiApp:
    prompt = tuple(model.prompt_pieces(TEXT * 4)[:TOKENS])
    state = State(model.params, prompt, "<|endoftext|>", defaults(model.cfg))
    return TinyTuiApp(Session(model, state))


class BackwardClock:
    """Time spent computing gradients, to print beside a key's: Gradients' parts (outermost calls), or
    for a tinytui whose gradient is not lazy (to measure before it was), the session's gradients()."""

    def __init__(self) -> None:
        self.seconds, self._depth = 0.0, 0
        import tinytui.session.session as where

        owner, name = (Gradients, "_finish") if hasattr(Gradients, "_finish") else (where, "gradients")
        inner, clock = getattr(owner, name), self

        def timed(*args):
            clock._depth += 1
            t0 = time.perf_counter()
            try:
                return inner(*args)
            finally:
                clock._depth -= 1
                if clock._depth == 0:
                    clock.seconds += time.perf_counter() - t0

        setattr(owner, name, timed)

    def take(self) -> float:
        seconds, self.seconds = self.seconds, 0.0
        return seconds


CLOCK = BackwardClock()
TIMES: list[tuple[float, float]] = []  # (each key's time, of it the backward's), every scene


def heading(app) -> str:
    return step_path.heading(app.session.here, app.session.model.cfg.n_blocks)


def known(app) -> str:
    """How many gradients the session has computed, of how many (none when it holds none)."""
    held = app.session._gradients
    if held is None:
        return "none computed"
    grads = held[1]
    done = len(grads.computed()) if hasattr(grads, "computed") else len(grads)  # not lazy: all
    return f"{done} of {len(grads)} gradients computed"


async def scene(model, name: str, setup: tuple[str, ...], keys: tuple[str, ...], lines: list[str]) -> None:
    app = app_for(model)
    garbage_collector.settle()  # as tinytui.cli.run_app does before the app runs
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for key in setup:  # untimed: to where the scene starts
            await pilot.press(key)
        await pilot.pause()
        if name == "d@b1s7":  # block 1: [ until the first block
            while app.session.block > 0:
                await pilot.press("left_square_bracket")
            await pilot.pause()
        f = await floor(pilot, 20)
        lines.append(f"{name}: pause floor {f * 1e3:.1f} ms (at {heading(app)})")
        CLOCK.take()
        for key in keys:
            t = await timed(pilot, key)
            backward = CLOCK.take()
            TIMES.append((t, backward))
            where = ("walk " if app.session.mode.backward else "") + heading(app)
            shown = "[" if key == "left_square_bracket" else key
            of_it = f"(backward {backward * 1e3:6.1f} ms)"
            lines.append(
                f"  {shown:<2} {t * 1e3:7.1f} ms {t / f:6.1f}× floor {of_it}  → {where}; {known(app)}"
            )
            print(lines[-1], flush=True)


async def measure(folder: Path, lines: list[str]) -> None:
    t0 = time.perf_counter()
    model = load_checkpoint(folder)
    lines.append(f"loaded {folder} in {time.perf_counter() - t0:.1f} s; {TOKENS}-token prompt")
    walk = ("b", *("n",) * WALK_KEYS, *("p",) * WALK_KEYS, "b")
    await scene(model, "walk", ("G", "p"), walk, lines)
    await scene(model, "d@14", ("G", "p", "p"), ("d", "d"), lines)
    await scene(model, "d@b1s7", ("7",), ("d", "d"), lines)
    # in the walk: to block 12's step 7, then [ block by block down to block 1 (each one more block's
    # backward), d d there
    down = ("left_square_bracket",) * 11
    to_step_7 = ("G", "p", "b", *("n",) * 8)
    await scene(model, "walk d@b1s7", to_step_7, (*down, "d", "d"), lines)
    slow = [t for t, _ in TIMES if t > 1]
    worst, backward = max(TIMES)
    lines.append(f"slowest key {worst * 1e3:.0f} ms (backward {backward * 1e3:.0f} ms of it); {len(slow)} of")
    lines[-1] += f" {len(TIMES)} keys over 1 s; all keys' backward {sum(b for _, b in TIMES):.2f} s in all"


def main(argv: list[str]) -> None:
    folder = Path(argv[0]) if argv else Path("/tmp/gpt2-small")
    if not (folder / "model.safetensors").exists():
        folder.mkdir(parents=True, exist_ok=True)
        make(folder)
    load = os.getloadavg()
    lines = [
        f"machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        f"load average at the start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}",
        f"headless Pilot {SIZE[0]}×{SIZE[1]}",
    ]
    asyncio.run(measure(folder, lines))
    text = "\n".join(lines)
    print(text)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(text + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
