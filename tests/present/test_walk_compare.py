"""A two-run compare in the backward walk: each gradient table as A, B and B − A, like the forward steps."""

import numpy as np

from tinytui.model.backward.gradients import Gradients
from tinytui.model.trace import run
from tinytui.present.backward_tables import pane_sections, walk_steps
from tinytui.present.grid_spec import KeptSpecs
from tinytui.present.view import View
from tinytui.session.session import Session


def items_of(sections) -> dict:
    return {item.key: item for sec in sections for row in sec.rows for item in row}


def walk_at(chapter, step: int) -> Session:
    s = Session(chapter)
    s.goto(step, backward=True)
    return s


def test_every_walk_step_compared_with_itself_is_zeros(chapter):
    s = walk_at(chapter, 15)
    s.compare_with("pinned")
    for step in walk_steps(View.of(s)):
        s.goto(step, backward=True)
        sections = pane_sections(View.of(s))
        assert sections[0].title.startswith("Two runs — A: the state pinned · B: now")
        items = items_of(sections)
        d_keys = [k for k in items if k.startswith("compare-d:")]
        for key in d_keys:
            base = key.removeprefix("compare-d:")
            assert "compare-a:" + base in items and base in items  # A, B and B − A, side by side
            assert {c for r in items[key].cells for c in r} <= {"0.0000", "·"}, (step, key)
            assert all(m == frozenset() for r in items[key].marks for m in r if "masked" not in m)


def test_a_walk_gradient_after_an_edit_is_b_minus_a_with_its_sign(chapter):
    s = walk_at(chapter, 9)  # heads combined: ∂L/∂W_O among its weights' gradients
    s.compare_with("file")
    s.edit("W_O", (0, 0), 2.0)
    items = items_of(pane_sections(View.of(s)))
    key = next(k for k in items if k.startswith("compare-d:grad:") and k.endswith("W_O"))
    base = key.removeprefix("compare-d:")
    a_params = chapter.params
    a_trace = run(a_params, s.state.prompt, s.state.target, s.state.switches)
    a_grad = Gradients(a_params, a_trace)["grad.blocks.0.W_O"]
    b_grad = s.gradients["grad.blocks.0.W_O"]
    name, index = items[base].sources[0][0]
    assert name == "grad.blocks.0.W_O"
    want = float(b_grad[index] - a_grad[index])
    d = items[key]
    assert d.values[0][0] == want and want != 0.0
    assert d.marks[0][0] == frozenset({"changed-up" if want > 0 else "changed-down"})
    assert items["compare-a:" + base].values[0][0] == float(a_grad[index])
    assert d.details[0][0].startswith("B − A · ∂L/∂W_O[0,0]: A (the model file as loaded) = ")


def test_walk_step_15_compares_p_and_its_gradient(chapter):
    s = walk_at(chapter, 15)
    s.compare_with("prompt", "a much would chuck")
    items = items_of(pane_sections(View.of(s)))
    d = items["compare-d:grad:grad.logits"]
    a_trace = run(s.params, ("a", "much", "would", "chuck"), s.state.target, s.state.switches)
    b_trace = s.trace
    wood = chapter.cfg.token_id("wood")
    row = next(r for r, label in enumerate(d.rows) if label.startswith("wood"))
    assert np.isclose(d.values[row][0], b_trace["probs"][wood] - a_trace["probs"][wood])
    assert np.isclose(d.values[row][1], b_trace["probs"][wood] - a_trace["probs"][wood])  # ∂L/∂ℓ = p − 1


def test_compared_tables_are_kept_while_nothing_changes_and_follow_what_a_is(chapter):
    s = Session(chapter)
    s.goto(9)
    kept = KeptSpecs()
    s.compare_with("pinned")
    first = items_of(pane_sections(View.of(s, kept=kept)))["compare-d:output:blocks.0.mha"]
    again = items_of(pane_sections(View.of(s, kept=kept)))["compare-d:output:blocks.0.mha"]
    assert again is first  # made once: a view is made on every key
    s.compare_with("file")  # the same weights and prompt, so the same run: another A all the same
    d = items_of(pane_sections(View.of(s, kept=kept)))["compare-d:output:blocks.0.mha"]
    assert "A (the model file as loaded)" in d.details[0][0]
    s.edit("W_O", (0, 0), 2.0)
    d = items_of(pane_sections(View.of(s, kept=kept)))["compare-d:output:blocks.0.mha"]
    assert any(c != "0.0000" for row in d.cells for c in row)
