"""The walk and the gradient overlay ask the session's Gradients only for what they show, so at GPT-2's size
entering the walk does not compute 124 M weight gradients: what each step's panes compute, on a three-block
model (its numbers are those of the full backward: tests/model/test_lazy_gradients.py)."""

import numpy as np
import pytest

from tests.random_models import config, weights
from tinytui.model.backward.gradients import gradients
from tinytui.model.io.document import ModelFile
from tinytui.present.backward_tables import pane_sections
from tinytui.present.view import View
from tinytui.session.session import Session


@pytest.fixture
def session():
    cfg = config(6, 3, 2, 5, 9, blocks=3)
    params = weights(np.random.default_rng(3), cfg, 0.8)
    return Session(ModelFile("three blocks", "seeded random weights", params, ("t1", "t2", "t3"), "t4"))


def shown(session, step, backward, block=None):
    """The step's panes built as the app builds them; what the session's gradient has computed since."""
    session.goto(step, backward=backward, block=block)
    pane_sections(View.of(session))
    return set(session.gradients.computed())


def test_step_15_of_the_walk_computes_only_the_gradient_of_the_logits(session):
    assert shown(session, 15, True) == {"grad.logits"}
    assert shown(session, 14, True) == {"grad.logits", "grad.z", "grad.E.unembed"}


def test_the_last_blocks_steps_compute_that_block_and_nothing_below_it(session):
    for step in range(12, 4, -1):
        done = shown(session, step, True, block=2)
    assert "grad.blocks.2.W_Q" in done and "grad.blocks.1.y" in done  # what block 3 hands to block 2
    assert not [
        n for n in done if n.startswith(("grad.blocks.0.", "grad.blocks.1.")) and n != "grad.blocks.1.y"
    ]
    assert not done & {"grad.E", "grad.E.lookup", "grad.E.unembed", "grad.x"}
    done = shown(session, 12, True, block=1)  # one block further: one block more
    assert "grad.blocks.1.W_2" in done and "grad.blocks.0.y" in done
    assert not [n for n in done if n.startswith("grad.blocks.0.") and n != "grad.blocks.0.y"]


def test_the_overlay_at_a_forward_step_computes_what_its_weights_need(session):
    session.set_mode(gradients=True)
    done = shown(session, 9, False, block=2)
    assert "grad.blocks.2.W_O" in done and "grad.E.unembed" not in done and "grad.x" not in done
    done = shown(session, 14, False)  # E's total: the whole backward, but no weight E does not read
    assert {"grad.E", "grad.E.lookup", "grad.x"} <= done and "grad.blocks.0.W_2" not in done
    full = gradients(session.params, session.trace)
    assert list(session.gradients) == list(full)  # the same names; reading them gives the same numbers
    assert all(np.array_equal(session.gradients[n], full[n]) for n in full)
