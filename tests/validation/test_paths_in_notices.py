"""A notice that names a file the user typed shows the name as typed: "[bold]x.json" was announced
as a bold "x.json" (the notice read the name as markup)."""

from tests.apps import make_app
from tests.tui.helpers import press
from tinytui.tui.widgets.notice_line import NoticeLine


async def test_a_saved_file_is_named_as_typed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9", "tab", "e", "0", ".", "5", "enter")  # an edit, so there is a change to save
        await press(pilot, "ctrl+s", "ctrl+u")
        await pilot.press(*"[bold]x.json")
        await press(pilot, "enter")
        assert (tmp_path / "[bold]x.json").exists()
        line = app.screen.query_one(NoticeLine)
        shown = " ".join(line.render_line(y).text for y in range(line.size.height))
        assert "Saved [bold]x.json. Open it again with: tinytui --model [bold]x.json" in shown
