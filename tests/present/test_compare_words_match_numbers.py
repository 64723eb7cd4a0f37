"""A two-run compare's tables and heading checked against what they show: A's copy of a table writes its
numbers as B's does, and the heading's note on prompts of different lengths says what the tables hold."""

from __future__ import annotations

from tests.present.view_items import items_at
from tinytui.present.backward_tables import pane_sections
from tinytui.present.view import View
from tinytui.session.session import Session


def test_the_mask_is_written_in_a_and_b_minus_a_as_b_writes_it(chapter):
    s = Session(chapter)
    s.goto(8)
    s.compare_with("pinned")
    s.toggle("causal_mask")  # B without the mask: every blocked cell becomes 1
    items = items_at(s)
    (key,) = [k for k in items if k.startswith("compare-a:") and "mask" in items[k].title]
    b, a, d = (
        items[key.removeprefix("compare-a:")],
        items[key],
        items[key.replace("compare-a:", "compare-d:")],
    )
    assert b.cells[0] == ("1.0000", "1.0000", "1.0000", "1.0000")
    assert a.cells[0] == ("1.0000", "0.0000", "0.0000", "0.0000")  # was ('1', '0', '0', '0')
    assert d.cells[0] == ("0.0000", "+1.0000", "+1.0000", "+1.0000")


def test_a_longer_prompt_in_a_is_not_said_to_show_dots(chapter):
    s = Session(chapter)
    s.compare_with("pinned")
    s.set_prompt(("a", "woodchuck", "would"))
    s.goto(4)
    heading = pane_sections(View.of(s))[0].title
    assert heading.endswith(
        "A's prompt has 4 tokens and B's 3: A's rows past position 2 are not shown; z, ℓ and p are each "
        "run's own last position"
    )
    shown = [
        c for item in items_at(s).values() if item.key.startswith("compare-") for r in item.cells for c in r
    ]
    assert "·" not in shown  # every cell of B's 3 rows has A's number


def test_a_shorter_prompt_in_a_leaves_dots_past_its_end(chapter):
    s = Session(chapter)
    s.set_prompt(("a", "woodchuck", "would"))
    s.compare_with("pinned")
    s.set_prompt(("a", "woodchuck", "would", "chuck"))
    s.goto(4)
    heading = pane_sections(View.of(s))[0].title
    assert heading.endswith("A's prompt has 3 tokens and B's 4: A has no cell past position 2 (·); z, ℓ and "
                            "p are each run's own last position")  # fmt: skip
    emb = items_at(s)["compare-d:input:emb"]
    assert set(emb.cells[3]) == {"·"} and "·" not in emb.cells[2]


def test_the_state_before_the_last_change_is_named_for_what_it_is_after_more_changes(chapter):
    s = Session(chapter)
    s.edit("E", (0, 0), 0.5)
    s.compare_with("before")  # A: the model file's state, before the edit
    s.goto(2)
    heading = pane_sections(View.of(s))[0].title
    assert heading.startswith("Two runs — A: the state before the last change · B: now")
    s.edit("E", (0, 1), 0.25)  # a second change: A is now two changes back
    items = items_at(s)
    assert pane_sections(View.of(s))[0].title.startswith("Two runs — A: the state 2 changes back · B: now")
    a = items["compare-a:param:E"]
    assert a.cells[0][:2] == ("0.0000", "0.0000")  # A still has neither edit
    line = "A · E[0,1]: A (the state 2 changes back) = 0.0000, B (now) = 0.2500, B − A = +0.2500"
    assert a.details[0][1] == line
    s.undo()
    s.undo()  # both edits taken back: the change A came before is undone
    assert pane_sections(View.of(s))[0].title.startswith(
        "Two runs — A: the state before a change since undone"
    )


def test_a_compared_cell_is_named_as_its_table_and_the_inspector_name_it(chapter):
    s = Session(chapter)
    s.goto(8)
    s.compare_with("pinned")
    s.toggle("causal_mask")
    items = items_at(s)
    attn = items["compare-d:output:blocks.0.attn.{h}"]
    assert attn.details[0][1] == (
        "B − A · A_1[0,1]: A (the state pinned) = 0.0000, B (now) = 0.3354, B − A = +0.3354"
    )  # was "attn.1[0,1]", beside a table titled A = softmax(S) and an inspector saying A_1[0,1]
    s.goto(9, backward=True)
    mha = items_at(s)["compare-d:grad:grad.blocks.0.mha"]
    assert mha.details[0][0].startswith("B − A · ∂L/∂MHA[0,0]: A (the state pinned) = ")
