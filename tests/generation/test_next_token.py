"""The session's side of generation (tinytui.session.next_token): the pick from the current trace, the
append as a prompt change, the settings and their refusals, and which change counts as an append."""

import pytest

from tinytui.model.generation.sampling import Sampling, pick
from tinytui.model.io.model_file import load_default
from tinytui.session import next_token
from tinytui.session.session import Session
from tinytui.session.state import Refused


@pytest.fixture
def session() -> Session:
    return Session(load_default())


def test_the_pick_is_the_traces_last_logits_under_the_sessions_settings(session):
    next_token.set_sampling(session, temperature="1.2", top_p="0.8", seed="5")
    chosen = next_token.next_pick(session)
    again = pick(session.trace["logits"], Sampling(1.2, None, 0.8, 5), 4)
    assert (chosen.token, chosen.draw, chosen.position) == (again.token, again.draw, 4)


def test_an_append_is_one_prompt_change_and_undo_takes_it_back(session):
    event = next_token.append_next(session)
    assert event.kind == "prompt" and event.data["new"] == [*event.data["old"], "wood"]
    assert next_token.new_pass(session) == next_token.NewPass(4, (True,))
    session.undo()
    assert session.state.prompt == ("a", "woodchuck", "would", "chuck")
    assert next_token.new_pass(session) is None
    session.redo()
    assert next_token.new_pass(session) == next_token.NewPass(4, (True,))  # redo is that append again


def test_only_an_append_counts_as_one(session):
    next_token.append_next(session)
    session.edit("blocks.0.W_O", (0, 0), 0.5)
    assert next_token.new_pass(session) is None  # the last change was an edit
    session.undo()
    session.set_prompt(("a", "chuck"))
    assert next_token.new_pass(session) is None  # shorter, not one longer
    session.set_prompt(("a", "chuck", "how"))
    assert next_token.new_pass(session) == next_token.NewPass(2, (True,))  # typed, but it is one token more


def test_settings_are_checked_one_line_each_and_a_refusal_changes_nothing(session):
    next_token.set_sampling(session, temperature="0.7", top_k="3")
    assert session.sampling == Sampling(0.7, 3, 1.0, 0)
    with pytest.raises(Refused, match=r"^top-k 0 is outside 1–8 \(the vocabulary has 8 tokens\)$"):
        next_token.set_sampling(session, top_k="0")
    with pytest.raises(Refused, match=r"^temperature -2 is below 0"):
        next_token.set_sampling(session, temperature="-2")
    assert session.sampling == Sampling(0.7, 3, 1.0, 0)
    next_token.set_sampling(session, top_k="")  # empty: every token again
    assert session.sampling.top_k is None
    assert Session(load_default()).sampling == Sampling()  # a new session starts greedy


def test_a_full_context_refuses_and_changes_nothing(session):
    session.set_prompt(("a",) * 16)
    assert next_token.next_pick(session) is None
    with pytest.raises(Refused, match=r"^the prompt fills the model's context of 16 positions"):
        next_token.append_next(session)
    assert len(session.state.prompt) == 16 and len(session.history) == 2
