"""Paths and numbers on the command line are checked before use: a folder, /, ., an empty name, a
negative seed, an empty --model or --target, an unknown theme — one line naming the option, exit 2,
nothing read or written."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tinytui.cli.main import main


def refused(capsys, *argv: str) -> str:
    """The one line main prints for argv, which must be refused with exit status 2."""
    with pytest.raises(SystemExit) as stop:
        main(list(argv))
    assert stop.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    return err.rstrip("\n")


@pytest.mark.parametrize(
    "argv, says",
    [
        (["new", "-o", "/"], "tinytui: error: -o/--output: '/' is a folder; give a file name (in it)"),
        (["new", "-o", "."], "tinytui: error: -o/--output: '.' is a folder"),
        (["new", "-o", ""], "tinytui: error: -o/--output: empty; give a file name"),
        (["new", "-o", "sub/"], "tinytui: error: -o/--output: 'sub/' is a folder"),
        (["train", "corpus.txt", "--new", "-o", "/"], "tinytui: error: -o/--output: '/' is a folder"),
        (["replay", "/", "--print"], "tinytui: error: FILE: '/' is a folder"),
        (["replay", ".", "--print"], "tinytui: error: FILE: '.' is a folder"),
        (["replay", "", "--print"], "tinytui: error: FILE: empty; give a file name"),
        (["quiz", "--step", "7", "--seed", "-5"], "tinytui: error: --seed: '-5' is not a seed"),
        (["practice", "--step", "7", "--seed", "-5"], "tinytui: error: --seed: '-5' is not a seed"),
        (["--model", "", "print"], "tinytui: error: --model: empty; give a model file, a preset's name"),
        (["print", "--model", " "], "tinytui: error: --model: empty"),
        (["--target", "", "print"], "tinytui: error: --target: empty; give a token"),
        (["--theme", "bogus", "print"], "tinytui: error: --theme: 'bogus' is not a theme; choose one of"),
        (["--theme", "", "print"], "tinytui: error: --theme: '' is not a theme"),
        (["--theme", "\x1b[31m"], "tinytui: error: --theme: '\\x1b[31m' is not a theme"),
        (["serve", "--theme", "bogus"], "tinytui: error: --theme: 'bogus' is not a theme"),
        (["print", "--step", "x"], "tinytui: error: --step: invalid int value: 'x'"),
    ],
)
def test_refused_in_one_line_naming_the_option(argv, says, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    line = refused(capsys, *argv)
    assert line.startswith(says), line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sub"]  # nothing written


def test_the_theme_error_lists_the_themes(capsys):
    line = refused(capsys, "--theme", "nope")
    for name in ("dark", "light", "high-contrast", "colour-blind", "monochrome"):
        assert f"tinytui-{name}" in line


def no_terminal(*argv: str, cwd) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "TEXTUAL_DRIVER"}
    env["XDG_CONFIG_HOME"] = str(cwd / "config")
    return subprocess.run(
        [sys.executable, "-m", "tinytui", *argv], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def test_practice_needs_a_terminal_and_a_refused_run_keeps_the_settings(tmp_path):
    config = tmp_path / "config" / "tinytui"
    config.mkdir(parents=True)
    settings = config / "settings.json"
    settings.write_text('{"theme": "tinytui-dark"}\n', encoding="utf-8")
    for argv in (["--theme", "light"], ["--theme", "light", "practice", "--step", "7"]):
        done = no_terminal(*argv, cwd=tmp_path)  # before, practice spun at 99 % of a core forever
        assert done.returncode == 2 and done.stdout == "", argv
        assert done.stderr.startswith("tinytui: error: the debugger needs a terminal"), done.stderr
        assert settings.read_text(encoding="utf-8") == '{"theme": "tinytui-dark"}\n', argv
