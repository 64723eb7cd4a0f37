"""A teacher's note for the class: N (or ctrl+p → "Add a note for the class…") writes it into the
recording where the session stands; the transcript and the handout print it there, and a replay shows
it in turn."""

import pytest

from tests.apps import make_app
from tests.tui.helpers import press, status
from tinytui.cli.main import main
from tinytui.recording.recorder import Recorder
from tinytui.recording.replay import Replayer, ReplayError, load_recording
from tinytui.session.session import MAX_NOTE, Session
from tinytui.session.state import Refused
from tinytui.tui.screens.ask_screen import AskScreen
from tinytui.tui.screens.help_screen import HelpScreen

NOTE = (
    "Look at row 3 of A: with the mask on, 'chuck' can only attend to the words before it, so the "
    "weights on later positions are exactly 0. Ask the class why that matters for training."
)


@pytest.fixture
def noted(chapter, tmp_path):
    session = Session(chapter)
    path = tmp_path / "lesson.txt"
    rec = Recorder(path, clock=None)
    rec.attach(session)
    session.goto(8)
    session.add_note(NOTE)
    session.goto(9)
    rec.stop()
    return path, session


def test_the_transcript_prints_the_note_where_it_was_made(noted):
    path, _ = noted
    text = path.read_text(encoding="utf-8")
    head = "=== 2 · note for the class (at step 8) ="
    block = text[text.index(head) : text.index("=== 3 · step 9/16")].splitlines()
    assert block[1].startswith("note        Look at row 3 of A: with the mask on,")
    assert all(line.startswith(" " * 12) for line in block[2:-1]) and block[-1] == ""  # wrapped under it
    assert " ".join(" ".join(block[1:]).split()) == f"note {NOTE}"
    assert all(len(line) <= 100 for line in block)
    assert text.index("=== 1 · step 8/16") < text.index(head)


def test_the_handout_prints_the_note_in_its_section(noted, tmp_path, capsys):
    path, _ = noted
    out = tmp_path / "lesson.md"
    assert main(["handout", str(path), "-o", str(out)]) == 0
    md = out.read_text(encoding="utf-8")
    section = md[md.index("## 2 · note for the class (at step 8)") : md.index("## 3 · ")]
    assert "- **note**: Look at row 3 of A: with the mask on, 'chuck' can only attend" in section
    assert md.index("## 1 · step 8/16") < md.index("## 2 · note") < md.index("## 3 · step 9/16")


def test_a_replay_applies_the_note_in_turn_and_names_it(noted):
    path, live = noted
    replayer = Replayer(load_recording(path))
    session = replayer.new_session()
    replayer.apply_next(session)
    assert replayer.describe() == f"event 2 of 3: note: {NOTE}"
    heard = []
    session.listeners.append(heard.append)
    replayer.apply_all(session)
    assert [str(e.kind) for e in heard] == ["note", "step"] and heard[0].data == {"text": NOTE}
    assert replayer.diverged is None and session.step == live.step


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("   ", "a note needs some text"),
        ("x" * (MAX_NOTE + 1), f"a note is at most {MAX_NOTE} characters"),
        ("look \x1b[31mhere", "cannot hold control or invisible formatting characters"),
        ("right\u202eto left", "cannot hold control or invisible formatting characters"),
    ],
)
def test_a_note_that_cannot_be_kept_is_refused_in_one_line(chapter, text, why):
    session = Session(chapter)
    heard = []
    session.listeners.append(heard.append)
    with pytest.raises(Refused, match=why):
        session.add_note(text)
    assert heard == []


def test_a_note_over_several_lines_is_kept_as_one(chapter):
    event = Session(chapter).add_note("  first line\n  second\tline  ")
    assert event.data == {"text": "first line second line"}


def test_a_note_edited_in_the_log_is_checked(noted):
    path, _ = noted
    log = path.with_suffix(".jsonl")
    log.write_text(log.read_text(encoding="utf-8").replace(NOTE, "\\u001b[2J"), encoding="utf-8")
    with pytest.raises(ReplayError, match=r"lesson\.jsonl:3: note: text"):
        load_recording(path)


async def test_n_asks_for_a_note_and_records_it_and_help_and_palette_list_it(tmp_path):
    path = tmp_path / "lesson.txt"
    app = make_app("--record", str(path))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        palette = {c.title: c.help for c in app.palette_commands()}
        assert "into the recording (lesson.txt)" in palette["Add a note for the class…"]
        await press(pilot, "9", "N")
        assert isinstance(app.screen, AskScreen)
        await press(pilot, "enter")  # nothing typed: refused in the box, which stays open
        assert isinstance(app.screen, AskScreen)
        assert "a note needs some text" in str(app.screen.query_one("#ask-message").render())
        app.screen.query_one("#ask-value").value = "W_O mixes the two heads"
        await press(pilot, "enter")
        assert not isinstance(app.screen, AskScreen)
        assert "● REC 2 events" in status(app)
        await press(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        keys = {what: key for _, key, what, _ in app.screen.rows}
        assert keys["Note"] == "N"
    assert "note        W_O mixes the two heads" in path.read_text(encoding="utf-8")


async def test_n_without_a_recording_says_how_to_start_one(tmp_path):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        palette = {c.title: c.help for c in app.palette_commands()}
        assert "start a recording first (ctrl+t)" in palette["Add a note for the class…"]
        await press(pilot, "N")
        assert not isinstance(app.screen, AskScreen)
        assert any("ctrl+t starts one" in n.message for n in app.toasts.notes())
