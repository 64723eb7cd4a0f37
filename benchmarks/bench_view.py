"""How fast a key reaches the screen, in a headless Pilot at 120×40. Run by hand (never as a timed test):

python benchmarks/bench_view.py            # both models, writes benchmarks/results/view.txt
python benchmarks/bench_view.py --quick    # fewer repeats

Every figure is printed beside the floor measured in the same run: `await pilot.pause()` alone (what a
Pilot costs to wait for idle and draw a screen with nothing changed). A figure is: the key event sent to
the driver (as Pilot.press makes it, without its own two waits for idle) → one pause, so it includes
that floor; a key that changes nothing measures 1×. The pause waits in 20 ms windows until one passes
with under 1 ms of work, so any key whose drawing still runs after its messages are handled costs a
second window (≈ 2×). Models: the chapter's (172 parameters) and a seeded random one at d_model 64,
4 heads, 2 blocks, vocab 64 and 16 tokens.
"""

from __future__ import annotations

import asyncio
import os
import platform
import statistics
import subprocess
import sys
import time
import unicodedata
from pathlib import Path

import numpy as np
from textual import events
from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key

from tinytui import collector
from tinytui.app import TinyTuiApp
from tinytui.model import ModelFile, Params, Switches, load_default
from tinytui.model.config import ModelConfig
from tinytui.model.params import param_shapes
from tinytui.model.trace import DEFAULT_LR
from tinytui.session import Session, State

SIZE = (120, 40)
RESULTS = Path(__file__).parent / "results" / "view.txt"


def big_model(d: int = 64, heads: int = 4, blocks: int = 2, vocab: int = 64, tokens: int = 16) -> ModelFile:
    cfg = ModelConfig(
        vocab=tuple(f"t{i}" for i in range(vocab)),
        dims=tuple(f"d{i}" for i in range(d)),
        d_model=d,
        n_heads=heads,
        d_head=d // heads,
        d_ff=4 * d,
        n_blocks=blocks,
        n_ctx=tokens,
    )
    rng = np.random.default_rng(17)
    arrays = {n: rng.normal(0, 1 / np.sqrt(d), s) for n, s in param_shapes(cfg).items()}
    prompt = tuple(cfg.vocab[i % vocab] for i in range(tokens))
    return ModelFile("random d64", "seeded random weights", Params(cfg, arrays), prompt, cfg.vocab[1])


def make(model: ModelFile) -> TinyTuiApp:
    state = State(model.params, model.prompt, model.target, Switches(), DEFAULT_LR)
    return TinyTuiApp(Session(model, state))


def send(app, key: str) -> None:
    """A key event into the driver, as Pilot.press makes it, without Pilot's own waits for idle."""
    if len(key) == 1 and not key.isalnum():
        key = _character_to_key(key)
    try:
        char = unicodedata.lookup(_get_unicode_name_from_key(REPLACED_KEYS.get(key, key)))
    except KeyError:
        char = key if len(key) == 1 else None
    event = events.Key(key, char)
    event.set_sender(app)
    app._driver.send_message(event)


async def timed(pilot, *keys: str) -> float:
    """Key (or keys) sent → every message handled, the app idle and the screen drawn: one pause."""
    t0 = time.perf_counter()
    for key in keys:
        send(pilot.app, key)
    await pilot.pause()
    return time.perf_counter() - t0


