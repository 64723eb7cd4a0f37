"""A recording carried through other hands: line ends, a byte-order mark and blanks at a line's end
are not content (a Windows editor, git's autocrlf, an editor that trims or pads lines), so they still
replay; and a .jsonl cut short, damaged or shorter than the transcript's event data gives way to the
transcript's copy, with one line saying so."""

import pytest

from tinytui.cli.main import main
from tinytui.recording.recorder import Recorder, events_path
from tinytui.recording.replay import Replayer, ReplayError, load_recording
from tinytui.session.session import Session
from tinytui.tui.app import TinyTuiApp


@pytest.fixture
def lesson(chapter, tmp_path):
    """lesson.txt and lesson.jsonl of five events: a step, an edit, a toggle, an undo, a step."""
    session = Session(chapter)
    path = tmp_path / "lesson.txt"
    rec = Recorder(path, clock=None)
    rec.attach(session)
    session.goto(9)
    session.edit("W_O", (2, 0), "2")
    session.toggle("causal_mask")
    session.undo()
    session.goto(14)
    rec.stop()
    return path, session


def alone(path):
    """The transcript without its .jsonl: what is replayed is the event data it carries."""
    events_path(path).unlink()
    return path


def rewrite(path, change):
    """path's lines through change(line) -> line, written back as bytes (no newline translation)."""
    lines = path.read_bytes().decode("utf-8").split("\n")
    path.write_bytes("\n".join(change(raw) for raw in lines).encode("utf-8"))


def reaches(recording, live):
    """The recording replays whole to where the live session ended."""
    session = recording.new_session()
    replayer = Replayer(recording)
    replayer.apply_all(session)
    assert replayer.diverged is None and len(recording.events) == 5
    assert session.params == live.params and session.state.switches == live.state.switches
    assert session.step == live.step


EDITS = {
    "CRLF line ends": lambda raw: raw + "\r" if raw else raw,
    "blanks added at every line's end": lambda raw: raw + "   \t",
    "CRLF and blanks": lambda raw: raw + "  \r",
    "blanks trimmed": lambda raw: raw.rstrip(),
}


@pytest.mark.parametrize("edit", EDITS)
def test_a_transcript_alone_replays_after_an_editor_changed_its_line_ends(lesson, edit):
    path, live = lesson
    rewrite(alone(path), EDITS[edit])
    recording = load_recording(path)
    assert recording.source == path and recording.notice == ""
    reaches(recording, live)


@pytest.mark.parametrize("edit", EDITS)
def test_a_log_replays_after_an_editor_changed_its_line_ends(lesson, edit):
    path, live = lesson
    rewrite(path, EDITS[edit])
    rewrite(events_path(path), EDITS[edit])
    recording = load_recording(path)
    assert recording.source == events_path(path) and recording.notice == ""
    reaches(recording, live)


def test_a_byte_order_mark_and_blank_lines_at_the_end_are_not_content(lesson):
    path, live = lesson
    log = events_path(path)
    log.write_bytes(b"\xef\xbb\xbf" + log.read_bytes().replace(b"\n", b"\r\n") + b"\r\n\r\n")
    reaches(load_recording(path), live)
    text = alone(path)
    text.write_bytes(b"\xef\xbb\xbf" + text.read_bytes() + b"\n\n")
    reaches(load_recording(path), live)


def test_a_changed_value_is_still_refused_whatever_the_line_ends(lesson):
    path, _ = lesson
    text = alone(path)
    data = text.read_text(encoding="utf-8").replace('"new":2.0', '"new":3.0', 1)
    assert data != text.read_text(encoding="utf-8")
    text.write_bytes(data.replace("\n", "\r\n").encode("utf-8"))
    with pytest.raises(ReplayError, match=r"lesson\.txt:\d+: this line of event data was changed"):
        load_recording(path)


# ---- a damaged or short .jsonl beside an intact transcript ------------------------------------------


def cut(path, keep):
    """The .jsonl's first `keep` characters, as a full disk or a killed copy leaves it."""
    log = events_path(path)
    log.write_text(log.read_text(encoding="utf-8")[:keep], encoding="utf-8")


def lines(path, keep):
    log = events_path(path)
    log.write_text("".join(log.read_text(encoding="utf-8").splitlines(True)[:keep]), encoding="utf-8")


def garble(path, line):
    log = events_path(path)
    rows = log.read_text(encoding="utf-8").splitlines(True)
    rows[line - 1] = rows[line - 1][:-30] + "\n"  # a line cut short in the middle of the file
    log.write_text("".join(rows), encoding="utf-8")


