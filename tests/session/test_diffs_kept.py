"""An undo chain and its redo compare traces the session compared before: each diff is worked out once
(an undo's is its change's turned round, bit for bit what comparing them gives), and a switch flipped
back and forth reads the gradients it made for each trace."""

import numpy as np
import pytest

from tests.random_models import config, weights
from tinytui.model.diff import diff
from tinytui.model.io.document import ModelFile
from tinytui.session.session import Session

PROMPT = ("t3", "t1", "t4", "t1", "t5")


@pytest.fixture
def model():
    cfg = config(8, 2, 4, 12, 10, blocks=2, n_ctx=8, positions="learned", norm_affine=True)
    return ModelFile("random", "", weights(np.random.default_rng(31), cfg, 0.5), PROMPT, "t7")


def same_bits(a, b):
    assert list(a.tensors) == list(b.tensors)
    for name, d in a.tensors.items():
        e = b[name]
        assert np.array_equal(d.changed, e.changed), name
        assert np.array_equal(d.delta, e.delta) and np.array_equal(np.signbit(d.delta), np.signbit(e.delta))


def test_an_undo_chain_and_its_redo_work_out_each_diff_once(model):
    session = Session(model)
    made = []
    for block, value in ((1, 2.0), (0, -3.0), (1, 0.25)):
        session.edit(f"blocks.{block}.W_O", (3, 1), value)
        made.append(session.diff)
    undone = []
    for _ in made:
        session.undo()
        undone.append(session.diff)
        same_bits(session.diff, diff(session.previous, session.trace))  # an undo's: its change's turned
        assert any(d.n_changed for d in session.diff.tensors.values())
    for change in made:
        session.redo()
        assert session.diff is change  # the diff the change made, not worked out again
    for back in undone:
        session.undo()
        assert session.diff is back


def test_a_switch_flipped_back_and_forth_reads_the_gradients_it_made(model):
    session = Session(model)
    session.toggle("causal_mask")
    off = session.gradients
    off_value = off["grad.E"].copy()
    session.toggle("causal_mask")
    on = session.gradients
    assert on is not off and not np.array_equal(on["grad.E"], off_value)
    session.toggle("causal_mask")
    assert session.gradients is off and np.array_equal(off["grad.E"], off_value)
    session.toggle("causal_mask")
    assert session.gradients is on
