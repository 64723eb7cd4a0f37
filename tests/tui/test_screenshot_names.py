"""The quick screenshot (w) never replaces a file: its free name is taken when the file is written,
so two presses before the screen is next drawn, or a file put there in between, each keep theirs."""

from tests.apps import make_app

NAME = "tinytui-step01-tokens-to-ids"


async def test_two_quick_screenshots_are_two_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.recording.screenshot()  # both asked for before the next refresh, as two quick presses are
        app.recording.screenshot()
        await pilot.pause()
        await pilot.pause()
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{NAME}-2.svg", f"{NAME}.svg"]
    assert all(p.read_text(encoding="utf-8").startswith("<svg") for p in tmp_path.iterdir())


async def test_a_file_put_there_before_the_screenshot_is_written_is_kept(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.recording.screenshot()
        (tmp_path / f"{NAME}.svg").write_text("someone else's\n", encoding="utf-8")
        await pilot.pause()
        await pilot.pause()
    assert (tmp_path / f"{NAME}.svg").read_text(encoding="utf-8") == "someone else's\n"
    assert (tmp_path / f"{NAME}-2.svg").read_text(encoding="utf-8").startswith("<svg")
