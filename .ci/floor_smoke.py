"""Smoke test on the declared floor of every dependency (run by .ci/run in a second environment).

`tinytui print --step 8` in a child process, and step 14 of the tiny GPT-2 checkpoint folder the tests
ship (its BPE needs tokenizers, its weights safetensors), then the debugger in a Pilot: n, a weight
edited in place, m (the causal mask), b (the backward walk) and q. Exit 0 when each did what it should,
else 1 with one line saying which did not. Only keys are pressed, so it does not depend on how the
view is built.

    python .ci/floor_smoke.py
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def fail(what: str) -> int:
    print(f"floor smoke test: {what}")
    return 1


async def drive() -> str | None:
    from textual.widgets import Input

    from tinytui.model.io.model_file import load_default
    from tinytui.session.session import Session
    from tinytui.tui.app import TinyTuiApp

    app = TinyTuiApp(Session(load_default()))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("n")
        await pilot.pause()
        if app.session.step != 2:
            return f"n went to step {app.session.step}, not 2"
        await pilot.press("9")
        before = app.session.params
        for _ in range(8):  # Tab to the first table whose cell Enter opens an editor on, type 0.5, Enter
            await pilot.press("tab")
            await pilot.pause()
            await pilot.press("enter")
            await pilot.pause()
            if isinstance(app.focused, Input) or getattr(app.focused, "editing", False):
                for key in (*"0.5", "enter"):
                    await pilot.press(key)
                    await pilot.pause()
                break
            await pilot.press("escape")
            await pilot.pause()
        else:
            return "no weight could be edited at step 9"
        edited = [n for n in before if (app.session.params[n] != before[n]).any()]
        if len(edited) != 1:
            return f"an edit changed {len(edited)} weights"
        mask = app.session.trace.switches.causal_mask
        await pilot.press("m")
        await pilot.pause()
        if app.session.trace.switches.causal_mask == mask:
            return "m did not toggle the causal mask"
        await pilot.press("b")
        await pilot.pause()
        if not app.session.mode.backward:
            return "b did not open the backward walk"
        await pilot.press("q")
        await pilot.pause()
    if app.return_code not in (0, None):
        return f"the app exited with {app.return_code}"
    return None


def run_print(*args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "tinytui", "print", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT)


def main() -> int:
    for args, expect in (
        (("--step", "8"), "Causal mask and softmax"),
        (("--model", str(ROOT / "tests/gpt2/fixtures/tiny-gpt2"), "--step", "14"), "Tied unembedding"),
    ):
        done = run_print(*args)
        if done.returncode != 0 or expect not in done.stdout:
            said = done.stderr.strip()[-300:]
            return fail(f"tinytui print {' '.join(args)} exited {done.returncode}: {said}")
    problem = asyncio.run(drive())
    if problem:
        return fail(problem)
    names = ("textual", "rich", "numpy", "safetensors", "textual-serve", "tokenizers")
    found = ", ".join(f"{name} {version(name)}" for name in names)
    print(f"floor smoke test: print, n, an edit, m, b and q work on {found}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
