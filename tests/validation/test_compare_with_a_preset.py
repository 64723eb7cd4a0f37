"""'Compare with: another model file' takes what --model takes: a preset's name loads that preset (it was
read as a file in the current folder), and a refusal names the path once ("could not read x: x: …")."""

from pathlib import Path

from tests.apps import make_app
from tinytui.model import checks
from tinytui.model.io.model_file import load_default
from tinytui.session.second_runs import load_other
from tinytui.session.session import Refused

TITLE = "Compare with: another model file"


def refusal(path: str) -> str:
    try:
        load_other(path, load_default().params)
    except Refused as refused:
        return str(refused)
    raise AssertionError(f"{path} was not refused")


def test_a_refusal_names_the_path_once(tmp_path):
    missing = str(tmp_path / "nope.json")
    said = refusal(missing)
    assert said == f"{missing}: cannot read the file (FileNotFoundError: No such file or directory)"
    said = refusal("nosuch")
    assert said.startswith("'nosuch': no such file, and no preset of that name (presets: chapter17")
    long = "n" * 5000  # a long name is named once, cut short
    assert refusal(long).startswith(checks.shown(long) + ": no such file, and no preset")
    assert refusal("woodland") == "woodland cannot be compared: the two models do not have the same weights"


async def test_a_preset_by_name_is_compared(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no file of that name here: the name is the preset's
    assert not Path("chapter17-trained").exists()
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        next(c for c in app.palette_commands() if c.title.startswith(TITLE)).run()
        await pilot.pause()
        await pilot.press("ctrl+u", *"chapter17-trained", "enter")
        await pilot.pause()
        assert app.session.comparison is not None
