"""Tampered and hostile session files: each is one ReplayError line naming the file and the line (or, for
a file that cannot be read at all, the file), never a traceback, and nothing is replayed.

Each case is checked twice: through load_recording, and through `tinytui replay FILE --print` (exit 2,
one line on stderr)."""

import json
import os
import subprocess
import sys

import pytest

from tinytui.recording.event_kinds import MAX_EVENTS
from tinytui.recording.recorder import Recorder
from tinytui.recording.replay import ReplayError, load_recording
from tinytui.session.session import Session

ESC = "\x1b[2J\x1b[31m"  # clear the screen, turn it red: what a transcript must never carry


@pytest.fixture
def recorded(chapter, tmp_path):
    """Lines 1 start, 2 step, 3 edit, 4 learn (2 steps), 5 toggle, 6 mode."""
    session = Session(chapter)
    rec = Recorder(tmp_path / "lesson.txt", clock=lambda: "2024-05-01 09:00")
    rec.attach(session)
    session.goto(9)
    session.edit("W_O", (2, 0), "2")
    session.train(2)
    session.toggle("causal_mask")
    session.set_mode(gradients=True)
    rec.stop()
    return tmp_path / "lesson.txt"


def log_of(path):
    return path.with_suffix(".jsonl")


def lines_of(path):
    return log_of(path).read_text(encoding="utf-8").splitlines()


