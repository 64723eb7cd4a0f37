"""A crash exits non-zero and loses nothing: the recording ends cleanly, the edited model is saved to a
fresh tinytui-crash-….json, and stderr says where both are once the terminal is back."""

import subprocess
import sys
import textwrap
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from tests.apps import make_app
from tinytui.cli import main
from tinytui.model.io.model_file import load
from tinytui.recording.replay import load_recording
from tinytui.tui.controllers.step_controller import StepController
from tinytui.tui.crash import rescue

HEADLESS = "textual.drivers.headless_driver:HeadlessDriver"


class Boom(RuntimeError):
    pass


def explode(self) -> None:
    raise Boom("injected for the test")


async def edited_then_crash(app, pilot) -> None:
    await pilot.press("m", "L")  # the mask off and one learning step: the weights are edited
    await pilot.pause()
    await pilot.press("n")  # StepController.next raises
    await pilot.pause()


async def test_a_crash_saves_the_model_and_ends_the_recording(tmp_path, monkeypatch):
    monkeypatch.setattr(StepController, "next", explode)
    app = make_app("--record", "lesson.txt", "--prompt", "a wood chuck")
    with pytest.raises(Boom):
        async with app.run_test(size=(120, 40)) as pilot:
            await edited_then_crash(app, pilot)
    assert app.return_code == 1
    report = app.rescue()  # as tinytui.cli.debugger.run_app does once Textual has exited
    assert report is not None and report.error == "Boom: injected for the test"

    saved = report.model
    assert saved is not None and saved.parent == tmp_path and saved.name.startswith("tinytui-crash-")
    back = load(saved)  # loads back with the edits, bit for bit
    s = app.session.state
    assert back.prompt == ("a", "wood", "chuck") and back.target == s.target
    assert back.params == s.params and set(back.params) == set(s.params)
    assert all(np.array_equal(back.params[n], s.params[n]) for n in s.params)
    assert back.params != app.session.model.params  # the learning step's edits are in it

    assert report.recording == Path("lesson.txt")
    text = (tmp_path / "lesson.txt").read_text()
    lesson = text.split("=== event data for tinytui replay")[0]  # the appendix of #| lines follows it
    assert lesson.rstrip().splitlines()[-1].count("recording stopped after 2 events") == 1
    assert len(load_recording(tmp_path / "lesson.jsonl").events) == 2

    lines = report.lines()
    assert len(lines) == 2
    assert "Boom: injected for the test" in lines[0]
    assert str(saved) in lines[1] and "lesson.txt" in lines[1] and "lesson.jsonl" in lines[1]


def crash_in(argv: list[str], monkeypatch) -> int:
    """main(argv) as `tinytui ARGV` would run it, headless, pressing m L n; n raises (a step, or the
    next event of a replay)."""
    from textual.app import App

    from tinytui.tui.app import TinyTuiApp
    from tinytui.tui.controllers.recording_controller import RecordingController

    monkeypatch.setattr(StepController, "next", explode)
    monkeypatch.setattr(RecordingController, "next_event", explode)

    async def keys(pilot) -> None:
        await edited_then_crash(pilot.app, pilot)

    def run(app) -> None:
        App.run(app, headless=True, size=(120, 40), auto_pilot=keys)

    monkeypatch.setattr(TinyTuiApp, "run", run)
    monkeypatch.setenv("TEXTUAL_DRIVER", HEADLESS)  # no terminal under pytest: the driver is named
    return main.main(argv)


def test_tinytui_exits_1_and_says_where_everything_is(tmp_path, monkeypatch, capsys):
    assert crash_in(["--record", "lesson.txt"], monkeypatch) == 1
    err = capsys.readouterr().err.splitlines()
    saved = sorted(tmp_path.glob("tinytui-crash-*.json"))
    assert len(saved) == 1
    assert err[-2] == "tinytui: crashed (Boom: injected for the test); the traceback is above."
    assert f"the edited model was saved to {saved[0]} (open it with: tinytui --model {saved[0]})" in err[-1]
    assert "the recording is in lesson.txt and lesson.jsonl (tinytui replay lesson.txt)" in err[-1]
    assert load(saved[0]).params != make_app().session.model.params  # it loads, with the edits
    assert "recording stopped after 2 events" in (tmp_path / "lesson.txt").read_text()


