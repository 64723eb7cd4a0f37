"""An edited weight's inspector line gives the model file's number and the change; where the two printed
numbers, each rounded, give another difference than the change itself, the line says the change is the
one before rounding."""

import re

from tinytui.model.io.checkpoint import load_model
from tinytui.model.io.presets import resolve
from tinytui.present.backward_tables import pane_sections
from tinytui.present.view import View
from tinytui.session.session import Session

LINE = re.compile(r"= (−?[\d.]+)  \(model file (−?[\d.]+), Δ ([+−-][\d.]+)( before rounding)?\)")


def test_a_learning_steps_change_is_checkable_from_the_printed_numbers():
    s = Session(load_model(resolve("chapter17-trained")))
    s.learn_step()
    s.goto(2)
    (e,) = [g for sec in pane_sections(View.of(s)) for row in sec.rows for g in row if g.key == "param:E"]
    lines = [d for row in e.details for d in row]
    assert "E[how, d3] = −0.0340  (model file −0.0355, Δ +0.0014 before rounding)  · Enter to edit" in lines
    said = [LINE.search(d).groups() for d in lines]
    assert len(said) == 32 and any(m[3] for m in said) and not all(m[3] for m in said)
    for now, was, delta, note in said:
        shown = float(now.replace("−", "-")) - float(was.replace("−", "-"))
        assert (f"{shown:+.4f}" != delta.replace("−", "-")) == bool(note)  # said exactly where it differs


def test_a_computed_cells_change_is_checkable_from_the_printed_numbers(chapter):
    """The mask off: A_2[1,0] goes 0.1382 → 0.0458, a difference of 0.0924 as printed, 0.0923 unrounded."""
    s = Session(chapter)
    s.toggle("causal_mask")
    s.goto(8)
    (attn,) = [g for sec in pane_sections(View.of(s)) for row in sec.rows for g in row
               if g.key == "output:blocks.0.attn.{h}"]  # fmt: skip
    assert attn.details[1][4] == "A_2[1:woodchuck, 0:a] = 0.0458  (was 0.1382, Δ −0.0923 before rounding)"
    assert attn.details[0][0] == "A_1[0:a, 0:a] = 0.0962  (was 1.0000, Δ −0.9038)"  # as printed: no note


def test_a_learning_steps_move_says_when_the_printed_gradient_gives_another():
    """lr 0.5 times ∂L/∂W_2 as printed, −0.0483, is 0.02415; the move, from the gradient unrounded, 0.0241."""
    s = Session(load_model(resolve("chapter17-trained")))
    s.goto(12, backward=True)
    lines = [d for sec in pane_sections(View.of(s)) for row in sec.rows for g in row
             if g.key.startswith("param-grad:") or "W_2" in getattr(g, "title", "")
             for r in g.details for d in r]  # fmt: skip
    line = next(d for d in lines if d.startswith("∂L/∂W_2[unit 0, d2] = −0.0483"))
    assert line.endswith("moves this weight by 0.0241 (lr times the gradient before rounding)")
    for d in lines:  # the note stands exactly where the printed gradient gives another move
        m = re.search(r"= (−?[\d.]+)  · a learning step \(lr 0.5\) moves this weight by (−?[\d.]+)", d)
        if m:
            grad, moved = (float(x.replace("−", "-")) for x in m.groups())
            assert (f"{-0.5 * grad + 0.0:.4f}" != f"{moved:.4f}") == d.endswith("before rounding)")
