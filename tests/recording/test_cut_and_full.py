"""A recording on a disk that fills up: the write that fails is cut back off both files, so what is on
disk ends on the last event both hold whole and replays; the session goes on in memory with one notice.
A start that cannot even write the header leaves no files behind.

The disk is filled for real (as far as this process can see): RLIMIT_FSIZE makes every write past the
limit fail with EFBIG after writing what fits, as ENOSPC does on a full disk."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import sys

import pytest

from tinytui.recording.recorder import Recorder, events_path
from tinytui.recording.replay import Replayer, load_recording
from tinytui.session.session import Session

resource = pytest.importorskip("resource")
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_FSIZE as on Linux")


@contextlib.contextmanager
def files_at_most(size: int):
    """Every file this process writes holds at most size bytes for the time of the block."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    old = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of the signal
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, old)


def test_a_full_disk_mid_session_leaves_both_files_whole_and_the_session_going(chapter, tmp_path):
    path = tmp_path / "lesson.txt"
    problems: list[str] = []
    rec = Recorder(path, clock=None, on_problem=problems.append)
    session = Session(chapter)
    rec.attach(session)
    with files_at_most(path.stat().st_size + 3000):
        for step in range(2, 17):
            session.goto(step)
            if problems:
                break
    assert len(problems) == 1 and "File too large" in problems[0]
    assert "still recording in memory" in problems[0]
    assert rec.path is None and rec.events == step - 1  # every event is still held

    text = path.read_text(encoding="utf-8")
    log = events_path(path).read_text(encoding="utf-8")
    assert log.endswith("\n") and text.endswith("\n")
    recording = load_recording(path)  # every line whole: no notice of a cut
    assert recording.notice == "" and 0 < len(recording.events) < rec.events
    # the transcript is the in-memory one up to the same event, not a byte more
    held = len(recording.events)
    assert rec.text().startswith(text)
    assert re.findall(r"=== (\d+) · ", text) == [str(n) for n in range(1, held + 1)]
    assert rec.text()[len(text) :].startswith(f"\n=== {held + 1} · ")

    replayer = Replayer(recording)
    again = replayer.new_session()
    replayer.apply_all(again)
    assert replayer.diverged is None and again.step == held + 1

    # the session went on: everything is written whole to another file once there is room
    session.goto(1)
    assert rec.set_path(tmp_path / "saved.txt") is None
    assert len(load_recording(tmp_path / "saved.txt").events) == rec.events == step


def test_a_start_that_cannot_write_its_header_leaves_no_files(chapter, tmp_path):
    path = tmp_path / "lesson.txt"
    rec = Recorder(path, clock=None)
    with files_at_most(100):
        rec.attach(Session(chapter))  # the header is written here
    assert rec.problem is not None and "File too large" in rec.problem
    assert sorted(os.listdir(tmp_path)) == []  # no empty or half-written pair left behind
    assert rec.set_path(path) is None  # it went on in memory
    assert len(load_recording(path).events) == 0


def test_a_failing_write_mid_session_cuts_back_what_it_wrote(chapter, tmp_path, monkeypatch):
    """os.write writing half of what it was given, then the disk refusing the rest."""
    path = tmp_path / "lesson.txt"
    problems: list[str] = []
    rec = Recorder(path, clock=None, on_problem=problems.append)
    session = Session(chapter)
    rec.attach(session)
    session.goto(9)
    before = (path.read_bytes(), events_path(path).read_bytes())
    real_write = os.write
    calls = []

    def half_then_full(fd, data):
        calls.append(fd)
        if len(calls) > 1:
            raise OSError(28, "No space left on device")
        return real_write(fd, bytes(data)[: len(data) // 2])

    monkeypatch.setattr(os, "write", half_then_full)
    session.edit("W_O", (2, 0), "2")
    monkeypatch.undo()
    assert problems and "No space left on device" in problems[0]
    assert (path.read_bytes(), events_path(path).read_bytes()) == before
    assert len(load_recording(path).events) == 1


def test_a_transcript_of_forged_event_data_is_refused_by_its_count_before_any_is_read(tmp_path):
    """200,000 records of event data: refused for their number before any is checked (checking them all
    first took 0.7 s of CPU, 3.6 s for a million). The first record's checksum is wrong, so a reader that
    checked before counting would name line 1 instead."""
    import zlib

    from tinytui.recording.embedded_log import SEED
    from tinytui.recording.event_kinds import MAX_EVENTS
    from tinytui.recording.replay import ReplayError

    right = f"#| {zlib.crc32(b'{}', SEED):08x} {{}}\n"
    wrong = f"#| {zlib.crc32(b'{}', SEED) ^ 1:08x} {{}}\n"
    forged = tmp_path / "forged.txt"
    forged.write_text(wrong + right * 199_999, encoding="utf-8")
    with pytest.raises(ReplayError, match=rf"forged\.txt:{MAX_EVENTS + 2}: more than {MAX_EVENTS} events"):
        load_recording(forged)
    forged.write_text(wrong + right * 9, encoding="utf-8")  # within the count: the checksum is read
    with pytest.raises(ReplayError, match=r"forged\.txt:1: "):
        load_recording(forged)
