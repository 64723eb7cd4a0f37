"""A step's tables are kept by what they were made of, marks and all: a switch toggled back and forth, or
an edit undone and redone, shows the very tables it showed before, and a kept table reads exactly as one
made afresh (its numbers, marks, shading and the inspector's "was" lines)."""

import pytest

from tests.apps import random_app
from tinytui.present.backward_tables import pane_sections
from tinytui.present.cells import all_items
from tinytui.present.grid_spec import GridSpec, KeptSpecs
from tinytui.present.view import View
from tinytui.session.state import WALK


def tables(session, kept: KeptSpecs) -> dict[str, GridSpec]:
    """The step's tables as the app makes them: every view made with the same kept specs."""
    return {
        i.key: i for i in all_items(pane_sections(View.of(session, kept=kept))) if isinstance(i, GridSpec)
    }


def reads(spec: GridSpec) -> tuple:
    """All a table shows and says: its frame, every cell's text, mark, shade value and inspector line."""
    n = len(spec.rows)
    return (
        spec.title,
        spec.corner,
        spec.rows,
        spec.cols,
        spec.limit,
        tuple(tuple(spec.cells[r]) for r in range(n)),
        tuple(spec.marks),
        tuple(tuple(v) for v in spec.values),
        tuple(tuple(spec.details[r]) for r in range(n)),
    )


def made_afresh(session) -> dict[str, tuple]:
    return {key: reads(spec) for key, spec in tables(session, KeptSpecs()).items()}


@pytest.mark.parametrize("switch", ["causal_mask", "positional_encoding"])
def test_a_switch_toggled_back_and_forth_shows_the_tables_it_showed(switch):
    session, kept = random_app(tokens=6).session, KeptSpecs()
    session.goto(9)
    session.toggle(switch)
    first = tables(session, kept)
    assert any(any(any(m for m in row) for row in s.marks) for s in first.values())  # marked tables
    session.toggle(switch)
    back = tables(session, kept)
    session.toggle(switch)
    again = tables(session, kept)
    assert again.keys() == first.keys()
    assert all(again[k] is first[k] for k in first)
    assert {k: reads(s) for k, s in again.items()} == made_afresh(session)
    session.toggle(switch)
    assert all(s is back[k] for k, s in tables(session, kept).items())


def test_an_edit_undone_and_redone_shows_the_tables_it_showed():
    session, kept = random_app(tokens=6).session, KeptSpecs()
    session.goto(9)
    session.edit("blocks.0.W_O", (1, 2), 0.75)
    edited = tables(session, kept)
    assert any("(was " in line for s in edited.values() for r in range(len(s.rows)) for line in s.details[r])
    session.undo()
    session.redo()
    redone = tables(session, kept)
    assert all(redone[k] is edited[k] for k in edited)
    assert {k: reads(s) for k, s in redone.items()} == made_afresh(session)


def test_the_same_numbers_against_other_numbers_before_say_so():
    """An edit back to a value shown before: the same numbers, but the "was" lines read the trace just
    before, not the one the table was first made against."""
    session, kept = random_app(tokens=6).session, KeptSpecs()
    session.goto(9)
    lines = []
    for value in (0.5, 0.2, 0.5):
        session.edit("blocks.0.W_O", (1, 2), value)
        shown = {k: reads(s) for k, s in tables(session, kept).items()}
        assert shown == made_afresh(session)
        mha = tables(session, kept)["output:blocks.0.mha"]
        lines.append([line for r in range(len(mha.rows)) for line in mha.details[r] if "(was " in line])
    first, last = lines[0], lines[2]
    assert first and len(first) == len(last)
    for a, b in zip(first, last):  # the same numbers now, each against its own number before
        assert a.partition("  (was ")[0] == b.partition("  (was ")[0]
        assert a != b


@pytest.mark.parametrize("gradients", [False, True])
def test_the_walk_shown_again_shows_the_tables_it_showed(gradients):
    """Into the walk and out and in again (b, b, b): each step of the walk shows the very gradient tables it
    showed, the heads side by side too, and they read as tables made afresh."""
    session, kept = random_app(tokens=6).session, KeptSpecs()
    session.set_mode(gradients=gradients)
    for step in WALK:
        session.goto(step, backward=True)
        first = tables(session, kept)
        session.set_mode(backward=False)
        tables(session, kept)
        session.set_mode(backward=True)
        again = tables(session, kept)
        assert again.keys() == first.keys()
        assert [k for k in first if again[k] is not first[k]] == []
        assert {k: reads(s) for k, s in again.items()} == made_afresh(session)


def test_a_token_swapped_or_another_comparison_reads_as_made_afresh():
    """Tables found again by the very tensors they show: a token swapped (the positions' labels change
    where numbers may not) and the highlights compared to the model file and back read as made afresh."""
    session, kept = random_app(tokens=6).session, KeptSpecs()
    for step in (2, 9):
        session.goto(step)
        tables(session, kept)
        prompt = session.state.prompt
        other = next(t for t in session.model.cfg.vocab if t != prompt[-1])
        session.set_prompt((*prompt[:-1], other))
        assert {k: reads(s) for k, s in tables(session, kept).items()} == made_afresh(session)
        session.edit("blocks.0.W_O", (1, 2), 0.75)
        tables(session, kept)
        for compare in (True, False):
            session.set_compare_to_original(compare)
            assert {k: reads(s) for k, s in tables(session, kept).items()} == made_afresh(session)
