"""tinytui why and the inspector: every line of an explanation adds something. A weight or a constant has
nothing to fill in, so its value is said once, not as "= 0" and again as "= 0.0000"."""

from __future__ import annotations

import itertools
import re

import pytest

from tinytui.cli.main import main
from tinytui.lesson.why.explain import explain, names_of
from tinytui.lesson.why.why import num
from tinytui.model.backward.gradients import gradients
from tinytui.model.io.model_file import load_default
from tinytui.model.switches import Switches
from tinytui.model.trace import run

BARE_NUMBER = re.compile(r"^\s*[−-]?\d+(\.\d+)?\s*$")


def equal_lines(out: str) -> list[str]:
    """The '  = …' lines of why's text that say the same number as the line before."""

    def value(line: str) -> str | None:
        body = line.removeprefix("  = ")
        return num(float(body.replace("−", "-"))) if BARE_NUMBER.match(body) else None

    said = [value(line) for line in out.splitlines() if line.startswith("  = ")]
    return [a for a, b in itertools.pairwise(said) if a is not None and a == b]


@pytest.mark.parametrize(
    "args",
    [
        ["why", "W_O[h2.k0, thing]"],
        ["why", "E[a, thing]"],
        ["--no-mask", "why", "mask[0,0]"],
        ["--no-pe", "why", "pe[1,2]"],
        ["why", "grad.y[0,0]"],
    ],
)
def test_a_weight_or_a_constant_says_its_value_once(capsys, args):
    rc = main(args)
    out = capsys.readouterr().out
    assert rc == 0
    assert equal_lines(out) == [], out


@pytest.mark.parametrize(
    "switches",
    [
        Switches(),
        Switches(causal_mask=False, positional_encoding=False, ablated_heads={1}),
        Switches(residual=False, norm="post"),
    ],
)
def test_no_explanation_fills_in_only_its_own_value_at_another_precision(switches):
    """What the inspector and why print drop `filled` when it is the result; a bare number that reads as
    the result must therefore be the result's own text."""
    chapter = load_default()

    def shape(name: str) -> tuple[int, ...]:
        return (trace[name] if name in trace else chapter.params[name]).shape

    trace = run(chapter.params, chapter.prompt, chapter.target, switches)
    grads = gradients(chapter.params, trace)
    for name in names_of(trace, chapter.params, grads):
        for index in itertools.product(*map(range, grads[name].shape if name in grads else shape(name))):
            why = explain(trace, chapter.params, name, index, grads)
            if BARE_NUMBER.match(why.filled) and name != "ids":
                read = num(float(why.filled.replace("−", "-")))
                assert read != why.result or why.filled == why.result, (name, index, why.filled)


def test_the_inspector_says_a_mask_cell_once():
    from tinytui.present.provenance_words import provenance_text

    chapter = load_default()
    trace = run(chapter.params, chapter.prompt, chapter.target, Switches(causal_mask=False))
    text = provenance_text(explain(trace, chapter.params, "mask", (0, 0)), "", "", 118, 3)
    assert text.endswith("every other) = 1.0000"), text
