"""The sampling settings a user chose in the app reach the replay end to end: chosen from ctrl+p while
recording, they are on the recording, and `tinytui replay --print` shows the next token's choice under
them (what step 14 shows in the app), as the transcript's header does for a recording started under them."""

from tests.apps import make_app
from tests.tui.helpers import press
from tinytui.cli.main import main
from tinytui.model.generation.sampling import Sampling
from tinytui.recording.recorder import Recorder
from tinytui.recording.replay import Replayer, load_recording
from tinytui.report.tables import fmt
from tinytui.session import next_token
from tinytui.session.session import Session


def flat(text: str) -> str:
    """Text with its line wrapping undone: the transcript wraps at 100 columns."""
    return " ".join(text.split())


def choice_line(session) -> str:
    """The next token line as a reader should see it, computed from the live session."""
    chosen = next_token.next_pick(session)
    token = session.model.cfg.vocab[chosen.token]
    return (
        f"next token  {session.sampling.describe()}: + appends {token!r} (chance "
        f"{fmt(float(chosen.probs[chosen.token]))} under these settings, drawn with u = {fmt(chosen.draw)})"
    )


async def test_a_temperature_set_in_the_app_is_replayed_and_printed(tmp_path, capsys):
    path = tmp_path / "lesson.txt"
    app = make_app("--record", str(path))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        next(c for c in app.palette_commands() if c.title == "Set temperature…").run()
        await pilot.pause()
        app.screen.query_one("#ask-value").value = "1.5"
        await press(pilot, "enter", "plus")
        await press(pilot, "ctrl+t")
        live = app.session
        expected = choice_line(live)
        assert live.sampling == Sampling(1.5) and len(live.state.prompt) == 5
    assert "=== 1 · the next token is now chosen T 1.5 · seed 0 (at step 1) " in path.read_text()

    assert main(["replay", str(path), "--print"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("replayed 2 of 2 events")
    assert f"prompt      {' '.join(live.state.prompt)}\n" in out
    assert flat(expected) in flat(out)  # the choice under the user's settings, not greedy's


def test_a_recording_started_under_drawn_settings_says_so_in_its_header(chapter, tmp_path, capsys):
    session = Session(chapter)
    session.set_sampling(Sampling(0.8, 3, 0.9, 7))
    rec = Recorder(tmp_path / "drawn.txt", clock=None)
    rec.attach(session)
    expected = choice_line(session)
    rec.stop()
    header = (tmp_path / "drawn.txt").read_text(encoding="utf-8").split("=== start")[0]
    assert flat(expected) in flat(header)
    assert "T 0.8 · top-k 3 · top-p 0.9 · seed 7" in expected

    again = Replayer(load_recording(tmp_path / "drawn.txt")).new_session()
    assert choice_line(again) == expected  # the replay starts under them, so step 14 shows the same

    assert main(["handout", str(tmp_path / "drawn.txt"), "-o", str(tmp_path / "drawn.md")]) == 0
    intro = (tmp_path / "drawn.md").read_text(encoding="utf-8").split("## Start")[0]
    assert f"Next token: {expected.removeprefix('next token  ')}. 0 events follow." in intro


def test_a_greedy_session_prints_no_next_token_line(chapter, tmp_path, capsys):
    session = Session(chapter)
    rec = Recorder(tmp_path / "greedy.txt", clock=None)
    rec.attach(session)
    session.goto(14)
    rec.stop()
    assert main(["replay", str(tmp_path / "greedy.txt"), "--print"]) == 0
    out = capsys.readouterr().out
    assert "prediction  wood (p 0.3107)" in out and "next token" not in out  # greedy: the prediction
