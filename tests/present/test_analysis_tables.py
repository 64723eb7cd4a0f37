"""The present layer's tables for issue 46, read directly: the lens, patching and a two-run compare."""

from pathlib import Path

import numpy as np

from tests.present.view_items import items_at
from tinytui.model.analysis.lens import logit_lens
from tinytui.present.backward_tables import pane_sections
from tinytui.present.compare_tables import twin_cells
from tinytui.present.lens_tables import bar, lens_grid, lens_sections
from tinytui.present.patch_tables import patch_sections, position_labels
from tinytui.present.view import View
from tinytui.session.session import Session


def test_the_lens_table_is_the_lens_and_its_last_row_the_prediction(chapter):
    s = Session(chapter)
    s.goto(13)
    spec = lens_grid(View.of(s))
    points = logit_lens(s.trace, s.params)
    wood = chapter.cfg.token_id("wood")
    assert [float(v) for v, *_ in spec.values] == [float(p.probs[wood]) for p in points]
    assert spec.values[-1][0] == float(s.trace["probs"][wood])  # bit for bit
    assert spec.cells[-1][2] == "wood 0.3107"


def test_the_lens_shows_beside_steps_13_and_14_only(chapter):
    s = Session(chapter)
    shown = {}
    for step in (12, 13, 14, 15):
        s.goto(step)
        shown[step] = bool(lens_sections(View.of(s)))
    assert shown == {12: False, 13: True, 14: True, 15: False}


def test_a_bar_is_eighths_of_its_width():
    assert bar(1.0, 4) == "████" and bar(0.0, 4) == "    " and bar(0.5, 2) == "█ " and bar(1 / 16, 2) == "▏ "


def test_patching_the_one_position_that_differs_brings_the_whole_change_back(chapter):
    s = Session(chapter)
    s.goto(14)
    s.set_patching(" ".join(chapter.prompt[:-1]) + " much", "chuck")
    (section,) = patch_sections(View.of(s))
    resid = section.rows[0][0]
    result = s.patching()
    assert np.allclose(result.resid_pre[:, -1], result.clean)  # the last position carries the change
    assert resid.cells[0][-1] == f"{result.clean:.4f}".replace("-", "−")
    assert "100% of the change" in resid.details[0][-1]
    assert position_labels(("a", "b"), ("a", "c")) == ("0:a", "1:b/c")


def test_a_compare_of_a_state_with_itself_is_zeros_and_twins_light_together(chapter):
    s = Session(chapter)
    s.goto(8)
    s.compare_with("pinned")
    sections = pane_sections(View.of(s))  # with_comparison applied: A, B and B − A
    keys = [item.key for sec in sections for row in sec.rows for item in row]
    d_keys = [k for k in keys if k.startswith("compare-d:")]
    assert d_keys
    for sec in sections:
        for row in sec.rows:
            for item in row:
                if item.key.startswith("compare-d:"):
                    assert {c for r in item.cells for c in r} <= {"0.0000", "0", "·"}  # 0: the mask
    items = {item.key: item for sec in sections for row in sec.rows for item in row}
    attn = "output:blocks.0.attn.{h}"

    def masked(key):
        return {(r, c) for r, row in enumerate(items[key].marks) for c, m in enumerate(row) if "masked" in m}

    assert masked(attn) and masked(attn) == masked("compare-a:" + attn)
    at = keys.index(d_keys[0])
    twins = twin_cells(keys, at, 1, 2)
    base = d_keys[0].removeprefix("compare-d:")
    assert twins == {keys.index("compare-a:" + base): {(1, 2)}, keys.index(base): {(1, 2)}}
    assert twin_cells(["x", "y"], 0, 0, 0) == {}


def test_the_model_file_as_a_follows_the_prompt_and_another_prompt_follows_the_weights(chapter):
    s = Session(chapter)
    s.compare_with("file")
    s.edit("W_O", (0, 0), 2.0)
    s.swap_positions(0, 1)
    a = s.compare_state()
    assert a.params is chapter.params and a.prompt == s.state.prompt  # the file's weights, B's prompt
    assert np.array_equal(s.compare_trace()["logits"], s.original_trace["logits"])
    s.compare_with("prompt", "a woodchuck would wood")
    s.edit("W_O", (0, 1), 1.0)
    a = s.compare_state()
    assert a.params is s.params and a.prompt == ("a", "woodchuck", "would", "wood")
    s.compare_with("pinned")
    pinned = s.state
    s.undo()
    assert s.compare_state() is pinned  # a pinned state stays as it was


def test_a_checkpoints_prompt_is_offered_as_text_that_reads_back_to_its_pieces():
    from tinytui.model.io.checkpoint import load_model
    from tinytui.session.second_runs import prompt_text, read_prompt

    model = load_model(Path(__file__).parents[1] / "gpt2" / "fixtures" / "tiny-gpt2")
    text = prompt_text(model, model.prompt)
    assert text == "The capital of France is Par" and read_prompt(model, text) == model.prompt


