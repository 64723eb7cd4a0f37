"""Refusals and notes about prompt lengths say one token as one: 'has 1 token', never '1 tokens'."""

import pytest

from tinytui.present.backward_tables import pane_sections
from tinytui.present.view import View
from tinytui.session.session import Session
from tinytui.session.state import Refused


def test_a_one_token_prompt_is_one_token_in_every_line_about_lengths(chapter):
    s = Session(chapter)
    with pytest.raises(Refused, match=r"^the corrupted prompt has 1 token and the prompt 4: patching"):
        s.set_patching("a", "chuck")
    with pytest.raises(Refused, match=r"^the other prompt has 1 token and this one 4: the runs"):
        s.compare_with("prompt", "a")
    s.set_patching("a much wood would", "chuck")
    s.set_prompt(("a",))
    assert s.patching_problem() == "the prompt now has 1 token and the corrupted one 4: patch again"
    s.compare_with("pinned")
    s.set_prompt(("a", "woodchuck"))
    heading = pane_sections(View.of(s))[0].title
    assert "A's prompt has 1 token and B's 2: A has no cell past position 0 (·)" in heading
