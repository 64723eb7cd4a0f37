"""How fast a key reaches the screen, in a headless Pilot at 120×40. Run by hand (never as a timed test):

python benchmarks/bench_view.py            # both models, writes benchmarks/results/view.txt
python benchmarks/bench_view.py --quick    # fewer repeats

Every figure is printed beside the floor measured in the same run: `await pilot.pause()` alone (what a
Pilot costs to wait for idle and draw a screen with nothing changed). A figure is: the key event sent to
the driver (as Pilot.press makes it, without its own two waits for idle) → one pause, so it includes
that floor; a key that changes nothing measures 1×. The pause waits in 20 ms windows until one passes
with under 1 ms of work, so any key whose drawing still runs after its messages are handled costs a
second window (≈ 2×). Beside it, two figures the idle windows do not round: key → the last frame
written to the terminal (the screen updated), and the process's CPU time for the key. Models: the
chapter's (172 parameters) and a seeded random one at d_model 64, 4 heads, 2 blocks, vocab 64 and 16
tokens. Beside them, two bare Textual apps (benchmarks/bare_apps.py): the least a key that draws
anything can measure, and one widget drawing the whole screen anew.
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
from bare_apps import Canvas, OneLine
from textual import events
from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key

from tinytui.cli import collector
from tinytui.model.config import ModelConfig
from tinytui.model.io.document import ModelFile
from tinytui.model.io.model_file import load_default
from tinytui.model.params import Params, param_shapes
from tinytui.model.switches import Switches
from tinytui.model.trace import DEFAULT_LR
from tinytui.session.session import Session
from tinytui.session.state import State
from tinytui.tui.app import TinyTuiApp

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


class Frames:
    """When the app last wrote a frame to its terminal (Textual's App._display, wrapped on this app)."""

    def __init__(self, app) -> None:
        self.last = 0.0
        display = app._display

        def recorded(screen, renderable) -> None:
            display(screen, renderable)
            if renderable is not None:
                self.last = time.perf_counter()

        app._display = recorded


Sample = tuple[float, float, float]  # (key → pause done, key → last frame written, CPU seconds)


async def sample(pilot, *keys: str) -> Sample:
    """Key (or keys) sent → every message handled, the app idle and the screen drawn: one pause; with
    the time to the last frame written (0 when the app has no Frames, or drew nothing) and the CPU."""
    frames: Frames | None = getattr(pilot.app, "frames", None)
    if frames is not None:
        frames.last = 0.0
    t0, cpu = time.perf_counter(), time.process_time()
    for key in keys:
        send(pilot.app, key)
    await pilot.pause()
    done = time.perf_counter()
    drawn = frames.last - t0 if frames is not None and frames.last else 0.0
    return done - t0, drawn, time.process_time() - cpu


async def timed(pilot, *keys: str) -> float:
    """Key (or keys) sent → one pause, in seconds (what the other benchmarks time keys with)."""
    return (await sample(pilot, *keys))[0]


def medians(samples: list[Sample]) -> Sample:
    return tuple(statistics.median(column) for column in zip(*samples))  # type: ignore[return-value]


async def floors(pilot, repeats: int) -> tuple[float, float]:
    """One pause with nothing to do: (its wall time, its CPU time), medians."""
    times, cpus = [], []
    for _ in range(repeats):
        t0, cpu = time.perf_counter(), time.process_time()
        await pilot.pause()
        times.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - cpu)
    return statistics.median(times), statistics.median(cpus)


async def floor(pilot, repeats: int) -> float:
    return (await floors(pilot, repeats))[0]


