"""Standard output that cannot take what a command writes (a full disk, a file size limit, closed) is
one line on stderr and a non-zero exit: never a traceback, never exit 0 with a short file."""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from tinytui import __version__
from tinytui.cli.main import main

FULL = "tinytui: error: cannot write the output: No space left on device\n"
LESSON = Path(__file__).resolve().parents[1] / "recorder" / "fixtures"


def tinytui(*args: str, **streams) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tinytui", *args], capture_output=True, text=True, timeout=60, **streams
    )


@contextmanager
def full_stdout(monkeypatch):
    """sys.stdout a full disk (set in the test itself: pytest's capture sets sys.stdout at each phase)."""
    full = open("/dev/full", "w", encoding="utf-8")  # noqa: SIM115 (closed below, its error ignored)
    try:
        with monkeypatch.context() as m:
            m.setattr(sys, "stdout", full)
            yield
    finally:
        with suppress(OSError):  # what the command could not write is still held in its buffer
            full.close()


@pytest.mark.parametrize(
    "args",
    [
        ["print"],
        ["trace"],
        ["generate", "--tokens", "2"],
        ["quiz", "--step", "7", "--list"],
        ["presets"],
        ["why", "A_2[1,0]"],
        ["circuits"],
        ["--version"],
    ],
)
def test_a_full_disk_is_one_line_and_exit_1(args, monkeypatch, capsys):
    with full_stdout(monkeypatch):
        assert main(args) == 1
    assert capsys.readouterr().err == FULL


def test_replay_print_into_a_full_disk(tmp_path, monkeypatch, capsys):
    from tinytui.cli.options import build_parser
    from tinytui.cli.run_setup import setup_from
    from tinytui.recording.recorder import Recorder
    from tinytui.session.session import Session

    session = Session(setup_from(build_parser().parse_args([])).model)
    recorder = Recorder(tmp_path / "lesson.txt")
    recorder.attach(session)
    session.goto(5)
    recorder.stop()
    with full_stdout(monkeypatch):
        assert main(["replay", str(tmp_path / "lesson.txt"), "--print"]) == 1
    assert capsys.readouterr().err == FULL


def test_dev_full_closed_stdout_and_a_file_size_limit_in_a_process(tmp_path):
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "tinytui", "trace"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    assert (done.returncode, done.stderr) == (1, FULL)
    done = subprocess.run(
        [sys.executable, "-m", "tinytui", "print"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True, timeout=60, pass_fds=(), close_fds=True, preexec_fn=lambda: os.close(1),
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (
        1,
        "tinytui: error: cannot write the output: standard output is closed\n",
    )
    # 4 KB allowed: the 47 KB trace is cut short by the limit, and the command says so
    out = tmp_path / "trace.json"
    script = f'ulimit -f 4; exec "{sys.executable}" -m tinytui trace --json > "{out}"'
    done = subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (1, "tinytui: error: cannot write the output: File too large\n")
    assert 0 < out.stat().st_size <= 4096


def test_a_reader_that_leaves_early_is_no_error():
    script = f'"{sys.executable}" -m tinytui print | head -1'
    done = subprocess.run(["sh", "-c", f"{script}; echo $?"], capture_output=True, text=True, timeout=60)
    assert done.stdout.startswith("Step 1/16")
    assert done.stderr == ""


def test_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"tinytui {__version__}\n"


def test_quiz_with_standard_input_closed_grades_no_answers():
    done = subprocess.run(
        [sys.executable, "-m", "tinytui", "quiz", "--step", "7", "--count", "1"], stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=60, preexec_fn=lambda: os.close(0),
    )  # fmt: skip
    assert done.returncode == 1 and done.stderr == ""  # 1: not every answer right
    assert "no answer given" in done.stdout and done.stdout.endswith("score: 0 of 1\n")
