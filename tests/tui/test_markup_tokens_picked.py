"""A vocabulary whose tokens look like Textual markup ('[/]', '[b]bold') is listed as written when a
token is picked (y, i): before, the pick list read each line as markup and the app crashed
(MarkupError: auto closing tag ('[/]') has nothing to close)."""

from dataclasses import replace

import numpy as np
from textual.widgets import OptionList

from tests.random_models import config, weights
from tests.tui.helpers import press
from tinytui.model.io.document import ModelFile
from tinytui.session.session import Session
from tinytui.tui.app import TinyTuiApp
from tinytui.tui.screens.pick_screen import PickScreen

VOCAB = ("a", "[/]", "[b]bold", "[red]x[/red]")


async def test_tokens_that_look_like_markup_are_picked_as_written():
    cfg = replace(config(4, 2, 2, 8, len(VOCAB)), vocab=VOCAB)
    params = weights(np.random.default_rng(1), cfg, 0.5)
    app = TinyTuiApp(Session(ModelFile("markup", "", params, ("a", "a"), "a")))
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "y")
        assert isinstance(app.screen, PickScreen)
        options = app.screen.query_one(OptionList)
        shown = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert shown == [f"{i}  {token}" for i, token in enumerate(VOCAB)]
        await press(pilot, "down", "enter")
        assert app.session.state.target == "[/]"