def test_a_compare_writes_token_ids_as_whole_numbers(chapter):
    """Step 1's ids are whole numbers in A and B − A too (0, 5, 6, 1), never 5.0000 on a shaded scale."""
    s = Session(chapter)
    s.goto(1)
    s.compare_with("pinned")
    items = {item.key: item for sec in pane_sections(View.of(s)) for row in sec.rows for item in row}
    a_key = next(k for k in items if k.startswith("compare-a:"))
    ids = [row[-1] for row in items[a_key].cells]
    assert ids == ["0", "5", "6", "1"]
    d_key = a_key.replace("compare-a:", "compare-d:")
    assert [row[-1] for row in items[d_key].cells] == ["0"] * 4


def test_a_compare_of_prompts_shows_a_s_tokens_and_which_position_changed(chapter):
    """A's token column reads A's words, B − A says "=" or which word became which (a token is not a
    number to subtract), and the prompt's table is unshaded in A and B − A as it is in B."""
    s = Session(chapter)
    s.goto(1)
    s.compare_with("prompt", "a woodchuck would wood")
    items = {item.key: item for sec in pane_sections(View.of(s)) for row in sec.rows for item in row}
    a_key = next(k for k in items if k.startswith("compare-a:"))
    d_key = a_key.replace("compare-a:", "compare-d:")
    a_spec, b_spec, d_spec = items[a_key], items[a_key.removeprefix("compare-a:")], items[d_key]
    assert [row[0] for row in a_spec.cells] == ["a", "woodchuck", "would", "wood"]
    assert [row[0] for row in d_spec.cells] == ["=", "=", "=", "wood→chuck"]
    assert [row[-1] for row in d_spec.cells] == ["0", "0", "0", "−3"]  # chuck is id 1, wood id 4
    assert not b_spec.shaded and not a_spec.shaded and not d_spec.shaded


def test_a_difference_too_small_for_four_decimals_keeps_the_sign_its_mark_shows(chapter):
    """E[0,0] moved up by 1e-7: B − A is written +0.0000 beside its ▲, never a bare 0.0000."""
    s = Session(chapter)
    s.goto(2)
    s.compare_with("file")
    s.edit("E", (0, 0), float(chapter.params["E"][0, 0]) + 1e-7)
    items = items_at(s)
    assert items["param:E"].sources[0][0] == ("E", (0, 0))
    d = items["compare-d:param:E"]
    assert d.marks[0][0] == frozenset({"changed-up"}) and d.cells[0][0] == "+0.0000"


def test_while_comparing_the_prediction_is_compared_and_the_analyses_say_they_are_b_s(chapter):
    """Step 14: the bars' ℓ and p as A and B − A; the lens and the patching read B's run only and say so;
    A's copy of the next-token table names A's own likeliest token, not B's pick."""
    s = Session(chapter)
    s.goto(14)
    s.set_patching("a woodchuck would much", "chuck")
    s.compare_with("prompt", "a woodchuck would a")  # A predicts 'a', B 'wood'
    items = items_at(s)
    a_trace = s.compare_trace()
    a, d = items["compare-a:logits-table"], items["compare-d:logits-table"]
    i = chapter.cfg.token_id("wood")
    assert a.values[i][1] == float(a_trace["probs"][i])
    assert d.values[i][1] == float(s.trace["probs"][i] - a_trace["probs"][i]) != 0.0
    assert items["logits"].title.startswith("B · ")
    for key in ("lens", "patch:resid", "patch:heads"):
        assert items[key].title.startswith("B only · ")
    assert a_trace.prediction != s.trace.prediction
    assert items["compare-a:next-token"].title.endswith(f"A's likeliest is {a_trace.prediction!r}")


def test_a_changed_token_id_is_marked_changed_not_up_or_down(chapter):
    s = Session(chapter)
    s.goto(1)
    s.compare_with("prompt", "a woodchuck would wood")
    items = items_at(s)
    d_key = next(k for k in items if k.startswith("compare-d:"))
    assert items[d_key].marks[-1][-1] == frozenset({"changed"})  # wood (4) → chuck (1): another token


def test_patching_says_what_its_shade_is_and_what_a_shared_key_value_head_keeps():
    """The cells are logit differences but the shade (and its −1…+1 legend) is the share of the change:
    the title says so. In grouped-query attention one query head's output is patched; the head sharing
    its K and V still reads the corrupted run's."""
    from tinytui.model.io.checkpoint import load_model

    llama = load_model(Path(__file__).parents[2] / "model" / "presets" / "chapter17-llama.json")
    s = Session(llama)
    s.goto(14)
    s.set_patching("a much would chuck", "how")
    (section,) = patch_sections(View.of(s))
    assert "shade: the share of the change a patch brings back" in section.title
    heads = section.rows[1][0]
    assert (
        "−18% of the change (clean −1.5789, corrupted −1.0132), the share its shade shows"
        in heads.details[0][2]
    )
    assert heads.details[0][2].endswith(
        "; head 4, which shares its key/value head 2, still reads the corrupted run's K and V"
    )
    result = s.patching()
    assert heads.values[0][2] == result.restored(float(result.heads[0, 2]))
