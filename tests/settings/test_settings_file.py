"""Remembered settings: where they live, round trip, corrupt files, atomic writes."""

from __future__ import annotations

import json
import os

import pytest

from tinytui import settings as config
from tinytui.settings import Settings, ThemeMemory, load_settings, remember, save_settings, settings_path


@pytest.fixture(autouse=True)
def config_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg"


def test_lives_under_xdg_config_home(config_home):
    assert settings_path() == config_home / "tinytui" / "settings.json"


def test_relative_xdg_is_ignored_and_home_is_used(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/dir")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert settings_path() == tmp_path / "home" / ".config" / "tinytui" / "settings.json"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    assert settings_path() == tmp_path / "home" / ".config" / "tinytui" / "settings.json"


def test_missing_file_means_defaults_quietly():
    assert load_settings() == (Settings(), None)


def test_round_trip(config_home):
    path = save_settings(Settings(theme="tinytui-light"))
    assert path == config_home / "tinytui" / "settings.json"
    assert json.loads(path.read_text()) == {"format": "tinytui-settings/1", "theme": "tinytui-light"}
    assert load_settings() == (Settings(theme="tinytui-light"), None)
    save_settings(Settings())
    assert load_settings() == (Settings(), None)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("{not json", "Expecting property name"),
        ("[1, 2]", "not a JSON object"),
        ('{"theme": 7}', "'theme' must be a theme name"),
        ('{"theme": "  "}', "'theme' must be a theme name"),
        ('{"format": "tinytui-settings/9", "theme": "x"}', "format 'tinytui-settings/9'"),
        (b"\xff\xfe\x00garbage", "not UTF-8 text at byte 0"),
    ],
)
def test_corrupt_file_is_ignored_with_a_notice(content, reason):
    path = settings_path()
    path.parent.mkdir(parents=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    settings, notice = load_settings()
    assert settings == Settings()
    assert str(path) in notice and reason in notice and "\n" not in notice
    assert path.read_bytes() == (content if isinstance(content, bytes) else content.encode())  # untouched


def test_unknown_keys_are_named_and_kept():
    path = settings_path()
    path.parent.mkdir(parents=True)
    path.write_text('{"theme": "tinytui-light", "from_a_newer_version": true, "colour": "red"}')
    settings, notice = load_settings()
    assert settings.theme == "tinytui-light"
    assert notice == (
        f"The settings file {path} has keys tinytui does not know: 'from_a_newer_version', 'colour' "
        "(it reads format, theme, keymap)."
    )
    assert remember(theme="tinytui-dark") is None  # written back with the keys it does not know
    assert json.loads(path.read_text()) == {
        "format": "tinytui-settings/1",
        "theme": "tinytui-dark",
        "from_a_newer_version": True,
        "colour": "red",
    }


def test_a_failed_write_leaves_the_old_file_and_no_litter(monkeypatch):
    path = save_settings(Settings(theme="tinytui-light"))
    before = path.read_bytes()

    def broken_dump(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(config.json, "dump", broken_dump)
    with pytest.raises(OSError):
        save_settings(Settings(theme="tinytui-dark"))
    assert path.read_bytes() == before
    assert os.listdir(path.parent) == ["settings.json"]


def test_remember_keeps_other_settings_and_reports_failure(tmp_path, monkeypatch):
    assert remember(theme="tinytui-monochrome") is None
    assert load_settings()[0].theme == "tinytui-monochrome"
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(blocker))
    notice = remember(theme="tinytui-light")
    assert notice.startswith("Could not remember the setting in ") and str(blocker) in notice


def test_theme_memory_saves_changes_not_the_opening_theme():
    memory = ThemeMemory("tinytui-monochrome")  # e.g. forced by NO_COLOR
    assert memory.changed("tinytui-monochrome") is None
    assert not settings_path().exists()
    memory.changed("tinytui-light")
    assert load_settings()[0].theme == "tinytui-light"
    memory.changed("tinytui-monochrome")  # picked on purpose this time
    assert load_settings()[0].theme == "tinytui-monochrome"
