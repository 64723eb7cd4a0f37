"""A change the session refuses leaves every attribute of the session as it was."""

import copy

import numpy as np
import pytest

from tinytui.model.io.document import ModelFile
from tinytui.session.session import Session
from tinytui.session.state import Refused


@pytest.fixture
def fragile(chapter):
    """The chapter model with E[much] = [1e155, 0, 0, 0]: "much" in a prompt overflows (1e155² > 1e308)."""
    much = chapter.cfg.token_id("much")
    E = chapter.params["E"].copy()
    E[much] = [1e155, 0, 0, 0]
    return ModelFile("fragile", "", chapter.params.with_arrays({"E": E}), chapter.prompt, chapter.target)


def snapshot(session):
    return {k: (v, copy.copy(v)) for k, v in vars(session).items()}


# What the session only caches: a move lets these go while it computes (so a model of GPT-2's size makes
# its next trace beside one other, not three) and a refused move may rebuild them, equal but not the
# same objects. Everything else must be the very same object.
CACHES = {"_held", "_original", "_original_kept"}


def same_trace(a, b) -> bool:
    return a.tensors.keys() == b.tensors.keys() and all(a[n].tobytes() == b[n].tobytes() for n in a.tensors)


def assert_unchanged(session, before):
    after = vars(session)
    assert after.keys() == before.keys()
    for k, (obj, shallow) in before.items():
        if k in CACHES:
            continue
        if k == "previous":  # let go during the move; back as it was, or run again to the same bits
            assert after[k] is obj or same_trace(after[k], obj), k
            continue
        assert after[k] is obj, k  # the same object ...
        if isinstance(obj, list):
            assert after[k] == shallow, k  # ... with the same items (history, listeners)
    held = after["_held"]
    assert held is None or held[0] is session.params  # a cache of the current weights' arrays only
    assert same_trace(session.original_trace, Session(session.model, session.state).original_trace)


def test_a_refused_prompt_change_is_not_made(fragile):
    session = Session(fragile)
    session.edit("E", (fragile.cfg.token_id("much"), 0), "0")  # the edited model no longer overflows
    before = snapshot(session)
    with pytest.raises(Refused, match=r"model file's own weights .* overflow .* nothing was changed"):
        session.set_prompt(["a", "woodchuck", "much", "chuck"])
    assert_unchanged(session, before)
    assert session.state.prompt == ("a", "woodchuck", "would", "chuck")


def test_a_refused_edit_changes_nothing(chapter):
    session = Session(chapter)
    session.set_prompt(["a", "much"])
    before = snapshot(session)
    with pytest.raises(Refused, match="overflow"):
        session.edit("E", (chapter.cfg.token_id("much"), 0), "1e155")
    assert_unchanged(session, before)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (lambda s: s.set_lr("-1"), "above 0, not -1"),
        (lambda s: s.set_lr("1" * 400 + "/1"), "too long to be a number"),
        (lambda s: s.edit("W_O", (0, 0), "1/" + "3" * 4400), "too long to be a number"),
        (lambda s: s.set_prompt([]), "the prompt needs at least one token"),
        (lambda s: s.set_target("beaver"), "'beaver' is not in the vocabulary"),
        (lambda s: s.toggle("gravity"), "no switch named 'gravity'"),
        (lambda s: s.toggle("ablated_heads", 3), "there is no head 3"),
    ],
)
def test_bad_values_are_refused_by_the_shared_checks(chapter, change, why):
    session = Session(chapter)
    before = snapshot(session)
    with pytest.raises(Refused, match=why):
        change(session)
    assert_unchanged(session, before)
    assert np.array_equal(session.trace["logits"], Session(chapter).trace["logits"])
