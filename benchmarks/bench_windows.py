"""How long the biggest tables take to show on a GPT-2-small-shaped model, in a headless Pilot at 120×40.
Run by hand (never as a timed test):

python benchmarks/bench_windows.py                 # the model at /tmp/gpt2-shaped.model.json
python benchmarks/bench_windows.py MODEL [LIMIT]   # another model; LIMIT: seconds one figure may take

Make the model first (a 50,257-word vocabulary, one word a line, with the prompt's words in it):

tinytui new --d 768 --heads 12 --blocks 12 --ff 3072 --vocab VOCAB \\
    --prompt "the cat sat on the mat and then" --target slept -o /tmp/gpt2-shaped.model.json

(the figures in results/ came from such a vocabulary: those words, then w0 … w50241). Before the windows
the same run gave results/windows-before.txt.

Figures: step 2 (the prompt's rows of E, 50,257 × 768), step 6 (W_Q, W_K, W_V: 12 heads × 768 × 64 each),
step 14 (E again, beside the logits), the parameter browser on blocks.0.W_1 (768 × 3,072) and one page
of panning in it. Each is the call that makes the change → one `await pilot.pause()` (the app idle and
the screen drawn), printed beside that pause alone as the floor. Each figure runs in a fresh process
capped at 6 GB of address space and LIMIT seconds (default 300), so a table too big to build is
reported as such instead of taking the machine with it. Results also go to benchmarks/results/windows.txt.
"""

from __future__ import annotations

import asyncio
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_view import floor as pause_floor  # `await pilot.pause()` alone, the median of some

RESULTS = Path(__file__).parent / "results" / "windows.txt"
MODEL = "/tmp/gpt2-shaped.model.json"
SIZE = (120, 40)
MEMORY_CAP = 6 * 2**30
FIGURES = {
    "step 2": "the prompt's rows of E",
    "step 6": "W_Q, W_K, W_V of block 1",
    "step 14": "E beside the logits",
    "browser W_1": "Edit parameter… on blocks.0.W_1",
    "browser pan": "one page down in the browser (J)",
}


async def _measure(path: str, figure: str) -> tuple[float, float, str]:
    """(seconds the figure took, the pause floor, what was on screen) in this process."""
    from tinytui.model.io.model_file import load
    from tinytui.model.switches import Switches
    from tinytui.model.trace import DEFAULT_LR
    from tinytui.session.session import Session
    from tinytui.session.state import State
    from tinytui.tui.app import TinyTuiApp
    from tinytui.tui.screens.param_browser import ParamScreen
    from tinytui.tui.widgets.step_view import StepView

    model = load(path)
    app = TinyTuiApp(Session(model, State(model.params, model.prompt, model.target, Switches(), DEFAULT_LR)))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        floor = await pause_floor(pilot, 10)
        if figure == "browser pan":
            app.edits.edit_parameter("blocks.0.W_1")
            while not isinstance(app.screen, ParamScreen) or not app.screen.query(StepView):
                await pilot.pause()
            await pilot.pause()
        t0 = time.perf_counter()
        if figure.startswith("step"):
            app.steps.goto(int(figure.split()[1]), 0)
            await pilot.pause()
        elif figure == "browser W_1":
            app.edits.edit_parameter("blocks.0.W_1")
            await pilot.pause()
            while not isinstance(app.screen, ParamScreen) or not app.screen.query(StepView):
                await pilot.pause()  # pushing a screen takes a few frames: count them all
        else:
            await pilot.press("J")
        took = time.perf_counter() - t0
        grids = app.screen.query(StepView)
        shown = ", ".join(f"{g.spec.title} {g.spec.shape[0]}×{g.spec.shape[1]}" for g in grids if g.display)
    return took, floor, shown


def _child(path: str, figure: str) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
    try:
        took, floor, shown = asyncio.run(_measure(path, figure))
    except MemoryError:
        print("RESULT memory")
        return
    print(f"RESULT {took} {floor} {shown}")


def _run(path: str, figure: str, limit: float) -> str:
    try:
        done = subprocess.run(
            [sys.executable, __file__, "--child", path, figure],
            capture_output=True,
            text=True,
            timeout=limit,
        )
    except subprocess.TimeoutExpired:
        return f"  {figure:<12} > {limit:.0f} s (stopped)  {FIGURES[figure]}"
    line = next((x for x in done.stdout.splitlines() if x.startswith("RESULT")), "")
    if not line:
        return f"  {figure:<12} failed: {(done.stderr.strip().splitlines() or ['?'])[-1]}"
    _, took, *rest = line.split(" ", 3)
    if took == "memory":
        return f"  {figure:<12} out of memory (over {MEMORY_CAP // 2**30} GB)  {FIGURES[figure]}"
    floor, shown = rest[0], rest[1] if len(rest) > 1 else ""
    t, f = float(took), float(floor)
    return (
        f"  {figure:<12} {t * 1e3:9.1f} ms  {t / f:7.1f}× floor ({f * 1e3:.1f} ms)  {FIGURES[figure]}\n"
        f"  {'':<12} shown: {shown}"
    )


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        _child(sys.argv[2], sys.argv[3])
        return
    path = sys.argv[1] if len(sys.argv) > 1 else MODEL
    limit = float(sys.argv[2]) if len(sys.argv) > 2 else 300.0
    if not Path(path).exists():
        sys.exit(f"no model at {path}: make one as this script's docstring says")
    lines = [
        f"machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        f"model {path}; headless Pilot {SIZE[0]}×{SIZE[1]}; one fresh process per figure",
    ]
    print("\n".join(lines), flush=True)
    for figure in FIGURES:
        lines.append(_run(path, figure, limit))
        print(lines[-1], flush=True)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
