import numpy as np

from tests.model.reference_backward import random_model
from tinytui.lesson.stages import STAGE_BY_NUMBER
from tinytui.lesson.step_path import changed_per_step
from tinytui.lesson.texts.change_note import change_note
from tinytui.model.diff import diff, turned
from tinytui.model.names import resolve
from tinytui.model.switches import Switches
from tinytui.model.trace import run


def _edit(chapter, name, index, value):
    p = chapter.params.with_edit(name, index, value)
    return run(p, chapter.prompt, chapter.target)


def test_no_edit_no_change(trace):
    assert diff(trace, trace).empty


def test_b2_edit_touches_steps_12_to_15_only(chapter, trace):
    after = _edit(chapter, "blocks.0.b_2", (0,), 0.5)
    d = diff(trace, after)
    per = {step.number: n for step, n in changed_per_step(d, 2, 1).items()}  # one block: a Step per stage
    assert [n for n, c in per.items() if c] == [12, 13, 14, 15]
    assert d["blocks.0.ffn"].changed[:, 0].all() and not d["blocks.0.ffn"].changed[:, 1:].any()
    assert np.allclose(d["blocks.0.ffn"].delta[:, 0], 0.5)
    for name in ("x", "blocks.0.x_norm", "blocks.0.attn.1", "blocks.0.x_mid", "blocks.0.hidden"):
        assert d[name].n_changed == 0


def test_E_edit_travels_almost_everywhere(chapter, trace):
    after = _edit(chapter, "E", (5, 3), 0.75)  # woodchuck's wood
    per = {step.number: n for step, n in changed_per_step(diff(trace, after), 2, 1).items()}
    assert per[1] == 0 and per[3] == 0  # ids and PE do not depend on E
    assert all(per[n] > 0 for n in range(4, 16))


def test_delta_and_undo_bit_for_bit(chapter, trace):
    after = _edit(chapter, "blocks.0.W_O", (0, 0), 2.0)
    d = diff(trace, after)
    assert np.allclose(d["blocks.0.mha"].delta, after["blocks.0.mha"] - trace["blocks.0.mha"])
    back = run(chapter.params, chapter.prompt, chapter.target)  # undo = run the old params again
    for name in trace:
        assert np.array_equal(trace[name], back[name])


def test_stage_writes_cover_the_diff(chapter, trace):
    """Every tensor the trace holds is written by exactly one stage (so per-stage counts add up)."""
    writers = {}
    for n in range(1, 17):
        for name in resolve(STAGE_BY_NUMBER[n].writes, 2):
            assert name not in writers
            writers[name] = n
    assert set(writers) == set(trace)


def test_an_appended_token_changes_nothing_at_the_earlier_positions(chapter, trace):
    """With the mask on a position never sees a later one: appending a token leaves every value at
    positions 0–3 as it was (what the KV cache reuses); the new row is new, not changed. Only the steps
    that read the last position (13–15) change. Taking it off again (undo) is the same comparison."""
    longer = run(chapter.params, (*chapter.prompt, "chuck"), chapter.target)
    for before, after in ((trace, longer), (longer, trace)):
        d = diff(before, after)
        for name in ("x", "blocks.0.q.1", "blocks.0.k.2", "blocks.0.v.1", "blocks.0.scores.2", "mask"):
            assert d[name].reshaped and d[name].n_changed == 0, name
        per = {step.number: n for step, n in changed_per_step(d, 2, 1).items()}
        assert [n for n, c in per.items() if c] == [13, 14, 15]
    note = change_note(trace, longer, "append")
    assert note.startswith(
        "append: the prompt grew from 4 to 5 tokens: every per-position table has a new row for position 4"
    ), note
    assert "besides, steps 13–15 changed" in note and "every step" not in note


def test_with_the_mask_off_an_appended_token_changes_what_earlier_positions_see(chapter):
    off = Switches(causal_mask=False)
    before = run(chapter.params, chapter.prompt, chapter.target, off)
    after = run(chapter.params, (*chapter.prompt, "chuck"), chapter.target, off)
    d = diff(before, after)
    attn = d["blocks.0.attn.1"]
    assert attn.changed[:4, :4].all() and not attn.changed[4].any() and not attn.changed[:, 4].any()
    assert np.allclose(attn.delta[:4, :4], after["blocks.0.attn.1"][:4, :4] - before["blocks.0.attn.1"])
    assert d["blocks.0.q.1"].n_changed == 0  # Q is still per position


def test_another_shape_of_model_marks_everything(chapter, trace):
    cfg = chapter.cfg
    wide = random_model(5, cfg.d_model + 2, 2, 2, 6, cfg.n_vocab, 1, len(chapter.prompt))
    other = run(wide[0], wide[1], wide[2])
    d = diff(trace, other)
    assert d["x"].reshaped and d["x"].n_changed == d["x"].changed.size


def test_toggle_diff(chapter, trace):
    off = run(chapter.params, chapter.prompt, chapter.target, Switches(causal_mask=False))
    d = diff(trace, off)
    assert d["blocks.0.attn.1"].changed[0, 1] and not d["blocks.0.attn.1"].changed[3].any()


def test_turned_is_the_diff_the_other_way_counts_and_all(chapter, trace):
    """An undo's diff (turned) marks the same cells as diffing the traces the other way round, with the
    same counts and each delta negated; a diff's delta is after − before exactly where a cell moved."""
    after = _edit(chapter, "blocks.0.W_O", (1, 2), 1.5)
    made, back = diff(trace, after), diff(after, trace)
    undone = turned(made, trace)
    for name, d in back.tensors.items():
        t = undone[name]
        assert t.n_changed == d.n_changed == int(d.changed.sum()) == made[name].n_changed, name
        assert type(t.n_changed) is int, name
        assert np.array_equal(t.changed, d.changed) and np.array_equal(t.delta, d.delta), name
        assert t.max_abs == d.max_abs and np.array_equal(turned(undone, after)[name].delta, made[name].delta)
        moved = after[name] - trace[name]
        assert np.array_equal(made[name].delta, np.where(made[name].changed, moved, 0.0)), name
    assert made["blocks.0.x_mid_norm"].n_changed == made["blocks.0.x_mid_norm"].changed.size  # all moved
    assert 0 < made["blocks.0.hidden"].n_changed < made["blocks.0.hidden"].changed.size  # ReLU keeps some
    assert made["blocks.0.x_norm"].n_changed == 0 and not made["blocks.0.x_norm"].delta.any()