DAMAGE = {
    "truncated mid-line": (lambda p: cut(p, len(events_path(p).read_text(encoding="utf-8")) - 40), 6),
    "not JSON in the middle": (lambda p: garble(p, 3), 3),
    "empty": (lambda p: cut(p, 0), 1),
}


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_damaged_log_gives_way_to_the_transcripts_copy_and_says_so(lesson, damage):
    path, live = lesson
    spoil, line = DAMAGE[damage]
    spoil(path)
    recording = load_recording(path)
    assert recording.source == path
    log = events_path(path)
    assert recording.notice.startswith(f"{log}:{line}: ")
    assert recording.notice.endswith(f"; replaying the event data in {path} instead")
    assert "\n" not in recording.notice
    reaches(recording, live)
    # the same when the .jsonl itself is named
    assert load_recording(log).source == path


def test_a_log_shorter_than_the_transcripts_data_gives_way_to_it(lesson):
    path, live = lesson
    lines(path, 4)  # the start and three of the five events: whole lines, so it reads as complete
    recording = load_recording(path)
    assert recording.source == path
    assert recording.notice == (
        f"{events_path(path)} holds 3 of the 5 events {path} carries (it was cut short); "
        f"replaying the event data in {path} instead"
    )
    reaches(recording, live)


def test_replay_print_says_it_in_one_line_and_replays_every_event(lesson, capsys):
    path, _ = lesson
    lines(path, 4)
    assert main(["replay", str(path), "--print"]) == 0
    said = capsys.readouterr()
    assert said.out.startswith(f"replayed 5 of 5 events from {path}\n")  # not "3 of 3"
    assert said.err == (
        f"tinytui: warning: {events_path(path)} holds 3 of the 5 events {path} carries (it was cut "
        f"short); replaying the event data in {path} instead\n"
    )


def test_without_event_data_in_the_transcript_a_cut_log_replays_what_came_before_the_cut(lesson):
    """A session killed mid-write: no event data in the transcript, the log's last line half there.
    Every whole line replays, and the notice names the cut line."""
    path, _ = lesson
    kept = [raw for raw in path.read_text(encoding="utf-8").splitlines() if not raw.startswith("#|")]
    path.write_text("\n".join(kept) + "\n", encoding="utf-8")  # as a killed session leaves it
    whole = events_path(path).read_text(encoding="utf-8")
    cut(path, len(whole) - 40)
    recording = load_recording(path)
    assert recording.source == events_path(path)
    assert [rec.line for rec in recording.events] == [2, 3, 4, 5]  # line 6 was cut
    assert recording.notice.startswith(f"{events_path(path)}:6: truncated: the last line is not complete")
    assert recording.notice.endswith("; replaying the 4 events before it")
    replayer = Replayer(recording)
    again = replayer.new_session()
    replayer.apply_all(again)
    assert replayer.diverged is None
    # a character cut in two on the last line is the same cut, not a file that is not UTF-8
    events_path(path).write_bytes(whole.encode()[:-40] + "é".encode()[:1])
    assert len(load_recording(path).events) == 4


def test_a_cut_start_line_alone_is_still_an_error(lesson):
    path, _ = lesson
    kept = [raw for raw in path.read_text(encoding="utf-8").splitlines() if not raw.startswith("#|")]
    path.write_text("\n".join(kept) + "\n", encoding="utf-8")
    cut(path, 300)
    with pytest.raises(ReplayError, match=r"lesson\.jsonl:1: truncated"):
        load_recording(path)


def test_a_log_that_holds_a_refused_value_is_refused_not_replaced(lesson):
    """Only damage gives way: a readable line replay refuses (a changed check) is still an error."""
    path, _ = lesson
    log = events_path(path)
    log.write_text(log.read_text(encoding="utf-8").replace('"step": 9', '"step": 10', 1), encoding="utf-8")
    with pytest.raises(ReplayError, match=r"lesson\.jsonl:2: "):
        load_recording(path)


def test_the_handout_says_it_too_and_holds_every_event(lesson, tmp_path, capsys):
    path, _ = lesson
    lines(path, 4)
    out = tmp_path / "lesson.md"
    assert main(["handout", str(path), "-o", str(out)]) == 0
    said = capsys.readouterr()
    assert said.err.startswith(f"tinytui: warning: {events_path(path)} holds 3 of the 5 events")
    assert said.err.count("\n") == 1 and "(5 events)" in said.out
    assert "## 5 · step 14/16" in out.read_text(encoding="utf-8")


async def test_the_app_says_it_when_a_replay_opens(lesson):
    path, _ = lesson
    lines(path, 4)
    replayer = Replayer(load_recording(path))
    app = TinyTuiApp(replayer.new_session(), replay=replayer)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        said = [n.message for n in app.toasts.notes()]
        assert any("holds 3 of the 5 events" in m and "replaying the event data in" in m for m in said)
        assert replayer.total == 5