def test_a_crash_while_drawing_is_rescued_too(tmp_path, monkeypatch, capsys):
    """An error raised outside any key's action (here: the status line drawing itself) still exits 1
    with the model saved."""
    from tinytui.tui.widgets.status_bar import StatusBar

    draw = StatusBar.render_line

    def draw_then_fail(self, y):
        if not self.app.session.state.switches.causal_mask:  # m, the first key, turned it off
            raise Boom("while drawing")
        return draw(self, y)

    monkeypatch.setattr(StatusBar, "render_line", draw_then_fail)
    assert crash_in(["--prompt", "a wood chuck"], monkeypatch) == 1
    err = capsys.readouterr().err.splitlines()
    saved = sorted(tmp_path.glob("tinytui-crash-*.json"))
    assert len(saved) == 1 and load(saved[0]).prompt == ("a", "wood", "chuck")
    assert err[-2].startswith("tinytui: crashed") and err[-2].endswith("; the traceback is above.")
    assert any("Boom: while drawing" in line for line in err)


def test_an_error_nobody_saw_is_not_named(tmp_path):
    """In a terminal Textual keeps an error raised while drawing to itself (it prints the traceback and
    exits 1): the report then points at the traceback rather than naming it."""
    app = make_app("--prompt", "a wood chuck")
    report = rescue(app.session, None, None, folders=[tmp_path])
    assert report.lines()[0] == "tinytui: crashed; the traceback is above."
    assert report.model is not None and load(report.model).prompt == ("a", "wood", "chuck")


def test_replay_exits_1_too(tmp_path, monkeypatch, capsys):
    assert crash_in(["--record", "first.txt"], monkeypatch) == 1
    capsys.readouterr()
    assert crash_in(["replay", "first.txt"], monkeypatch) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[-2].startswith("tinytui: crashed (Boom: injected for the test)")
    assert "nothing was being recorded" in err[-1]
    assert len(list(tmp_path.glob("tinytui-crash-*.json"))) == 2


def test_a_crash_copy_never_overwrites(tmp_path):
    app = make_app("--prompt", "a wood chuck")  # edited
    when = datetime(2024, 5, 6, 7, 8, 9)
    taken = tmp_path / "tinytui-crash-20240506-070809.json"
    taken.write_text("mine")
    (tmp_path / "tinytui-crash-20240506-070809-2.json").symlink_to(tmp_path / "elsewhere.json")
    report = rescue(app.session, None, Boom("x"), folders=[tmp_path], now=when)
    assert report.model == tmp_path / "tinytui-crash-20240506-070809-3.json"
    assert taken.read_text() == "mine" and not (tmp_path / "elsewhere.json").exists()
    assert load(report.model).params == app.session.params


def test_an_unwritable_folder_falls_back_to_the_next(tmp_path):
    app = make_app("--prompt", "a wood chuck")  # edited
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    report = rescue(app.session, None, Boom("x"), folders=[not_a_folder, tmp_path / "config" / "tinytui"])
    assert report.model is not None and report.model.parent == tmp_path / "config" / "tinytui"
    assert load(report.model).params == app.session.params
    assert "nothing was being recorded" in report.lines()[1]
    nowhere = rescue(app.session, None, Boom("x"), folders=[not_a_folder])
    assert nowhere.model is None and "could not be saved" in nowhere.lines()[1]


def test_a_recording_in_memory_only_is_written_beside_the_model(tmp_path):
    from tinytui.recording.recorder import Recorder

    app = make_app("--prompt", "a wood chuck")  # edited
    recorder = Recorder(None)
    recorder.attach(app.session)
    app.session.next()
    when = datetime(2024, 5, 6, 7, 8, 9)
    report = rescue(app.session, recorder, Boom("x"), folders=[tmp_path], now=when)
    assert report.recording == tmp_path / "tinytui-crash-20240506-070809.txt"
    assert report.model == tmp_path / "tinytui-crash-20240506-070809.json"
    assert "recording stopped after 1 event" in report.recording.read_text()
    assert (tmp_path / "tinytui-crash-20240506-070809.jsonl").exists()


