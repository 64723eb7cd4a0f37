"""The line after a toggle or an edit says what changed and why the prediction did or did not move,
from the two traces alone."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.model.reference_backward import RANDOM, SWITCHES, random_model
from tinytui.lesson.texts.change_note import change_note
from tinytui.model.switches import Switches
from tinytui.model.trace import run


@pytest.fixture(scope="module")
def base(chapter):
    return run(chapter.params, chapter.prompt, chapter.target)


def test_mask_off_on_the_chapter_model_moves_nothing_and_says_why(chapter, base):
    off = run(chapter.params, chapter.prompt, chapter.target, Switches(causal_mask=False))
    note = change_note(base, off, "mask off")
    assert note.startswith("mask off: steps 8–12 changed")
    assert "only in the rows before the last" in note
    assert "already saw every token" in note
    assert "the prediction ('wood', p 0.3107) and the loss (1.1690) did not move" in note
    assert "\n" not in note


def test_an_edit_of_e_moves_the_prediction_and_says_by_how_much(chapter, base):
    params = chapter.params.with_edit("E", (5, 3), 2.0)  # woodchuck's wood, a prompt token
    after = run(params, chapter.prompt, chapter.target)
    note = change_note(base, after, "edit E[5,3]")
    assert note.startswith("edit E[5,3]: steps 2 and 4–15 changed")
    assert f"moves from 'wood' (p 0.3107) to '{after.prediction}'" in note
    assert f"loss 1.1690 → {after.loss:.4f} (+{after.loss - base.loss:.4f})" in note
    assert "did not move" not in note


def test_an_edit_of_a_row_no_prompt_token_uses_enters_at_step_14(chapter, base):
    params = chapter.params.with_edit("E", (4, 3), 2.0)  # wood's row: wood is the target, not in the prompt
    note = change_note(base, run(params, chapter.prompt, chapter.target), "edit E[4,3]")
    assert "steps 14 and 15 changed" in note and "enters through E read again at step 14" in note
    assert "rows before the last" not in note
    assert "the prediction stays 'wood' (p 0.3107 → " in note


def test_an_edit_feeding_only_dead_relu_units_changes_nothing_downstream(chapter, base):
    hidden = base["blocks.0.hidden"]
    dead = int(np.flatnonzero((hidden == 0).all(axis=0))[0])
    w2 = chapter.params.with_edit("blocks.0.W_2", (dead, 0), 3.0)
    label = f"edit W_2[unit {dead}, thing]"  # as the table labels the cell
    note = change_note(
        base, run(w2, chapter.prompt, chapter.target), label, edited=("blocks.0.W_2", (dead, 0))
    )
    assert "nothing in the run changed" in note and f"unit {dead} is zero at every position" in note
    assert "did not move" in note
    # nudge a W_1 weight into the dead unit by a little: its pre-activations move but stay at or below 0
    w1 = chapter.params.with_edit(
        "blocks.0.W_1", (0, dead), float(chapter.params["blocks.0.W_1"][0, dead]) + 0.01
    )
    after = run(w1, chapter.prompt, chapter.target)
    assert (after["blocks.0.hidden_pre"][:, dead] <= 0).all()
    note = change_note(base, after, f"edit W_1[0,{dead}]")
    assert "step 11 changed, but only in pre-activations that stay at or below zero" in note
    assert "did not move" in note


def test_pe_and_mask_both_off_says_order_is_invisible(chapter):
    masked = run(chapter.params, chapter.prompt, chapter.target, Switches(causal_mask=False))
    both = run(
        chapter.params, chapter.prompt, chapter.target, Switches(causal_mask=False, positional_encoding=False)
    )
    note = change_note(masked, both, "PE off")
    assert "nothing marks word order" in note
    assert "nothing marks word order" not in change_note(
        run(chapter.params, chapter.prompt, chapter.target),
        run(chapter.params, chapter.prompt, chapter.target, Switches(positional_encoding=False)),
        "PE off",
    )
    # and it is true: reordering the earlier tokens leaves the prediction's distribution alone
    swapped = (chapter.prompt[1], chapter.prompt[0], *chapter.prompt[2:])
    again = run(chapter.params, swapped, chapter.target, both.switches)
    assert np.allclose(again["probs"], both["probs"], atol=1e-12)


@pytest.mark.parametrize("shape", list(RANDOM))
@pytest.mark.parametrize("name", [n for n in SWITCHES if n != "default"])
def test_every_number_in_a_note_is_a_value_of_one_of_the_runs(shape, name):
    params, prompt, target = random_model(*RANDOM[shape])
    before = run(params, prompt, target)
    after = run(params, prompt, target, SWITCHES[name])
    note = change_note(before, after, name)
    assert note.startswith(f"{name}: ") and note.endswith(".") and "\n" not in note
    mask_only = name == "mask off" and params.cfg.n_blocks == 1
    assert ("did not move" in note) == np.array_equal(before["logits"], after["logits"])
    if mask_only:
        assert "already saw every token" in note
    quoted = set(re.findall(r"(?<![\w.])[-+]?\d+\.\d{4}", note))
    values = {f"{v:.4f}" for t in (before, after) for v in (t.loss, float(t["probs"].max()))}
    values |= {f"{after.loss - before.loss:+.4f}"}
    assert quoted <= values | {v.lstrip("+") for v in values}, (quoted - values, note)
