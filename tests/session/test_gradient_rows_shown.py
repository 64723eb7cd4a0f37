"""With a vocabulary too big to show whole, the overlay at step 14 and the walk's step 14 show a window
of ∂L/∂E (and of its unembedding share) made from those rows only (Gradients.rows): the whole tables,
300 MB each at GPT-2 small, are not made, and the window's numbers are the whole table's."""

import numpy as np
import pytest

from tests.random_models import config, weights
from tinytui.model.backward.gradients import gradients
from tinytui.model.io.document import ModelFile
from tinytui.present.backward_tables import pane_sections
from tinytui.present.cells import all_items
from tinytui.present.view import View
from tinytui.session.session import Session


@pytest.fixture
def session():
    cfg = config(8, 2, 4, 16, 3000, blocks=2)  # E: 24,000 cells, over the 16,384 of a whole table
    params = weights(np.random.default_rng(5), cfg, 0.5)
    return Session(ModelFile("big vocabulary", "seeded random weights", params, ("t7", "t2", "t9"), "t4"))


def shown(session, step, backward):
    session.goto(step, backward=backward)
    sections = pane_sections(View.of(session))
    return {item.key: item for item in all_items(sections)}, set(session.gradients.computed())


@pytest.mark.parametrize(("backward", "name"), [(False, "grad.E"), (True, "grad.E.unembed")])
def test_step_14_shows_a_window_of_e_gradient_made_from_its_rows(session, backward, name):
    if not backward:
        session.set_mode(gradients=True)
    items, done = shown(session, 14, backward)
    assert name not in done and "grad.E.unembed" not in done
    grid = items[f"grad:{name}"]
    full = gradients(session.params, session.trace)[name]
    rows = [src[1][0] for src in (row[0] for row in grid.sources)]
    assert len(rows) < full.shape[0] and {7, 2, 9, 4} <= set(rows)  # the prompt's tokens and the target
    for r, row in enumerate(grid.sources):
        for c, (src_name, (t, j)) in enumerate(row):
            assert src_name == name and grid.values[r][c] == float(full[t, j])