def test_a_real_process_exits_non_zero(tmp_path):
    # `tinytui` itself in a child process, a controller method made to raise before main() runs
    script = textwrap.dedent(
        """
        import sys
        from tinytui.cli import main as cli
        from tinytui.tui.app import TinyTuiApp
        from tinytui.tui.controllers.step_controller import StepController

        def explode(self):
            raise RuntimeError("forced crash")

        StepController.next = explode
        run = TinyTuiApp.run

        async def keys(pilot):
            await pilot.press("n")
            await pilot.pause()

        TinyTuiApp.run = lambda app: run(app, headless=True, size=(80, 24), auto_pilot=keys)
        sys.exit(cli.main(sys.argv[1:]))
        """
    )
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"}
    env["TEXTUAL_DRIVER"] = HEADLESS  # the child has no terminal: its driver is named
    done = subprocess.run(
        [sys.executable, "-c", script, "--record", "lesson.txt", "--prompt", "a wood"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "RuntimeError: forced crash" in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    saved = next(tmp_path.glob("tinytui-crash-*.json"))
    assert str(saved) in last and "lesson.txt" in last
    assert load(saved).prompt == ("a", "wood")


def test_in_a_terminal_a_crash_is_rescued_once_textual_has_exited(tmp_path):
    """In a real terminal (a pty) Textual keeps a handler's error, prints its traceback and exits 1;
    tinytui then saves the edited model and names the error a key's action raised."""
    import os
    import select
    import time

    script = textwrap.dedent(
        """
        import sys
        from tinytui.cli import main as cli
        from tinytui.tui.controllers.step_controller import StepController

        def explode(self):
            raise RuntimeError("forced crash")

        StepController.next = explode
        sys.exit(cli.main(sys.argv[1:]))
        """
    )
    master, slave = os.openpty()
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "PATH": "/usr/bin:/bin", "TERM": "xterm-256color"}
    child = subprocess.Popen(
        [sys.executable, "-c", script, "--prompt", "a wood"],
        stdin=slave, stdout=slave, stderr=slave, cwd=tmp_path, env=env, start_new_session=True,
    )  # fmt: skip
    os.close(slave)
    seen, sent, deadline = b"", False, time.monotonic() + 60
    while child.poll() is None and time.monotonic() < deadline:
        if select.select([master], [], [], 0.2)[0]:
            try:
                seen += os.read(master, 1 << 16)
            except OSError:
                break
            if b"\x1b[6n" in seen[-4096:]:  # a cursor-position query: answer as a terminal would
                os.write(master, b"\x1b[1;1R")
        elif not sent and b"prediction" in seen:  # drawn and quiet: press n
            os.write(master, b"n")
            sent = True
    if child.poll() is None:
        child.kill()
    while select.select([master], [], [], 0.2)[0]:
        try:
            data = os.read(master, 1 << 16)
        except OSError:
            break
        if not data:
            break
        seen += data
    os.close(master)
    assert child.wait(10) == 1
    out = seen.decode(errors="replace")
    assert "tinytui: crashed (RuntimeError: forced crash); the traceback is above." in out
    saved = next(tmp_path.glob("tinytui-crash-*.json"))
    assert load(saved).prompt == ("a", "wood")


def test_the_message_never_sends_a_control_character_to_the_terminal(tmp_path):
    from tinytui.tui.crash import CrashReport

    report = CrashReport("Boom: \x1b[2J", tmp_path / "m\x07.json", recording=tmp_path / "rec\x1b]0;x.txt")
    assert all(line.isprintable() for line in report.lines())
    assert "\\x07" in report.lines()[1] and "\\x1b]0;x" in report.lines()[1]


def test_an_unedited_model_needs_no_copy(tmp_path):
    app = make_app()
    app.session.next()  # moving through the steps changes nothing worth saving
    report = rescue(app.session, None, Boom("x"), folders=[tmp_path])
    assert report.model is None and report.unedited and list(tmp_path.iterdir()) == []
    assert "the model was not edited, so no copy was needed" in report.lines()[1]
