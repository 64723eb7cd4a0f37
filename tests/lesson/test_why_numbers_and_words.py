"""Every cell's "why" holds for its numbers, on every cell of the chapter's model, the trained preset and
random models up to huge weights (scores in the hundreds, probabilities of 1e−45, SiLU of −2800):

- the operands recompute the value;
- "= result" is written only when the numbers on the line give the result at the places shown, and
  "≈ result (these rounded numbers give X)" says truly what they give;
- the words about the numbers are true of them: a unit that "did not fire" had h ≤ 0, a "dead unit" had
  h_pre ≤ 0, a "masked" key is after its query, "the largest" score is the largest;
- a negative factor of a product is bracketed, so "·−" never reads as a subtraction.

TINYTUI_WHY_MODELS=N adds N more random models (seeded) when run by hand."""

from __future__ import annotations

import math
import os
import re
from functools import cache

import numpy as np
import pytest

from tests.model.reference_backward import LLAMA_ALL
from tests.random_models import config, named_run, weights
from tinytui.lesson.why.explain import explain, names_of
from tinytui.lesson.why.why import num, result_text
from tinytui.lesson.why.written import last_piece, value_of
from tinytui.model.backward.gradients import Gradients
from tinytui.model.trace import run

MORE = int(os.environ.get("TINYTUI_WHY_MODELS", "0"))
MODELS = (
    "chapter17",
    "chapter17-trained",
    "random ×3",
    "random ×20",
    "random-llama ×20",
    *(f"random #{seed}" for seed in range(MORE)),
)


@cache
def model(name: str):
    """(params, trace, gradients)."""
    if name.startswith("random-llama"):
        cfg = config(6, 4, 2, 6, 7, 1, **{**LLAMA_ALL, "n_kv_heads": 2})
        params = weights(np.random.default_rng(21), cfg, 20.0)
        prompt, target = ("t1", "t2", "t3"), "t4"
    elif name.startswith("random #"):
        rng = np.random.default_rng(int(name[8:]))
        shape = [int(n) for n in rng.integers(2, 6, 4)]
        params = weights(
            rng, config(shape[0] * 2, 2, shape[1], shape[2] * 2, 7, 2), float(rng.choice([0.5, 3, 30]))
        )
        prompt, target = ("t1", "t2", "t3", "t1"), "t4"
    else:
        return named_run(name, float(name.split("×")[1]) if name.startswith("random") else 3.0)
    trace = run(params, prompt, target)
    return params, trace, Gradients(params, trace)


def every_why(name: str):
    params, trace, grads = model(name)
    for n in names_of(trace, params, grads):
        shape = trace[n].shape if n in trace else grads[n].shape if n in grads else params[n].shape
        for ix in np.ndindex(shape):
            yield explain(trace, params, n, ix, grads)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the forward pass of ×20 weights overflows exp
@pytest.mark.parametrize("name", MODELS)
def test_every_cells_numbers_and_words_hold(name):
    untrue = []
    for why in every_why(name):
        cell = f"{why.name}{list(why.index)}"
        if math.isfinite(why.value):
            again = why.evaluate()
            if not math.isclose(again, why.value, rel_tol=1e-7, abs_tol=1e-9):
                untrue.append((cell, "recomputes to", again, why.value))
        said = numbers_said(why)
        if why.ending.startswith("=") and said is not None and result_text(why.name, said) != why.result:
            untrue.append((cell, "says =", why.filled, why.ending))
        if why.ending.startswith("≈") and (said is None or result_text(why.name, said) == why.result):
            untrue.append((cell, "says ≈", why.filled, why.ending))
        untrue += [(cell, claim) for claim in false_words(why)]
    assert untrue == []


def numbers_said(why) -> float | None:
    """What the numbers the line writes give: its last arithmetic, or (when terms are left out) the
    formula on the operands as shown."""
    written = value_of(last_piece(why.filled))
    if written is None and why.operands:
        try:
            written = why.evaluate(why.shown_operands())
        except (ValueError, ZeroDivisionError, OverflowError):
            return None
    return written


def false_words(why) -> list[str]:
    text = f"{why.formula}   {why.filled}"
    ops = why.operands
    out = []
    if "did not fire" in text and not ops[-1].value <= 0:
        out.append(f"did not fire, but h = {ops[-1].value}")
    if "a dead unit" in text and not ops[-1].value <= 0:
        out.append(f"dead unit, but h_pre = {ops[-1].value}")
    if m := re.search(r"key (\d+) is after query (\d+)", text):
        key, query = int(m[1]), int(m[2])
        if not key > query or (key, query) != (why.index[1], why.index[0]):
            out.append(f"key {key} after query {query} at {why.index}")
    if "attn is exactly 0 here" in text:
        here = [
            o.value
            for o in ops
            if o.name.startswith("blocks.") and ".attn." in o.name and o.index == why.index
        ]
        if not here or any(here):
            out.append(f"attn exactly 0, but it is {here}")
    if m := re.search(r"\(positions? ([\d, ]+)\)", text):
        ids = [int(o.value) for o in ops if o.name == "ids"]
        if [int(p) for p in m[1].split(", ")] != [p for p, t in enumerate(ids) if t == why.index[0]]:
            out.append(f"positions {m[1]}, but the ids are {ids}")
    if m := re.search(r"each score less the largest, (\S+):", text):
        scores = [o.value for o in ops if o.name != "mask"]
        if m[1] != num(max(scores)):
            out.append(f"the largest is {num(max(scores))}, not {m[1]}")
    if "·−" in why.filled:  # a negative factor is bracketed, 0.5·(−0.3), as every product writes it
        out.append(f"an unbracketed negative factor in {why.filled}")
    written_p = (m := re.search(r"−log (\S+)", why.filled)) and value_of(m[1])
    if m and math.isfinite(why.value) and written_p in (0.0, None):
        out.append(f"the log of {m[1]}, a probability written as no positive number")
    return out
