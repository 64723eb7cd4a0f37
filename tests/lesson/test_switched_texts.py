"""The words of the steps RMSNorm and RoPE change, on the chapter's model switched and on the Llama
preset: the equation beside them, the formula, the numbers quoted, the note after a switch, and a
practice question on a turned query graded from the operands as the screen shows them."""

import re

import numpy as np
import pytest

from tinytui.lesson.practice.grading import accepted, grade
from tinytui.lesson.practice.hints import hint
from tinytui.lesson.practice.questions import step_questions
from tinytui.lesson.stages import STAGE_BY_NUMBER, equation_words, formula_as_run, latex_for
from tinytui.lesson.step_path import at, focus
from tinytui.lesson.texts.change_note import change_note
from tinytui.lesson.texts.display_names import canonical_name
from tinytui.lesson.texts.facts import stage_facts
from tinytui.model.io.model_file import load
from tinytui.model.io.presets import presets
from tinytui.model.switches import Switches
from tinytui.model.trace import run


@pytest.fixture(scope="module")
def switched(chapter):
    """The chapter's model run with RMSNorm and RoPE in place of its LayerNorm and sinusoids."""
    return run(chapter.params, chapter.prompt, chapter.target, Switches(norm_kind="rms", positions="rope"))


def words(trace, number: int) -> str:
    return STAGE_BY_NUMBER[number].explain(focus(trace, at(number, 0, trace.cfg.n_blocks)))


def facts(trace, number: int) -> list[str]:
    return stage_facts(focus(trace, at(number, 0, trace.cfg.n_blocks)), STAGE_BY_NUMBER[number])


def test_equations_beside_the_steps_name_only_the_chapters(switched, trace):
    said = {n: equation_words(STAGE_BY_NUMBER[n], switched.cfg) for n in (3, 4, 5, 6, 7, 13)}
    assert said == {
        3: "RoPE is not in the chapter",
        4: "equation 17.2",
        5: "RMSNorm is not in the chapter",
        6: "equation 17.4; RoPE is not in the chapter",
        7: "equation 17.5",
        13: "RMSNorm is not in the chapter",
    }
    assert [equation_words(STAGE_BY_NUMBER[n], trace.cfg) for n in (3, 5, 6)] == [
        "equation 17.1",
        "equation 17.3",
        "equation 17.4",
    ]
    llama = load(presets()["chapter17-llama"]).cfg
    assert equation_words(STAGE_BY_NUMBER[11], llama) == "The gate (SwiGLU) is not in the chapter"


def test_rmsnorm_without_a_gain_is_written_without_one(switched):
    five = formula_as_run(STAGE_BY_NUMBER[5], switched.switches, switched.cfg)
    assert five == "x_n = RMS(x) = x / √(mean(x²) + ε)   (RMSNorm: no mean taken away; no gain, no bias)"
    assert formula_as_run(STAGE_BY_NUMBER[13], switched.switches, switched.cfg) == "z = RMS(y_last)"
    assert latex_for(STAGE_BY_NUMBER[13], switched.cfg) == r"z = \mathrm{RMS}(y_{T})"  # handouts: no g_f
    text = words(switched, 5)
    assert "There is no gain and no bias" in text and "ln1_g" not in text
    assert "switched from the model's LayerNorm to RMSNorm" in text
    # row 'a' is (0, 0, 1, 0) + PE 0 under RoPE: mean of squares 0.25, mean 0.25 kept
    assert facts(switched, 5) == [
        "row 'a': mean of squares 0.2500, first entry 0.0000; its mean 0.2500 stays in (LayerNorm would "
        "subtract it)"
    ]


def test_step_6_quotes_the_turn_of_the_last_query(switched):
    q_pre, q = switched["blocks.0.q_pre.1"][3], switched["blocks.0.q.1"][3]
    # p = 3, d_head 2: the one pair turns by 3 radians
    turned = (q_pre[0] * np.cos(3) - q_pre[1] * np.sin(3), q_pre[1] * np.cos(3) + q_pre[0] * np.sin(3))
    assert q == pytest.approx(turned)
    assert facts(switched, 6) == [
        f"last position ('chuck', p = 3), head 1, dims 0 and 1: Q_pre ({q_pre[0]:.4f}, {q_pre[1]:.4f}) "
        f"turned by 3.0000 rad is Q ({q[0]:.4f}, {q[1]:.4f})"
    ]
    assert "switched from the model's sinusoids (added to x at step 4) to RoPE" in words(switched, 6)
    assert "how far apart two tokens are" in words(switched, 7)
    seven = facts(switched, 7)
    assert seven[0] == "√d_k = 1.4142"
    said = re.fullmatch(
        r"every position moved one place later: head 1's scores change by at most (\S+), so they "
        r"depend only on how far apart the tokens are",
        seven[1],
    )
    assert said is not None and float(said.group(1)) < 1e-12


def test_practice_on_a_turned_query_is_graded_from_the_shown_operands(chapter, switched):
    questions = {(q.name, q.index): q for q in step_questions(switched, chapter.params, 6)}
    assert ("blocks.0.q_pre.1", (3, 0)) in questions  # the unturned projection is asked too
    q = questions[("blocks.0.q.1", (3, 0))]
    assert "RoPE" in q.why.formula
    (a, ia), (b, ib) = [(o.name, o.index) for o in q.why.operands]
    assert (a, ia, b, ib) == ("blocks.0.q_pre.1", (3, 0), "blocks.0.q_pre.1", (3, 1))
    # by hand from the operands as the table shows them (4 places): a cos 3 − b sin 3
    shown_a, shown_b = (round(float(switched[a][ia]), 4), round(float(switched[b][ib]), 4))
    by_hand = shown_a * np.cos(3.0) - shown_b * np.sin(3.0)
    ok = accepted(q.why)
    assert grade(f"{by_hand:.4f}", ok).correct
    assert not grade(f"{shown_a:.4f}", ok).correct  # the unturned value is wrong
    assert not grade(f"{by_hand + 0.01:.4f}", ok).correct
    # the hints name the unturned projection as the tables and the step's formula do
    assert hint(q, 1) == "computed from Q_pre_1[3,0], Q_pre_1[3,1]"
    assert canonical_name("Q_pre_1") == "q_pre.1"  # typed back (why, practice), it names the same cell
    assert hint(q, 2).startswith("Q_1[3,0] = Q_pre_1[3,0]·cos θ − Q_pre_1[3,1]·sin θ,  θ = 3·f_0 = 3.0000")


def test_the_note_after_a_switch_says_what_the_new_norm_or_positions_do(chapter, trace):
    rms = run(chapter.params, chapter.prompt, chapter.target, Switches(norm_kind="rms"))
    note = change_note(trace, rms, "RMSNorm")
    assert note == (
        "RMSNorm: each row is divided by its root mean square, with no mean taken away (steps 5, 11 and "
        "13); steps 5–15 changed; the prediction stays 'wood' (p 0.3107 → 0.4859); loss 1.1690 → "
        "0.7218 (-0.4472)."
    )
    rope = run(chapter.params, chapter.prompt, chapter.target, Switches(positions="rope"))
    assert change_note(trace, rope, "RoPE").startswith(
        "RoPE: nothing is added to x at step 4 now; step 6 turns q and k by position; steps 3–15 changed"
    )
