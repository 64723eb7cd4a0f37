"""The practice questions on the chapter model: every cell of steps 5–15, forward and backward, answered
with its true value to 4 decimals is graded right, and 1e-3 off is graded wrong with its three hints.
(tests/practice/test_fair_grading.py grades answers worked from the operands as shown.)"""

from __future__ import annotations

import pytest

from tinytui.lesson.practice.grading import accepted, grade
from tinytui.lesson.practice.hints import RUNGS, hint, ladder, lit
from tinytui.lesson.practice.questions import QuestionError, step_names, step_questions
from tinytui.lesson.texts.display_names import in_formula
from tinytui.lesson.why.explain import explain
from tinytui.lesson.why.why import num
from tinytui.model.backward.gradients import Gradients

STEPS = range(5, 16)


@pytest.fixture(scope="module")
def run(chapter, trace):
    return trace, chapter.params, Gradients(chapter.params, trace)


@pytest.mark.parametrize("backward", [False, True], ids=["forward", "backward"])
@pytest.mark.parametrize("number", STEPS)
def test_every_cell_graded(run, number, backward):
    trace, params, grads = run
    qs = step_questions(trace, params, number, backward, grads=grads)
    names = step_names(trace, params, number, backward)
    arrays = {n: (trace[n] if n in trace else grads[n]) for n in names}
    assert len(qs) == sum(a.size for a in arrays.values())  # every cell of every tensor the step makes
    for q in qs:
        true = float(arrays[q.name][q.index])
        assert q.value == true
        shown = f"{true:.4f}"  # the 4 decimals the app shows
        ok = accepted(q.why)
        assert grade(shown, ok).correct, (q.cell(), shown, true)
        assert grade(num(true), ok).correct  # as the app writes it, with the Unicode minus
        for off in (1e-3, -1e-3):
            wrong = grade(f"{true + off:.6f}", ok)
            assert not wrong.correct and wrong.said == "not quite", (q.cell(), true, off)
        rungs = ladder(q)
        assert len(rungs) == RUNGS and len(set(rungs)) == RUNGS
        assert (
            rungs[1] == in_formula(q.why.formula) and rungs[2] == f"{q.cell()} = {in_formula(q.why.filled)}"
        )
        cells = lit(q)
        assert rungs[0].startswith("computed from ") if cells else "no other cell" in rungs[0]
        assert {(o.name, o.index) for o in q.why.operands} == set(cells)


def test_what_steps_ask(run):
    trace, params, grads = run
    assert step_names(trace, params, 7) == ("blocks.0.scores.1", "blocks.0.scores.2")
    assert step_names(trace, params, 9, backward=True) == (
        "grad.blocks.0.head.1",
        "grad.blocks.0.head.2",
        "grad.blocks.0.W_O",
        "grad.blocks.0.attn.1",
        "grad.blocks.0.attn.2",
        "grad.blocks.0.v.1",
        "grad.blocks.0.v.2",
    )
    assert step_names(trace, params, 14, backward=True) == ("grad.E.unembed", "grad.z")
    assert len(step_questions(trace, params, 7)) == 32  # two 4×4 score tables
    assert step_questions(trace, params, 16) == ()  # the count computes nothing to check
    assert step_questions(trace, params, 3, backward=True, grads=grads) == ()


def test_hints_of_one_score(run):
    trace, params, _ = run
    (q,) = [
        q for q in step_questions(trace, params, 7) if q.name == "blocks.0.scores.2" and q.index == (1, 0)
    ]
    assert hint(q, 1) == "computed from Q_2[1,0], K_2[0,0], Q_2[1,1], K_2[0,1]"
    assert hint(q, 2) == "S_2[1,0] = (Q_2[1] · K_2[0]) / √2"
    assert hint(q, 3) == "S_2[1,0] = (−1.3145·0.5773 + 0.7194·0.5773) / 1.4142"
    assert hint(q, 9) == hint(q, 3)  # past the top rung the last one repeats
    assert q.value == pytest.approx(-0.2429, abs=5e-5)
    assert q.to_json()["shown"] == "S_2[1,0]"
    assert q.to_json()["formula"] == "scores.2[1,0] = (q.2[1] · k.2[0]) / √2"  # what why reads
    assert [(o["name"], o["index"], o["shown"]) for o in q.to_json()["operands"]] == [
        ("blocks.0.q.2", [1, 0], "Q_2[1,0]"),
        ("blocks.0.k.2", [0, 0], "K_2[0,0]"),
        ("blocks.0.q.2", [1, 1], "Q_2[1,1]"),
        ("blocks.0.k.2", [0, 1], "K_2[0,1]"),
    ]


def test_a_seeded_sample(run):
    trace, params, grads = run
    every = step_questions(trace, params, 11, True, grads=grads)
    five = step_questions(trace, params, 11, True, count=5, seed=3, grads=grads)
    assert len(five) == 5 and five == step_questions(trace, params, 11, True, count=5, seed=3, grads=grads)
    assert five != step_questions(trace, params, 11, True, count=5, seed=4, grads=grads)
    order = [every.index(q) for q in five]
    assert order == sorted(order)  # a sample keeps the walk's order
    assert step_questions(trace, params, 11, True, count=10_000, grads=grads) == every


@pytest.mark.parametrize(
    ("kw", "says"),
    [
        ({"number": 17}, "there is no step 17: the steps are 1–16"),
        ({"number": 16, "backward": True}, "there is no step 16: the backward walk's steps are 2–15"),
        ({"number": 7, "block": 1}, "the model has no block 2: it has 1"),
        ({"number": 7, "count": 0}, "0 asks nothing: ask at least one cell"),
    ],
)
def test_refusals(run, kw, says):
    trace, params, _ = run
    with pytest.raises(QuestionError) as exc:
        step_questions(trace, params, **kw)
    assert str(exc.value) == says


def test_explain_with_new_gradients_of_the_same_run(run):
    """explain() used to compare a new Gradients of the same run with == (a Mapping of arrays) and fail."""
    trace, params, grads = run
    explain(trace, params, "grad.logits", (0,), grads)
    assert (
        explain(trace, params, "grad.logits", (0,), Gradients(params, trace)).value == grads["grad.logits"][0]
    )
