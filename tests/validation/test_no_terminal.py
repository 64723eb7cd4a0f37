"""Without a terminal the debugger says so in one line and exits 2, at once and writing nothing: before,
`tinytui < /dev/null` and `tinytui | head` spun at 100 % of a core forever."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

import pytest

from tinytui.cli.debugger import has_terminal

NO_TERMINAL = (
    "tinytui: error: the debugger needs a terminal (standard input, output and error); without one, "
    "tinytui print writes the steps as text\n"
)


def tinytui(args, tmp_path, **streams) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "TEXTUAL_DRIVER"}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    return subprocess.run(
        [sys.executable, "-m", "tinytui", *args], cwd=tmp_path, env=env, timeout=60, **streams
    )


@pytest.mark.parametrize("args", [[], ["--record", "lesson.txt"], ["--theme", "light", "--no-mask"]])
def test_no_standard_input(tmp_path, args):
    done = tinytui(args, tmp_path, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", NO_TERMINAL)
    assert os.listdir(tmp_path) == []  # no lesson.txt, and a --theme is not remembered by a refused run


def test_output_into_a_pipe_with_a_terminal_for_input(tmp_path):
    leader, follower = pty.openpty()
    try:
        done = tinytui([], tmp_path, stdin=follower, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    finally:
        os.close(leader)
        os.close(follower)
    assert (done.returncode, done.stdout, done.stderr.decode()) == (2, b"", NO_TERMINAL)


def test_replay_needs_one_too_but_not_its_print(tmp_path):
    from tinytui.cli.options import build_parser
    from tinytui.cli.run_setup import setup_from
    from tinytui.recording.recorder import Recorder
    from tinytui.session.session import Session

    session = Session(setup_from(build_parser().parse_args([])).model)
    recorder = Recorder(tmp_path / "lesson.txt")
    recorder.attach(session)
    session.goto(5)
    recorder.stop()
    no_input = {"stdin": subprocess.DEVNULL, "capture_output": True, "text": True}
    done = tinytui(["replay", "lesson.txt"], tmp_path, **no_input)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", NO_TERMINAL)
    done = tinytui(["replay", "lesson.txt", "--to-end", "--print"], tmp_path, **no_input)
    assert done.returncode == 0 and done.stdout.startswith("replayed 1 of 1 events")


def test_three_terminals_or_a_named_driver_are_enough(tmp_path):
    assert has_terminal({"TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver"})  # tinytui serve
    leader, follower = pty.openpty()
    try:
        code = "from tinytui.cli.debugger import has_terminal; print(has_terminal({}))"
        subprocess.run(
            [sys.executable, "-c", code], stdin=follower, stdout=follower, stderr=follower, timeout=60
        )
        said = os.read(leader, 100).decode()
    finally:
        os.close(leader)
        os.close(follower)
    assert said.strip() == "True"
