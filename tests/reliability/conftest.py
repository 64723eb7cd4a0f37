import pytest


@pytest.fixture(autouse=True)
def in_tmp(tmp_path, monkeypatch):
    """Every file the app writes (a recording, a screenshot, a crash copy, settings) lands in tmp_path."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
