"""tinytui.tui.output_paths: every typed-path check answers with a reason and never raises."""

import os

import pytest

from tinytui.tui.controllers.practice_controller import check_lesson_path
from tinytui.tui.output_paths import (
    check_record_path,
    check_save_path,
    check_screenshot_path,
    existing_file,
    free_path,
    safe_stem,
)

TOO_LONG = "That name is too long for the file system; choose a shorter one"
CHECKS = {
    "save": lambda text: check_save_path(text, None),
    "record": check_record_path,
    "screenshot": check_screenshot_path,
}
TYPED_PATH_CHECKS = {**CHECKS, "lesson": check_lesson_path}


@pytest.mark.parametrize("check", CHECKS.values(), ids=CHECKS.keys())
@pytest.mark.parametrize(
    "name",
    ["y" * 300, "y" * 5000, "\u00e9" * 200],  # the last: 200 characters but 400 bytes, over 255
    ids=["300 y", "5000 chars", "400 bytes"],
)
def test_a_too_long_name_is_a_reason_not_an_oserror(tmp_path, monkeypatch, check, name):
    monkeypatch.chdir(tmp_path)
    assert check(name) == (None, TOO_LONG)  # OSError: File name too long before
    assert check(str(tmp_path / name / "x")) == (None, TOO_LONG)


@pytest.mark.parametrize("check", CHECKS.values(), ids=CHECKS.keys())
def test_a_nul_byte_is_a_reason(tmp_path, monkeypatch, check):
    monkeypatch.chdir(tmp_path)
    assert check("a\x00b") == (None, "A file name cannot contain a NUL character")


def test_existing_file_never_raises(tmp_path):
    assert existing_file("y" * 5000) is None
    (tmp_path / "m.json").write_text("{}")
    assert existing_file(str(tmp_path / "m")) == (tmp_path / "m.json").resolve()


@pytest.mark.parametrize(
    ("name", "stem"),
    [
        ("../victim/x", "victim-x"),
        ("chapter17", "chapter17"),
        ("/etc/passwd", "etc-passwd"),
        ("..", "model"),
        ("", "model"),
        (None, "model"),
        ("evil\x1b[31mred\x07", "evil-31mred"),
        ("a\\b:c*d?e", "a-b-c-d-e"),
        (".hidden", "hidden"),
        ("woodchuck model", "woodchuck-model"),
        ("x" * 500, "x" * 64),
        ("\u202ecod.exe", "cod.exe"),
    ],
)
def test_safe_stem(name, stem):
    assert safe_stem(name) == stem


def test_free_path_counts_a_dangling_link_as_taken(tmp_path):
    (tmp_path / "shot.svg").symlink_to(tmp_path / "elsewhere.svg")
    assert free_path(tmp_path, "shot.svg") == tmp_path / "shot-2.svg"


@pytest.mark.parametrize(("check", "name"), [(CHECKS["screenshot"], "shot.svg"), (CHECKS["save"], "m.json")])
def test_a_link_is_refused_as_a_target(tmp_path, check, name):
    (tmp_path / name).symlink_to(tmp_path / "elsewhere")
    assert check(str(tmp_path / name)) == (
        None,
        f"{name} is a symbolic link; tinytui does not write through links",
    )


def test_a_link_at_the_events_file_is_refused(tmp_path):
    (tmp_path / "lesson.jsonl").symlink_to(tmp_path / "elsewhere")
    path, why = check_record_path(str(tmp_path / "lesson.txt"))
    assert path is None and why == "lesson.jsonl is a symbolic link; tinytui does not write through links"


def test_ordinary_answers_are_unchanged(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert check_save_path("edited", None)[0].name == "edited.json"
    assert check_record_path("lesson") == (tmp_path.joinpath("lesson.txt").relative_to(tmp_path), "")
    (tmp_path / "lesson.txt").write_text("")
    assert "lesson.txt exists" in check_record_path("lesson.txt")[1]
    assert check_screenshot_path("no/such/dir/x.svg")[1].startswith("There is no folder")
    assert os.listdir(tmp_path) == ["lesson.txt"]


@pytest.mark.parametrize("check", TYPED_PATH_CHECKS.values(), ids=TYPED_PATH_CHECKS.keys())
@pytest.mark.parametrize("typed", ["~", "..", "/", "shelf", "shelf/"])
def test_a_folder_typed_as_the_name_is_a_folder(tmp_path, monkeypatch, check, typed):
    # "~" was saved as /root.json (the home folder's name plus the suffix, in its parent); "/" was
    # refused as holding a NUL character; ".." wrote "...json"; a folder "shelf" wrote shelf.json beside it
    home = tmp_path / "home" / "alice"
    (tmp_path / "work" / "shelf").mkdir(parents=True)
    home.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path / "work")
    path, why = check(typed)
    assert path is None and "is a folder; add a file name" in why
