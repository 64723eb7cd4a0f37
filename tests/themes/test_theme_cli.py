"""`--theme`, NO_COLOR and the remembered choice, as the command line resolves them."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tinytui import themes
from tinytui.cli.debugger import no_color, theme_choice
from tinytui.cli.options import build_parser
from tinytui.settings import Settings, load_settings, save_settings


@pytest.fixture(autouse=True)
def config_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("NO_COLOR", raising=False)
    return tmp_path / "xdg"


def choice(*argv, environ=None):
    return theme_choice(build_parser().parse_args(list(argv)), environ or {})


def test_bad_theme_is_one_line_listing_the_themes_and_exit_2(config_home):
    env = {**os.environ, "XDG_CONFIG_HOME": str(config_home)}
    out = subprocess.run(
        [sys.executable, "-m", "tinytui", "--theme", "nonsense"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("tinytui: error: --theme: 'nonsense' is not a theme")
    assert out.stderr.count("\n") == 1
    for name in themes.THEMES:
        assert name in out.stderr
    assert not (config_home / "tinytui").exists()  # nothing remembered


def test_no_color_selects_monochrome():
    assert no_color({"NO_COLOR": "1"}) and not no_color({"NO_COLOR": ""}) and not no_color({})
    assert choice(environ={"NO_COLOR": "1"}) == ("tinytui-monochrome", [])
    assert choice("--theme", "light", environ={"NO_COLOR": "1"})[0] == "tinytui-monochrome"


def test_default_then_remembered_then_flag():
    assert choice() == ("tinytui-dark", [])
    save_settings(Settings(theme="tinytui-high-contrast"))
    assert choice() == ("tinytui-high-contrast", [])
    assert choice("--theme", "colour-blind") == ("tinytui-colour-blind", [])
    # The flag's choice is remembered for next time.
    assert load_settings()[0].theme == "tinytui-colour-blind"
    assert choice() == ("tinytui-colour-blind", [])


def test_textual_builtin_names_are_accepted():
    assert choice("--theme", "nord") == ("nord", [])


def test_corrupt_settings_give_a_notice_and_the_default(config_home):
    path = config_home / "tinytui" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text("{oops")
    name, notices = choice()
    assert name == "tinytui-dark" and len(notices) == 1 and str(path) in notices[0]


def test_a_remembered_theme_that_is_gone_gives_a_notice():
    save_settings(Settings(theme="vaporwave"))
    name, notices = choice()
    assert name == "tinytui-dark" and notices == [
        "The remembered theme 'vaporwave' no longer exists; using tinytui-dark."
    ]
