"""Writing never follows a symbolic link: model files, settings and recordings."""

import os

import pytest

from tinytui.model.io.document import ModelFile
from tinytui.model.io.model_file import load, save
from tinytui.model.io.safe_io import atomic_writer, open_for_append
from tinytui.recording.recorder import Recorder
from tinytui.session.session import Session
from tinytui.settings import Settings, save_settings


@pytest.fixture
def victim(tmp_path):
    v = tmp_path / "victim.txt"
    v.write_text("precious\n")
    return v


def edited(chapter):
    return ModelFile("edited", "", chapter.params, chapter.prompt, chapter.target)


def test_save_never_writes_through_a_planted_tmp_link(tmp_path, chapter, victim):
    (tmp_path / "edited.json.tmp").symlink_to(victim)  # the old save wrote <name>.tmp through this
    save(edited(chapter), tmp_path / "edited.json")
    assert victim.read_text() == "precious\n"
    assert load(tmp_path / "edited.json").params == chapter.params
    assert sorted(p.name for p in tmp_path.iterdir()) == ["edited.json", "edited.json.tmp", "victim.txt"]


@pytest.mark.parametrize("dangling", [False, True])
def test_save_refuses_a_link_as_the_target(tmp_path, chapter, victim, dangling):
    pointee = tmp_path / "nowhere.txt" if dangling else victim
    (tmp_path / "edited.json").symlink_to(pointee)
    with pytest.raises(OSError) as exc:
        save(edited(chapter), tmp_path / "edited.json")
    assert exc.value.strerror == "edited.json is a symbolic link; tinytui does not write through links"
    assert victim.read_text() == "precious\n" and not (tmp_path / "nowhere.txt").exists()
    assert not list(tmp_path.glob(".*.tmp"))


def test_save_refuses_a_fifo(tmp_path, chapter):
    os.mkfifo(tmp_path / "edited.json")
    with pytest.raises(OSError, match=r"edited\.json exists and is not a regular file"):
        save(edited(chapter), tmp_path / "edited.json")


def test_a_failed_atomic_write_leaves_the_old_file_and_no_litter(tmp_path):
    path = tmp_path / "f.txt"
    path.write_text("old")
    with pytest.raises(RuntimeError), atomic_writer(path) as f:
        f.write("half")
        raise RuntimeError("disk on fire")
    assert path.read_text() == "old" and os.listdir(tmp_path) == ["f.txt"]


def test_settings_are_not_written_through_a_link(tmp_path, victim):
    link = tmp_path / "settings.json"
    link.symlink_to(victim)
    with pytest.raises(OSError, match="symbolic link"):
        save_settings(Settings(theme="tinytui-light"), link)
    assert victim.read_text() == "precious\n"


def test_open_for_append_refuses_a_dangling_link_and_creates_nothing(tmp_path):
    (tmp_path / "lesson.txt").symlink_to(tmp_path / "elsewhere.txt")
    for fresh in (True, False):
        with pytest.raises(OSError, match=r"lesson\.txt is a symbolic link"):
            open_for_append(tmp_path / "lesson.txt", fresh=fresh)
    assert not (tmp_path / "elsewhere.txt").exists()


def test_open_for_append_fresh_replaces_a_regular_file(tmp_path):
    path = tmp_path / "lesson.txt"
    path.write_text("an old lesson\n")
    with open_for_append(path, fresh=True) as f:
        f.write("new\n")
    with open_for_append(path, fresh=False) as f:
        f.write("more\n")
    assert path.read_text() == "new\nmore\n"


def test_the_recorder_does_not_follow_a_link_at_the_events_file(tmp_path, chapter, victim):
    (tmp_path / "lesson.jsonl").symlink_to(victim)
    recorder = Recorder(None)
    recorder.attach(Session(chapter))
    problem = recorder.set_path(tmp_path / "lesson.txt")
    assert problem is not None and "lesson.jsonl is a symbolic link" in problem
    assert victim.read_text() == "precious\n"
