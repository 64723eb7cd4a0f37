"""The inspector on a model with large weights: scores in the hundreds made the softmax's explanation
overflow (exp(800)), and the cursor on such an attention weight ended the app. It now says the scores
less the largest, and the numbers it writes give the value."""

import numpy as np

from tests.random_models import config, weights
from tests.tui.helpers import grid, press
from tinytui.model.io.document import ModelFile
from tinytui.model.switches import Switches
from tinytui.model.trace import DEFAULT_LR
from tinytui.session.session import Session
from tinytui.session.state import State
from tinytui.tui.app import TinyTuiApp


def large_app() -> TinyTuiApp:
    cfg = config(6, 2, 3, 8, 7, 1)
    params = weights(np.random.default_rng(5), cfg, 20.0)
    model = ModelFile("large", "", params, ("t1", "t2", "t3"), "t4")
    return TinyTuiApp(Session(model, State(params, model.prompt, model.target, Switches(), DEFAULT_LR)))


async def test_an_attention_weight_of_huge_scores_is_explained():
    app = large_app()
    scores = app.session.trace["blocks.0.scores.1"]
    assert np.abs(scores[np.tril_indices(3)]).max() > 710  # exp of it overflows a float
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "8")
        g = grid(app, "output:blocks.0.attn.{h}")
        g.focus()
        await pilot.pause()
        g.move_to(2, 0)
        await pilot.pause()
        text = app.query_one("#inspector").text
        assert text.startswith("A_1[2,0] = ") and "less the largest" in text
        assert app.is_running
