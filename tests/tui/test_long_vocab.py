"""A vocabulary too long to list (GPT-2's 50,257 pieces; here 600 tokens): the target and a prompt token
are typed, exactly or by id, and a token that is not in it is refused in one line with the box open."""

import numpy as np

from tests.random_models import config, weights
from tests.tui.helpers import press
from tinytui.model.io.document import ModelFile
from tinytui.session.session import Session
from tinytui.tui.app import TinyTuiApp
from tinytui.tui.screens.ask_screen import AskScreen


def long_vocab() -> TinyTuiApp:
    cfg = config(8, 2, 4, 16, 600)
    model = ModelFile("long", "", weights(np.random.default_rng(3), cfg, 0.3), ("t1", "t2", "t3"), "t4")
    return TinyTuiApp(Session(model))


async def test_the_target_is_typed_and_a_wrong_one_refused():
    app = long_vocab()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "y")
        assert isinstance(app.screen, AskScreen)
        box = app.screen
        await press(pilot, *["backspace"] * 4, *"beaver", "enter")
        assert (
            app.screen is box
            and "'beaver' is not one of the 600 tokens" in box.query_one("#ask-message").render().plain
        )
        assert app.session.state.target == "t4"  # nothing changed
        await press(pilot, *["backspace"] * 6, *"t550", "enter")
        assert not isinstance(app.screen, AskScreen) and app.session.state.target == "t550"
        await press(pilot, "y", *["backspace"] * 4, *"17", "enter")  # an id
        assert app.session.state.target == "t17"
