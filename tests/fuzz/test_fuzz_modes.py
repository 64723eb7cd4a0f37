"""Seeded key sequences that start in a mode (the backward walk, practice, the gallery, generation, the
watch pane, patching, two runs, the presenter, recording, help, notices, the palette, one token, a full
context, and from the palette the logit lens, a compare with another prompt or model, the parameter
editor, sampling) on a model (the chapter's, its Llama twin, woodland, `tinytui new` models of three
blocks with grouped K/V heads, of a one-token vocabulary and context, of GPT-2's family one number wide,
of tokens that look like markup or are emoji, wide or 100 characters long, and a recording replayed),
every other one shrinking the terminal to 20×5, 1×1 and 40×10 in that mode and back: the same checks as
test_fuzz_keys (tests/fuzz/keys.py run_mode_sequence).

A few here, spread over the modes and models; every pair with TINYTUI_FUZZ_MODES=160 (or more: the
seeds go round them again with other keys), or thousands by hand: benchmarks/fuzz_keys.py --modes.
"""

import os

import pytest

from tests.fuzz.keys import MODELS, MODES, mode_and_model, run_mode_sequence

SEQUENCES = int(os.environ.get("TINYTUI_FUZZ_MODES", "0"))
LENGTH = int(os.environ.get("TINYTUI_FUZZ_LENGTH", "10"))
SEEDS = list(range(SEQUENCES)) if SEQUENCES else [0, 11, 22, 33, 44, 55]  # odd ones shrink


@pytest.mark.parametrize("seed", SEEDS)
async def test_keys_from_a_mode(seed, tmp_path):
    counts = await run_mode_sequence(seed, LENGTH)
    assert counts.failures == []
    assert all(p.resolve().is_relative_to(tmp_path) for p in tmp_path.rglob("*"))


def test_the_seeds_go_round_every_mode_and_model():
    pairs = {mode_and_model(seed) for seed in range(len(MODES) * len(MODELS))}
    assert pairs == {(mode, model) for mode in MODES for model in MODELS}