async def measure(model: ModelFile, repeats: int) -> dict:
    from tinytui.tui.widgets.step_panes import StepPanes

    app = make(model)
    app.frames = Frames(app)  # type: ignore[attr-defined]
    collector.settle()  # as tinytui.cli.run_app does before the app runs
    out: dict = {}
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        out["floor"], out["floor cpu"] = await floors(pilot, 30)
        per_step: dict[int, list[Sample]] = {}
        for _ in range(repeats):
            await sample(pilot, "g")
            for step in range(2, 17):
                per_step.setdefault(step, []).append(await sample(pilot, "n"))
            per_step.setdefault(1, []).append(await sample(pilot, "g"))
        by_step = {s: medians(v) for s, v in per_step.items()}
        out["n median"] = medians(list(by_step.values()))
        slowest = max(by_step, key=lambda s: by_step[s][0])
        out["n max"] = tuple(max(m[i] for m in by_step.values()) for i in range(3))
        out["n slowest step"] = slowest
        # an edit at step 9 (W_O): open the editor, type, Enter → highlights drawn
        await sample(pilot, "9")
        panes = app.query_one(StepPanes)
        enters, chars = [], []
        for i in range(repeats):
            g = next(g for g in panes.grids() if g.spec.key.endswith("W_O"))
            g.focus()
            g.move_to(0, 0)
            await pilot.pause()
            await sample(pilot, "enter")
            for ch in f"0.{i + 1}5":
                chars.append(await sample(pilot, ch))
            enters.append(await sample(pilot, "enter"))
        out["enter"] = medians(enters)
        out["char"] = medians(chars)
        out["d"] = medians([await sample(pilot, "d") for _ in range(repeats)])
        # b enters the walk, b leaves it: time both
        await sample(pilot, "9")
        out["b"] = medians([await sample(pilot, "b") for _ in range(2 * repeats)])
    return out


async def bare(app) -> dict:
    """A bare app's pause floor and its key x's figures (benchmarks/bare_apps.py), in the same Pilot."""
    app.frames = Frames(app)  # type: ignore[attr-defined]
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        floor, _ = await floors(pilot, 30)
        key = medians([await sample(pilot, "x") for _ in range(30)])
    return {"floor": floor, "key": key}


FIRST_FRAME = """
import time, sys, gc
t0 = time.perf_counter()
gc.disable()  # as the tinytui command (tinytui.cli.launch) does while the program loads
import asyncio
from tinytui import collector
from tinytui.tui.app import TinyTuiApp
from tinytui.model import load_default
from tinytui.session.session import Session, State
from tinytui.model import Switches
from tinytui.model.trace import DEFAULT_LR
m = load_default()
app = TinyTuiApp(Session(m, State(m.params, m.prompt, m.target, Switches(), DEFAULT_LR)))
collector.settle()  # as run_app does
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


def report(name: str, r: dict, lines: list[str]) -> None:
    f = r["floor"]
    lines.append(f"{name}: pause floor {f * 1e3:.1f} ms (its CPU {r['floor cpu'] * 1e3:.1f} ms)")
    lines.append("  key        key → pause (target)            key → last frame   CPU")
    for key, target in TARGETS.items():
        wall, frame, cpu = r[key]
        lines.append(
            f"  {key:<9} {wall * 1e3:6.1f} ms {wall / f:4.1f}× floor (≤ {target}×)"
            f"   {frame * 1e3:6.1f} ms {frame / f:4.1f}×   {cpu * 1e3:5.1f} ms"
        )
    lines.append(f"  slowest n: step {int(r['n slowest step'])} (n max: each column's largest step median)")


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
    ratio = ", ".join(f"{k} {big[k][0] / chapter[k][0]:.2f}" for k in TARGETS)
    lines.append(f"  d 64 ÷ chapter (key → pause; target ≤ 1.5): {ratio}")
    ratio = ", ".join(f"{k} {big[k][1] / chapter[k][1]:.2f}" for k in TARGETS)
    lines.append(f"  d 64 ÷ chapter (key → last frame): {ratio}")
    for what, app in (
        ("least a drawing key measures (a bare Textual app, one line changed)", OneLine()),
        ("one widget drawing the whole screen anew (a bare Textual app, 40 lines)", Canvas()),
    ):
        figures = asyncio.run(bare(app))
        wall, frame, cpu = figures["key"]
        lines.append(
            f"{what}: {wall * 1e3:.1f} ms {wall / figures['floor']:.1f}× its floor"
            f" ({figures['floor'] * 1e3:.1f} ms); last frame {frame * 1e3:.1f} ms; CPU {cpu * 1e3:.1f} ms"
        )
    inner, outer = first_frame(3 if quick else 5)
    lines.append(f"first frame: {inner:.2f} s from the first import, {outer:.2f} s from process start")
    lines.append("  (target ≤ 0.5 s)")
    text = "\n".join(lines)
    print(text)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(text + "\n")


if __name__ == "__main__":
    main()
