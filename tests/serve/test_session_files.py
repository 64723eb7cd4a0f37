"""The transcript each browser session of `tinytui serve --record NAME` is given: never a name where
anything is, a dangling link included (the app would refuse to record through it and the session's
recording would be held in memory only)."""

from __future__ import annotations

import os
from pathlib import Path

from tinytui.cli.serve_command import session_record


def test_a_dangling_link_at_a_sessions_name_is_passed_over(tmp_path):
    os.symlink(tmp_path / "nowhere.txt", tmp_path / "lesson-1.txt")  # planted, pointing at nothing
    os.symlink(tmp_path / "nowhere.jsonl", tmp_path / "lesson-2.jsonl")
    given: set[Path] = set()
    assert session_record(str(tmp_path / "lesson.txt"), given) == tmp_path / "lesson-3.txt"
    assert not (tmp_path / "nowhere.txt").exists() and not (tmp_path / "nowhere.jsonl").exists()