async def floor(pilot, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        await pilot.pause()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


async def measure(model: ModelFile, repeats: int) -> dict[str, float]:
    from tinytui.widgets.grid import Grid
    from tinytui.widgets.panes import StepPanes

    app = make(model)
    collector.settle()  # as tinytui.cli.run_app does before the app runs
    out: dict[str, float] = {}
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        out["floor"] = await floor(pilot, 30)
        per_step: dict[int, list[float]] = {}
        for _ in range(repeats):
            await timed(pilot, "g")
            for step in range(2, 17):
                per_step.setdefault(step, []).append(await timed(pilot, "n"))
            per_step.setdefault(1, []).append(await timed(pilot, "g"))
        medians = {s: statistics.median(v) for s, v in per_step.items()}
        out["n median"] = statistics.median(medians.values())
        out["n max"] = max(medians.values())
        out["n slowest step"] = max(medians, key=medians.get)
        # an edit at step 9 (W_O): open the editor, type, Enter → highlights drawn
        await timed(pilot, "9")
        panes = app.query_one(StepPanes)
        g = next(g for g in panes.grids() if g.spec.key.endswith("W_O"))
        enters, chars = [], []
        for i in range(repeats):
            g.focus()
            g.move_to(0, 0)
            await pilot.pause()
            await timed(pilot, "enter")
            for ch in f"0.{i + 1}5":
                chars.append(await timed(pilot, ch))
            enters.append(await timed(pilot, "enter"))
            g = next(g for g in panes.grids() if g.spec.key.endswith("W_O"))
        out["enter"] = statistics.median(enters)
        out["char"] = statistics.median(chars)
        out["d"] = statistics.median([await timed(pilot, "d") for _ in range(repeats)])
        # b enters the walk, b leaves it: time both
        await timed(pilot, "9")
        out["b"] = statistics.median([await timed(pilot, "b") for _ in range(2 * repeats)])
        assert isinstance(g, Grid)
    return out


FIRST_FRAME = """
import time, sys
t0 = time.perf_counter()
import asyncio
from tinytui.app import TinyTuiApp
from tinytui.model import load_default
from tinytui.session import Session, State
from tinytui.model import Switches
from tinytui.model.trace import DEFAULT_LR
m = load_default()
app = TinyTuiApp(Session(m, State(m.params, m.prompt, m.target, Switches(), DEFAULT_LR)))
async def main():
    async with app.run_test(size=(120, 40)) as pilot:
        app.screen._on_timer_update()
        print(time.perf_counter() - t0)
asyncio.run(main())
"""


def first_frame(repeats: int) -> tuple[float, float]:
    """(import → first frame inside the process, the whole process start → first frame), medians."""
    inner, outer = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", FIRST_FRAME], capture_output=True, text=True, check=True)
        outer.append(time.perf_counter() - t0)
        inner.append(float(done.stdout.split()[-1]))
    return statistics.median(inner), statistics.median(outer)


TARGETS = {"n median": 2, "n max": 4, "enter": 2, "char": 1.5, "d": 3, "b": 3}


def report(name: str, r: dict[str, float], lines: list[str]) -> None:
    f = r["floor"]
    lines.append(f"{name}: pause floor {f * 1e3:.1f} ms")
    for key, target in TARGETS.items():
        lines.append(f"  {key:<9} {r[key] * 1e3:7.1f} ms  {r[key] / f:5.1f}× floor  (target ≤ {target}×)")
    lines.append(f"  slowest n: step {int(r['n slowest step'])}")


def main() -> None:
    quick = "--quick" in sys.argv
    repeats = 2 if quick else 5
    lines = [
        f"machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        f"headless Pilot {SIZE[0]}×{SIZE[1]}; medians of {repeats} runs",
    ]
    chapter = asyncio.run(measure(load_default(), repeats))
    report("chapter model (172 parameters)", chapter, lines)
    big = asyncio.run(measure(big_model(), repeats))
    report("d_model 64 / 4 heads / 2 blocks / vocab 64 / 16 tokens", big, lines)
    lines.append("  d 64 ÷ chapter: " + ", ".join(f"{k} {big[k] / chapter[k]:.2f}" for k in TARGETS))
    inner, outer = first_frame(3 if quick else 5)
    lines.append(f"first frame: {inner:.2f} s from the first import, {outer:.2f} s from process start")
    lines.append("  (target ≤ 0.5 s)")
    text = "\n".join(lines)
    print(text)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(text + "\n")


if __name__ == "__main__":
    main()
