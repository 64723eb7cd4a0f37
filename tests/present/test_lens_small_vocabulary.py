"""The logit lens of a model of one or two tokens names as many likeliest tokens as there are: before,
its table kept three 'top' columns over rows of fewer cells, and the app crashed drawing step 13."""

import numpy as np
import pytest

from tests.random_models import config, weights
from tinytui.model.io.document import ModelFile
from tinytui.present.lens_tables import lens_grid
from tinytui.present.view import View
from tinytui.session.session import Session


@pytest.mark.parametrize("vocab", [1, 2, 3])
def test_the_lens_has_a_top_column_per_token_up_to_three(vocab):
    cfg = config(4, 2, 2, 8, vocab)
    params = weights(np.random.default_rng(1), cfg, 0.5)
    session = Session(ModelFile("tiny", "", params, ("t0",), "t0"))
    session.goto(13)
    spec = lens_grid(View.of(session))
    assert spec.cols == ("p(t0)", "bar", *(f"top {i + 1}" for i in range(vocab)))
    assert all(len(row) == len(spec.cols) for row in spec.values)
    assert spec.cells[-1][2].startswith(("t0 ", "t1 ", "t2 "))
