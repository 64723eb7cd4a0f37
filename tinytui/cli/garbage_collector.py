"""How the debugger's process runs Python's cycle collector.

Everything made before the app runs lives as long as it does: the model, its vocabulary and its tokenizer
(at GPT-2, some 150,000 strings and tuples). Frozen, the collector never walks them again; it walked
them in each of the hundreds of collections a GPT-2 backward sets off (~0.13 s of `d` at step 14).

Drawing a screen makes tens of thousands of short-lived containers (Textual's strips, each with its own
caches, Rich's segments and styles). At Python's default of a young collection every 700 new containers,
a step change of the d_model-64 model set off some 30 young, 3 middle and now and then a full
collection (~30 ms, a frame and a half): 12 ms of collector time a step in all. Collecting the young
every 10,000 walks what survives fewer times over, and leaves the full collection for long sessions:
6.5 ms a step, in young collections of ~2 ms and a middle one (~18 ms) every seven or eight steps
(measured over 30 step changes; benchmarks/bench_view.py measures its keys with this on).
"""

from __future__ import annotations

import gc

YOUNG = 10_000  # new containers between young collections (Python's default: 700)


def pause() -> None:
    """No collection while the program loads (tinytui.cli.launch); settle or resume turns it back on."""
    gc.disable()


def resume() -> None:
    """Collect as usual again (every command but the app, once its arguments are read), what loaded
    during the pause frozen first: its modules, classes and functions live as long as the process, and
    the first collections after the pause would walk them all (`tinytui print`: ~7 % of its work)."""
    if not gc.isenabled():  # paused (launch), not a caller's own collector, a test's say
        gc.freeze()
    gc.enable()


def settle() -> None:
    """Freeze what exists now and collect the young less often: call once, before the app runs."""
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG, middle, old)
    gc.enable()
