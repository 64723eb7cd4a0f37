"""A transcript's event data is checked record by record: a `#|+` line removed, repeated or moved is
refused, naming the line, and transcripts written before the chained checksums still replay."""

import shutil
from pathlib import Path

import pytest

from tinytui.cli.main import main
from tinytui.recording.recorder import Recorder
from tinytui.recording.replay import Replayer, ReplayError, load_recording
from tinytui.session.session import Session

OLD = Path(__file__).parent / "fixtures" / "per-line-checksums.txt"  # written before the chain


@pytest.fixture
def lesson(chapter, tmp_path):
    """A transcript alone (no .jsonl beside it) and its lines; record 2 (the edit) spans several."""
    path = tmp_path / "lesson.txt"
    session = Session(chapter)
    rec = Recorder(path, clock=None)
    rec.attach(session)
    session.goto(14)
    session.edit("W_O", (2, 0), "2")
    session.learn_step()
    rec.stop()
    path.with_suffix(".jsonl").unlink()
    return path, path.read_text(encoding="utf-8").splitlines(keepends=True)


def learn_record(lines):
    """The line numbers (from 1) of the learn event's record: its #| line and its #|+ lines."""
    first = next(i for i, x in enumerate(lines) if x.startswith("#| ") and '"kind":"learn"' in x)
    end = first + 1
    while end < len(lines) and lines[end].startswith("#|+"):
        end += 1
    return list(range(first + 1, end + 1))


def refused(path):
    with pytest.raises(ReplayError) as err:
        load_recording(path)
    assert "\n" not in str(err.value)
    return str(err.value)


def test_a_whole_transcript_replays(lesson):
    path, lines = lesson
    assert len(learn_record(lines)) > 4  # a learn record carries every weight: many lines
    replayer = Replayer(load_recording(path))
    replayer.apply_all(replayer.new_session())
    assert replayer.done and replayer.diverged is None


def test_a_removed_continuation_line_is_named(lesson):
    path, lines = lesson
    numbers = learn_record(lines)
    k = numbers[2]  # a line in the middle of the record
    path.write_text("".join(lines[: k - 1] + lines[k:]), encoding="utf-8")
    message = refused(path)
    assert message.startswith(f"{path}:{k}: this line of event data was changed, or a line of its record")
    assert "removed, repeated or moved" in message


def test_a_repeated_continuation_line_is_named(lesson):
    path, lines = lesson
    k = learn_record(lines)[2]
    path.write_text("".join([*lines[:k], lines[k - 1], *lines[k:]]), encoding="utf-8")
    assert refused(path).startswith(f"{path}:{k + 1}: this line of event data was changed, or a line")


def test_two_continuation_lines_swapped_are_named(lesson):
    path, lines = lesson
    k = learn_record(lines)[2]
    swapped = [*lines[: k - 1], lines[k], lines[k - 1], *lines[k + 1 :]]
    path.write_text("".join(swapped), encoding="utf-8")
    assert refused(path).startswith(f"{path}:{k}: this line of event data was changed, or a line")


def test_a_record_missing_its_last_line_is_named_where_it_stops(lesson, capsys):
    path, lines = lesson
    numbers = learn_record(lines)
    path.write_text("".join(lines[: numbers[-1] - 1] + lines[numbers[-1] :]), encoding="utf-8")
    message = refused(path)
    assert message.startswith(f"{path}:{numbers[-2]}: the event data from line {numbers[0]} stops here")
    assert main(["replay", str(path), "--to-end", "--print"]) == 2  # no "replayed 3 of 3 events"
    assert "stops here, before it is complete: a line is missing" in capsys.readouterr().err


def test_a_transcript_from_before_the_chain_still_replays_and_checks_each_line(tmp_path):
    replayer = Replayer(load_recording(OLD))
    session = replayer.new_session()
    replayer.apply_all(session)
    assert replayer.done and replayer.diverged is None and replayer.total == 6
    assert session.params["blocks.0.W_O"][2, 0] == 2.0 and not session.state.switches.causal_mask
    copy = tmp_path / "old.txt"
    lines = OLD.read_text(encoding="utf-8").splitlines(keepends=True)
    k = next(i for i, x in enumerate(lines) if x.startswith("#|+")) + 1
    line = lines[k - 1]  # "#|+" + 8 hex digits + " " + the part: change the part's first character
    lines[k - 1] = line[:12] + ("1" if line[12] != "1" else "2") + line[13:]
    copy.write_text("".join(lines), encoding="utf-8")
    assert refused(copy).startswith(f"{copy}:{k}: this line of event data was changed after it was recorded")
    shutil.copy(OLD, copy)
    assert Replayer(load_recording(copy)).total == 6
