"""The disk fills up while the app records: the app goes on, says so once, records in memory, and the
files on disk end on the last event both hold whole (they replay)."""

import errno
import os

from tests.apps import make_app
from tests.tui.helpers import press, status
from tinytui.recording.replay import load_recording


async def test_a_full_disk_mid_session_keeps_the_app_and_the_files_whole(tmp_path, monkeypatch):
    lesson = tmp_path / "lesson.txt"
    app = make_app("--record", str(lesson))
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "n", "n")
        assert "● REC 2 events · lesson.txt" in status(app)
        real_write = os.write

        def full(fd, data):  # a third of what is asked fits, then the disk is full
            if not getattr(full, "wrote", False):
                full.wrote = True
                return real_write(fd, bytes(data)[: len(data) // 3])
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(os, "write", full)
        await press(pilot, "n")
        monkeypatch.undo()
        said = [n.message for n in app.toasts.notes()]
        assert sum("No space left on device" in m for m in said) == 1
        assert "● REC 3 events · in memory only" in status(app)
        await press(pilot, "n")  # the app goes on
        assert "● REC 4 events · in memory only" in status(app)
    assert app.return_code in (None, 0)
    recording = load_recording(lesson)
    assert recording.notice == "" and [e.kind for e in recording.events] == ["step", "step"]
    assert lesson.read_text(encoding="utf-8").endswith("\n")
