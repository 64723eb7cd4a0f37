"""A refusal that repeats what was typed shows it as typed: "[/]" in a prompt to compare with crashed
the app (Textual read the dialog's message line as markup: MarkupError, auto closing tag has nothing
to close). Found by the mode fuzzer (seed 2122)."""

import pytest

from tests.apps import make_app
from tests.tui.helpers import answer_dialog

TITLE = "Compare with: another prompt"


@pytest.mark.parametrize("typed", ["[/]", "[b]a", "a [link=x]b"])
async def test_typed_markup_in_a_refusal_is_shown_as_typed(tmp_path, monkeypatch, typed):
    monkeypatch.chdir(tmp_path)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        state = app.session.state
        said = await answer_dialog(
            pilot, app, TITLE, "ctrl+u", *[{" ": "space"}.get(c, c) for c in typed], "enter"
        )
        assert said == f"✗ the prompt: {typed.split()[-1]!r} is not in the vocabulary" + (
            " (a chuck how much wood woodchuck would .)"
        )
        assert app.return_code is None and app.session.state is state
