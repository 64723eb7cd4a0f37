"""Recording, replay and screenshots in the app, driven by keys as a user would."""

from pathlib import Path

import numpy as np
import pytest

from tests.apps import make_app
from tests.tui.helpers import W_O, press, status, type_into_cell
from tinytui.cli.main import main
from tinytui.cli.options import build_parser
from tinytui.cli.run_setup import setup_from
from tinytui.recording.replay import Replayer, load_recording
from tinytui.recording.transcript import prediction_text, rule
from tinytui.report.tables import fmt
from tinytui.tui.app import TinyTuiApp
from tinytui.tui.screens.path_screen import PathScreen


async def edit_cell(pilot, app, row: int, col: int, text: str) -> None:
    g = await type_into_cell(pilot, app, W_O, row, col, text)
    assert not g.editing


def messages(app) -> list[str]:
    return [n.message for n in app.toasts.notes()]


def footer_labels(app) -> list[str]:
    return [b.binding.description for b in app.screen.active_bindings.values() if b.binding.show]


def replay_app(path: Path, to_end: bool) -> TinyTuiApp:
    replayer = Replayer(load_recording(path), to_end)
    return TinyTuiApp(replayer.new_session(), replay=replayer)


def assert_same_run(a, b) -> None:
    """Two sessions at exactly the same place: weights bit for bit, switches, prompt, step, every tensor."""
    assert a.state.switches == b.state.switches
    assert (a.state.prompt, a.state.target, a.state.lr) == (b.state.prompt, b.state.target, b.state.lr)
    assert a.step == b.step and a.cursor == b.cursor and len(a.history) == len(b.history)
    for name in a.params:
        assert np.array_equal(a.params[name], b.params[name]), name
    assert set(a.trace.tensors) == set(b.trace.tensors)
    for name in a.trace.tensors:
        assert np.array_equal(a.trace[name], b.trace[name]), name
    assert a.trace.loss == b.trace.loss


async def record_lesson(tmp_path: Path):
    """steps, two edits, the mask switched off, an undo — all by keys, recorded with --record."""
    lesson = tmp_path / "lesson.txt"
    app = make_app("--record", str(lesson))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert "● REC 0 events · lesson.txt" in status(app)
        assert any("Recording to" in m for m in messages(app))
        await press(pilot, "n", "n", "9")
        before = app.session.trace
        await edit_cell(pilot, app, 0, 0, "0.5")
        after_first = app.session.trace
        await edit_cell(pilot, app, 1, 3, "2")
        await press(pilot, "m")  # the causal mask off
        assert not app.session.state.switches.causal_mask
        await press(pilot, "u")  # undo the mask: both edits stay
        assert app.session.state.switches.causal_mask
        await press(pilot, "n")
        assert "● REC 8 events · lesson.txt" in status(app)
        live = app.session
    return lesson, live, (before, after_first)


