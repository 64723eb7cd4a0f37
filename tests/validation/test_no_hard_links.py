"""Writing a new file where the file system has no hard links (a FAT USB stick, some network mounts):
os.link fails with EPERM there, and a new file is then taken by a rename after looking, so a handout
or a quick screenshot still lands, and a file already there is still never replaced."""

from __future__ import annotations

import errno
import os

import pytest

from tinytui.model.io.safe_io import write_new_text
from tinytui.tui.output_paths import write_free


@pytest.fixture
def no_links(monkeypatch):
    def refused(src, dst, *args, **kwargs):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", refused)


def test_a_new_file_lands_without_hard_links(tmp_path, no_links):
    write_new_text(tmp_path / "lesson.md", "# a handout\n")
    assert (tmp_path / "lesson.md").read_text(encoding="utf-8") == "# a handout\n"
    assert os.listdir(tmp_path) == ["lesson.md"]  # no hidden temporary left


def test_a_file_there_is_still_never_replaced(tmp_path, no_links):
    (tmp_path / "lesson.md").write_text("mine\n", encoding="utf-8")
    with pytest.raises(FileExistsError):
        write_new_text(tmp_path / "lesson.md", "# a handout\n")
    assert (tmp_path / "lesson.md").read_text(encoding="utf-8") == "mine\n"
    assert write_free(tmp_path, "lesson.md", "# a handout\n") == tmp_path / "lesson-2.md"
    assert sorted(os.listdir(tmp_path)) == ["lesson-2.md", "lesson.md"]
