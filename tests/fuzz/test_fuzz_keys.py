"""Seeded random key sequences at 120×40, 80×24, 60×20, 40×12 and 20×6 (tests/fuzz/keys.py), palette
entries, mouse clicks and wheel turns among them: the app stays alive, the trace is always a fresh
recompute of the state, and undo goes back to the model bit for bit.

A short run here (24 sequences of 12 keys, each seed its own test so the cores share them); more with
TINYTUI_FUZZ=N (sequences) and TINYTUI_FUZZ_LENGTH=K, or thousands by hand: benchmarks/fuzz_keys.py.
"""

import os

import pytest

from tests.fuzz.keys import HOSTILE, KEYS, SIZES, plan, run_sequence

SEQUENCES = int(os.environ.get("TINYTUI_FUZZ", "24"))
LENGTH = int(os.environ.get("TINYTUI_FUZZ_LENGTH", "12"))


@pytest.mark.parametrize("seed", range(SEQUENCES))
async def test_random_keys(seed, tmp_path):
    counts = await run_sequence(seed, LENGTH)
    assert counts.failures == []
    assert all(p.resolve().is_relative_to(tmp_path) for p in tmp_path.rglob("*"))


def test_the_plans_cover_every_size_and_the_hostile_strings():
    plans = [plan(seed, LENGTH) for seed in range(SEQUENCES)]
    assert {size for size, _ in plans} == set(SIZES)
    assert {"ctrl+p", "tab", "shift+tab", "escape", "enter", "n", "u", "ctrl+t", "ctrl+s", "T"} <= set(KEYS)
    assert {"", "nan", "1e309", "x" * 5000, "\u202e1"} <= set(HOSTILE)
    assert {kind for _, steps in plans for kind, _ in steps} >= {"entry", "click", "wheel"}
    assert plan(7, LENGTH) == plan(7, LENGTH)  # seeded: a failure's seed reproduces it