async def test_recorded_session_replays_to_exactly_the_same_state(tmp_path):
    lesson, live, (before, after_first) = await record_lesson(tmp_path)
    assert live.params["blocks.0.W_O"][0, 0] == 0.5 and live.params["blocks.0.W_O"][1, 3] == 2.0

    text = lesson.read_text()
    assert "W_O[h1.k0, thing]: 1.0000 → 0.5000" in text  # the app's labels, 4 decimals
    assert "W_O[h1.k1, wood]: -1.0000 → 2.0000" in text
    assert f"prediction  {prediction_text(before)} → {prediction_text(after_first)}" in text
    assert prediction_text(before) != prediction_text(after_first)
    assert "toggle the causal mask" in text and "· undo: back to before" in text
    read = text.split("\n\n\n=== event data for tinytui replay")[0]  # the #| lines follow it
    assert read.endswith(rule("recording stopped after 8 events"))  # quitting stopped it

    app = replay_app(lesson, to_end=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert_same_run(app.session, live)
        assert "replay finished: 8 of 8 events applied" in status(app)
        assert any("replay finished" in m for m in messages(app))
        assert "Next event" not in footer_labels(app)
        await press(pilot, "n")  # replay done: n is the next step again
        assert app.session.step == live.step + 1


async def test_replay_step_by_step_with_n(tmp_path):
    lesson, live, _ = await record_lesson(tmp_path)
    app = replay_app(lesson, to_end=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.session.step == 1 and app.session.params == live.model.params
        assert "replay · n: event 1 of 8: go to step 2" in status(app)
        assert footer_labels(app)[0] == "Next event"
        await press(pilot, "n")
        assert app.session.step == 2
        assert "event 1 of 8: go to step 2\nNext: event 2 of 8: go to step 3" in messages(app)
        assert "replay · n: event 2 of 8: go to step 3" in status(app)
        await press(pilot, "n", "n")  # step 3, then step 9
        assert app.session.step == 9
        assert "replay · n: event 4 of 8: edit W_O[h1.k0, thing]: 1.0 → 0.5" in status(app)
        await press(pilot, "n")
        assert app.session.params["blocks.0.W_O"][0, 0] == 0.5
        assert "prediction wood 0.3107 → wood " in status(app)
        await press(pilot, "n", "n", "n", "n")
        assert "replay finished: 8 of 8 events applied" in status(app)
        assert_same_run(app.session, live)
        assert app.recording.replayer.diverged is None
        await press(pilot, "n")
        assert app.session.step == live.step + 1


async def test_replay_after_the_user_changed_things_warns_that_it_diverged(tmp_path):
    lesson, _live, _ = await record_lesson(tmp_path)
    app = replay_app(lesson, to_end=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await press(pilot, "o")  # positional encoding off: not in the recording
        await press(pilot, "n")  # go to step 2 still applies, but the state is not the recorded one
        assert app.session.step == 2
        assert app.recording.replayer.diverged is not None
        assert any("no longer matches the recording" in m for m in messages(app))
        assert "· diverged" in status(app)


async def test_record_key_starts_and_stops_and_the_status_shows_rec(app, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        # starting lives in help and the palette; the footer only spends room on "Stop rec" while recording
        assert "Record" not in footer_labels(app) and "Stop rec" not in footer_labels(app)
        assert "Start recording to a file…" in [c.title for c in app.palette_commands()]
        assert "REC" not in status(app)
        await press(pilot, "ctrl+t")
        assert isinstance(app.screen, PathScreen)
        await press(pilot, "enter")  # the suggested name
        assert app.recording.recording()
        assert "● REC 0 events · lesson.txt" in status(app)
        assert "Stop rec" in footer_labels(app) and "Record" not in footer_labels(app)
        await press(pilot, "n")
        assert "● REC 1 event · lesson.txt" in status(app)
        titles = [c.title for c in app.palette_commands()]
        assert "Stop recording" in titles and "Start recording to a file…" not in titles
        await press(pilot, "ctrl+t")
        assert not app.recording.recording() and "REC" not in status(app)
        assert any("Recording stopped after 1 event: lesson.txt" in m for m in messages(app))
        text = (tmp_path / "lesson.txt").read_text()
        assert "1 · step 2/16" in text and "recording stopped after 1 event" in text
        assert len(load_recording(tmp_path / "lesson.txt").events) == 1

        # a second recording suggests a free name; the taken one is refused, however often Enter is pressed
        await press(pilot, "ctrl+t")
        box = app.screen.query_one("#path-input")
        assert box.value == "lesson-2.txt"
        box.value = "lesson.txt"
        await press(pilot, "enter", "enter")
        assert isinstance(app.screen, PathScreen)
        said = str(app.screen.query_one("#path-message").render())
        assert "lesson.txt and lesson.jsonl exist; a recording never replaces a file" in said
        assert not app.recording.recording()
        box.value = "lesson-2.txt"
        await press(pilot, "enter")
        assert app.recording.recording() and app.recording.recorder.path == Path("lesson-2.txt")
        assert (tmp_path / "lesson.txt").read_text() == text  # the first recording, kept as it was


async def test_an_unwritable_path_records_in_memory_until_saved(tmp_path):
    app = make_app("--record", str(tmp_path / "no such folder" / "lesson.txt"))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert any("still recording in memory" in m for m in messages(app))
        assert "● REC 0 events · in memory only" in status(app)
        await press(pilot, "n", "n")
        assert "● REC 2 events · in memory only" in status(app)
        save = next(c for c in app.palette_commands() if c.title == "Save recording to…")
        save.run()
        await pilot.pause()
        app.screen.query_one("#path-input").value = str(tmp_path / "kept.txt")
        await press(pilot, "enter")
        assert "● REC 2 events · kept.txt" in status(app)
        await press(pilot, "n")
    text = (tmp_path / "kept.txt").read_text()
    assert "1 · step 2/16" in text and "3 · step 4/16" in text
    assert [e.kind for e in load_recording(tmp_path / "kept.txt").events] == ["step"] * 3


async def test_screenshot_is_named_after_the_step(app, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "8", "w")
        shot = tmp_path / "tinytui-step08-causal-mask-and-softmax.svg"
        assert shot.exists()
        svg = shot.read_text()
        assert svg.startswith("<svg") and "Causal" in svg and "softmax" in svg
        assert any(str(shot.name) in m for m in messages(app))
        await press(pilot, "w")  # never overwrites: the next free name
        assert (tmp_path / "tinytui-step08-causal-mask-and-softmax-2.svg").exists()

        # the palette's command does the same; Textual's own (Downloads, a date) is not offered
        await press(pilot, "n")
        command = next(c for c in app.palette_commands() if c.title == "Save a screenshot (SVG)")
        assert "tinytui-step09-heads-combined.svg" in command.help
        command.run()
        await pilot.pause()
        assert (tmp_path / "tinytui-step09-heads-combined.svg").exists()
        assert "Screenshot" not in [c.title for c in app.get_system_commands(app.screen)]


async def test_screenshot_to_a_chosen_path_asks_before_overwriting(app, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.svg").write_text("old")
    async with app.run_test(size=(120, 40)) as pilot:
        app.recording.screenshot_as()
        await pilot.pause()
        box = app.screen.query_one("#path-input")
        assert box.value == "tinytui-step01-tokens-to-ids.svg"
        box.value = "mine.png"
        await press(pilot, "enter")
        assert "SVG" in str(app.screen.query_one("#path-message").render())
        box.value = "mine"
        await press(pilot, "enter")
        assert "mine.svg exists" in str(app.screen.query_one("#path-message").render())
        await press(pilot, "enter")
        await pilot.pause()
        assert not isinstance(app.screen, PathScreen)
        assert (tmp_path / "mine.svg").read_text().startswith("<svg")


@pytest.mark.parametrize("to_end", [False, True])
def test_replay_command_opens_the_app(tmp_path, monkeypatch, to_end):
    from tinytui.recording.recorder import Recorder
    from tinytui.recording.replay import Recording
    from tinytui.session.session import Session

    session = Session(setup_from(build_parser().parse_args([])).model)
    recorder = Recorder(tmp_path / "lesson.txt")
    recorder.attach(session)
    session.goto(5)
    recorder.stop()
    opened: list[TinyTuiApp] = []
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setattr(TinyTuiApp, "run", lambda self: opened.append(self))
    monkeypatch.setenv("TEXTUAL_DRIVER", "textual.drivers.headless_driver:HeadlessDriver")  # no terminal
    argv = ["--theme", "light", "replay", str(tmp_path / "lesson.txt")] + (["--to-end"] if to_end else [])
    assert main(argv) == 0
    (app,) = opened
    assert isinstance(app.recording.replayer.recording, Recording) and app.recording.replayer.to_end is to_end
    assert app.recording.replayer.total == 1 and app.theme == "tinytui-light"
    assert app.session.step == 1 and fmt(app.session.trace.loss) == fmt(session.trace.loss)


async def test_in_the_backward_walk_n_walks_even_during_a_replay(tmp_path):
    lesson, _live, _ = await record_lesson(tmp_path)
    app = replay_app(lesson, to_end=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "G", "p")  # step 15, where the backward walk starts
        await press(pilot, "b")
        assert app.session.mode.backward
        step = app.session.step
        await press(pilot, "n")
        assert app.session.step == step - 1 and app.recording.replayer.position == 0
        await press(pilot, "b", "n")  # out of the walk: n is the next recorded event again
        assert app.recording.replayer.position == 1
