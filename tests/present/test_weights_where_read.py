"""A weight's table sits under the step whose formula reads it, and an edit to it first changes that
step's output (the step list's Δ): post-norm moves a block's norm gain and bias from steps 5 and 11 to
the adds at steps 10 and 12, and an untied model's step 14 reads its W_U, never E."""

from __future__ import annotations

from tests.model.reference_backward import GPT2, MODERN, random_model
from tinytui.model.io.document import ModelFile
from tinytui.model.switches import Switches, defaults
from tinytui.model.trace import DEFAULT_LR
from tinytui.present.cells import step_sections
from tinytui.present.step_list_lines import changed_counts
from tinytui.present.view import View
from tinytui.session.session import Session
from tinytui.session.state import State


def session_of(case: tuple, switches: Switches | None = None) -> Session:
    params, prompt, target = random_model(*case[0], **case[1])
    m = ModelFile("random", "", params, prompt, target)
    return Session(m, State(m.params, prompt, target, switches or defaults(params.cfg), DEFAULT_LR))


def weights_at(session: Session, step: int) -> list[str]:
    session.goto(step, block=0)
    keys = [
        item.key
        for s in step_sections(View.of(session))
        if s.role == "param"
        for row in s.rows
        for item in row
    ]
    return [key.removeprefix("param:") for key in keys]


def changed_steps(session: Session) -> list[int]:
    """The steps of block 1 (and the model-wide ones) whose output the last change changed."""
    counts = changed_counts(View.of(session))
    return sorted(row.number for row, n in counts.items() if n and getattr(row, "block", None) in (None, 0))


def test_post_norm_puts_the_norm_weights_under_the_adds_that_read_them():
    session = session_of(GPT2["random-gpt2-mixed"], Switches(norm="post"))
    assert weights_at(session, 5) == []  # before: ln1_g, ln1_b, which post-norm does not read here
    assert weights_at(session, 10) == ["blocks.0.ln1_g", "blocks.0.ln1_b"]
    assert weights_at(session, 11) == ["blocks.0.W_1", "blocks.0.b_1"]
    assert weights_at(session, 12) == ["blocks.0.W_2", "blocks.0.b_2", "blocks.0.ln2_g", "blocks.0.ln2_b"]
    session.edit("blocks.0.ln1_g", (0,), 2.5)
    assert changed_steps(session)[0] == 10
    session.edit("blocks.0.ln2_b", (1,), 0.5)
    assert changed_steps(session)[0] == 12


def test_pre_norm_keeps_them_at_the_norms():
    session = session_of(GPT2["random-gpt2-mixed"], Switches())
    assert weights_at(session, 5) == ["blocks.0.ln1_g", "blocks.0.ln1_b"]
    assert weights_at(session, 10) == []
    session.edit("blocks.0.ln1_g", (0,), 2.5)
    assert changed_steps(session)[0] == 5


def test_an_untied_models_logits_read_w_u_and_an_edit_to_it_changes_steps_14_and_15():
    session = session_of(MODERN["random-mqa-gelu-untied"])
    assert weights_at(session, 14) == ["W_U"]
    session.edit("W_U", (0, 0), 3.0)
    assert changed_steps(session) == [14, 15]
    first = session.model.cfg.token_id(session.state.prompt[0])
    session.edit("E", (first, 0), 3.0)  # the embedding changes; step 14 reads it only through z
    assert changed_steps(session)[0] == 2 and "E" not in weights_at(session, 14)