def write_lines(path, lines):
    log_of(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


def edit_data(n, **changes):
    """Change fields of line n's data (line 1: of the start itself)."""

    def spoil(path):
        lines = lines_of(path)
        doc = json.loads(lines[n - 1])
        (doc if n == 1 else doc["data"]).update(changes)
        lines[n - 1] = json.dumps(doc)
        write_lines(path, lines)

    return spoil


def drop_data(n, key):
    def spoil(path):
        lines = lines_of(path)
        doc = json.loads(lines[n - 1])
        del doc["data"][key]
        lines[n - 1] = json.dumps(doc)
        write_lines(path, lines)

    return spoil


def raw_replace(n, old, new):
    """Replace text in line n as written: for what json.dumps cannot write (NaN, huge literals)."""

    def spoil(path):
        lines = lines_of(path)
        assert old in lines[n - 1], (old, lines[n - 1][:200])
        lines[n - 1] = lines[n - 1].replace(old, new, 1)
        write_lines(path, lines)

    return spoil


def as_undo(n, **data):
    """Line n becomes an undo event with this data."""

    def spoil(path):
        lines = lines_of(path)
        doc = json.loads(lines[n - 1])
        doc.update(kind="undo", data=data)
        lines[n - 1] = json.dumps(doc)
        write_lines(path, lines)

    return spoil


def start_target(token):
    def spoil(path):
        lines = lines_of(path)
        doc = json.loads(lines[0])
        doc["history"][0]["target"] = token
        lines[0] = json.dumps(doc)
        write_lines(path, lines)

    return spoil


def many_events(path):
    write_lines(path, [lines_of(path)[0]] + ["{}"] * (MAX_EVENTS + 1))


def fifo(path):
    log_of(path).unlink()
    os.mkfifo(log_of(path))


def folder(path):
    log_of(path).unlink()
    log_of(path).mkdir()


def device(path):
    log_of(path).unlink()
    log_of(path).symlink_to("/dev/zero")  # endless: reading it would never finish


def not_utf8(path):
    log_of(path).write_bytes(log_of(path).read_bytes().replace(b'"step"', b'"st\xffp"', 1))
    # a damaged log is replaced by the transcript's copy of the events; here there is none
    kept = [raw for raw in path.read_text(encoding="utf-8").splitlines() if not raw.startswith("#|")]
    path.write_text("\n".join(kept) + "\n", encoding="utf-8")


FILE = None  # the file cannot be read at all: the message names the file, there is no line

CASES = {
    # learn events: the app shows every one of these fields, so each is checked
    "learn lr not a number": (edit_data(4, lr="fast"), 4, "learn: lr: expected a number, got 'fast'"),
    "learn steps not a number": (
        edit_data(4, steps="x"),
        4,
        "learn: steps: expected a whole number, got 'x'",
    ),
    "learn steps as text": (edit_data(4, steps="2"), 4, "learn: steps: expected a whole number, got '2'"),
    "learn losses not numbers": (
        edit_data(4, losses=["a", 0.5, 0.25]),
        4,
        "learn: losses[0]: expected a number, got 'a'",
    ),
    "learn losses too short": (edit_data(4, losses=["a"]), 4, "learn: losses: expected a list of 3 losses"),
    "learn losses too long": (
        edit_data(4, losses=[1.0] * 9),
        4,
        "learn: losses: expected a list of 3 losses",
    ),
    "learn losses not its losses": (
        edit_data(4, losses=[1.0, 1.0, 1.0]),
        4,
        "learn: losses: the first and last must be loss_old and loss_new",
    ),
    "learn negative steps": (edit_data(4, steps=-2), 4, "learn: steps: the number of steps must be between"),
    "learn huge steps": (edit_data(4, steps=10**9), 4, "between 1 and 1000, not 1000000000"),
    "learn lr zero": (edit_data(4, lr=0), 4, "learn: lr: the learning rate must be a finite number above 0"),
    "learn lr negative": (edit_data(4, lr=-0.5), 4, "learn: lr: the learning rate must be a finite number"),
    "learn lr huge": (edit_data(4, lr=1e300), 4, "learn: lr: the learning rate 1e+300 is not a usable"),
    "learn missing loss_old": (drop_data(4, "loss_old"), 4, "learn: loss_old: missing"),
    "learn extra field": (edit_data(4, note="hi"), 4, "learn: note: unknown key"),
    # every other kind's fields too
    "mode not a boolean": (edit_data(6, gradients="yes"), 6, "mode: gradients: expected true or false"),
    "mode extra field": (edit_data(6, colour="red"), 6, "mode: colour: unknown key"),
    "walk outside its steps": (edit_data(2, step=16, backward=True), 2, "step: 16 is out of range (2–15)"),
    "edit old not a number": (edit_data(3, old="0"), 3, "edit: old: expected a number, got '0'"),
    "toggle head not a number": (
        edit_data(5, switch="ablated_heads", head="2"),
        5,
        "toggle: head: expected a whole number",
    ),
    "undo cursor not a number": (as_undo(6, cursor="x"), 6, "undo: cursor: expected a whole number, got 'x'"),
    # numbers json would read into something unusable or slowly
    "integer of 401 digits": (
        raw_replace(2, '"step": 9', '"step": 1' + "0" * 400),
        2,
        "step: expected a whole number, got 100000000000… (a 401-character number)",
    ),
    "integer of 5000 digits": (
        raw_replace(2, '"seq": 1', '"seq": ' + "9" * 5000),
        2,
        "event 999999999999… (a 5000-character number) where event 1 should be",
    ),
    "float beyond range": (raw_replace(3, '"new": 2.0', '"new": 1e400'), 3, "edit: new: expected a number"),
    "NaN": (raw_replace(3, '"new": 2.0', '"new": NaN'), 3, "NaN is not a number a session can hold"),
    "Infinity in the start": (
        raw_replace(1, '"lr": 0.5', '"lr": -Infinity'),
        1,
        "-Infinity is not a number a session can hold",
    ),
    "nested 100,000 deep": (
        raw_replace(2, '"step": 9', '"step": ' + "[" * 100_000 + "]" * 100_000),
        2,
        "nested too deeply",
    ),
    # sizes
    "a line of 10 MB": (
        raw_replace(2, '"step": 9', '"step": 9, "pad": "' + "x" * 10 * 2**20 + '"'),
        2,
        "characters is longer than any event line",
    ),
    "a 10 MB recorded time": (edit_data(1, recorded="x" * 10 * 2**20), 1, "recorded: 10485760 characters"),
    "too many events": (many_events, MAX_EVENTS + 2, f"more than {MAX_EVENTS} events"),
    # text that would reach a transcript or the screen
    "escape codes in the recorded time": (
        edit_data(1, recorded=ESC),
        1,
        "recorded: control character U+001B",
    ),
    "escape codes in an edit's label": (edit_data(3, label=ESC), 3, "edit: label: control character U+001B"),
    "escape codes in a toggle's text": (edit_data(5, now="on" + ESC), 5, "toggle: now: control character"),
    "escape codes as a kind": (
        raw_replace(5, '"kind": "toggle"', '"kind": "\\u001b[2J"'),
        5,
        "unknown event kind '\\x1b[2J'",
    ),
    "escape codes as a token": (start_target(ESC), 1, "history[0].target: '\\x1b[2J\\x1b[31m' is not in"),
    "escape codes as a field name": (edit_data(2, **{ESC: 1}), 2, "step: \\x1b[2J\\x1b[31m: unknown key"),
    # not a file to read
    "a FIFO": (fifo, FILE, "cannot read the file (it is a FIFO, device or socket, not a regular file)"),
    "a folder": (folder, FILE, "cannot read the file (it is a folder, not a regular file)"),
    "a device": (device, FILE, "cannot read the file (it is a FIFO, device or socket, not a regular file)"),
    "not UTF-8": (not_utf8, FILE, "cannot read the file (not UTF-8 text at byte"),
}


def check_message(message, path, line, needle):
    where = f"{log_of(path)}:{line}: " if line is not FILE else f"{log_of(path)}: "
    assert "\n" not in message and "\x1b" not in message, message[:300]
    assert len(message) < 600, message[:300]  # a bad value is shown cut short, never in full
    assert message.startswith(where), message[:300]
    assert needle in message, message[:300]


@pytest.mark.parametrize("case", CASES)
def test_a_hostile_file_is_one_line_naming_the_file_and_line(recorded, case):
    spoil, line, needle = CASES[case]
    spoil(recorded)
    with pytest.raises(ReplayError) as caught:
        load_recording(recorded)
    check_message(str(caught.value), recorded, line, needle)


@pytest.mark.parametrize("case", CASES)
def test_the_command_line_says_it_in_one_line_and_exits_2(recorded, case):
    spoil, line, needle = CASES[case]
    spoil(recorded)
    out = subprocess.run(
        [sys.executable, "-m", "tinytui", "replay", str(recorded), "--print"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2 and out.stdout == "", out.stderr[-2000:]
    assert "Traceback" not in out.stderr and out.stderr.count("\n") == 1, out.stderr[-2000:]
    prefix = "tinytui: error: "
    assert out.stderr.startswith(prefix)
    check_message(out.stderr[len(prefix) : -1], recorded, line, needle)


def test_the_unspoiled_file_replays(recorded):
    recording = load_recording(recorded)
    assert [e.kind for e in recording.events] == ["step", "edit", "learn", "toggle", "mode"]


def test_a_start_of_too_many_values_is_refused_before_it_is_parsed(recorded, monkeypatch):
    """The start line holds a whole model file: it is bounded as a model file's JSON is (16,000,000
    values; lowered here below the chapter's own count) before json reads a number of it."""
    from tinytui.model.io import model_file

    commas = lines_of(recorded)[0].count(",")
    monkeypatch.setattr(model_file, "MAX_JSON_VALUES", commas - 1)
    with pytest.raises(ReplayError) as refused:
        load_recording(recorded)
    assert str(refused.value) == (
        f"{log_of(recorded)}:1: the starting model holds some {commas:,} values, more than tinytui reads "
        f"from a model's JSON ({commas - 1:,})"
    )
    monkeypatch.setattr(model_file, "MAX_JSON_VALUES", commas)
    assert len(load_recording(recorded).events) == 5
