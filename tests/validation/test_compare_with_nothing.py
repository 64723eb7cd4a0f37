"""Enter on an empty "Compare with another model file" box asks for a path: it said the current folder
was a GPT-2 checkpoint folder without model.safetensors ("could not read : model.safetensors: missing")."""

from tests.apps import make_app
from tests.tui.helpers import answer_dialog

TITLE = "Compare with: another model file"


async def test_an_empty_path_asks_for_one(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        state = app.session.state
        said = await answer_dialog(pilot, app, TITLE, "space", "enter")
        assert said == "✗ Type the path of a model file or checkpoint folder, or a preset, e.g. edited.json"
        assert app.session.state is state and app.session.comparison is None
