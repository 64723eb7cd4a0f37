"""tinytui replay: a good file prints the final state; a bad one is one line naming the line, exit 2,
and nothing is replayed."""

import json
import subprocess
import sys

import pytest

from tinytui.cli.main import main
from tinytui.cli.options import build_parser
from tinytui.cli.run_setup import setup_from
from tinytui.recording.recorder import Recorder
from tinytui.recording.replay import ReplayError, load_recording
from tinytui.session.session import Session


@pytest.fixture
def recorded(chapter, tmp_path):
    """A small recording: lines 1 (start), 2 step, 3 edit, 4 toggle, 5 undo, 6 step."""
    session = Session(chapter)
    rec = Recorder(tmp_path / "lesson.txt", clock=None)
    rec.attach(session)
    session.goto(9)
    session.edit("W_O", (2, 0), "2")
    session.toggle("causal_mask")
    session.undo()
    session.goto(14)
    rec.stop()
    return tmp_path / "lesson.txt", session


def lines_of(path):
    return (path.with_suffix(".jsonl")).read_text(encoding="utf-8").splitlines()


def write_lines(path, lines, end="\n"):
    path.with_suffix(".jsonl").write_text("\n".join(lines) + end, encoding="utf-8")


def edit_line(path, n, change):
    lines = lines_of(path)
    doc = json.loads(lines[n - 1])
    change(doc)
    lines[n - 1] = json.dumps(doc)
    write_lines(path, lines)


def run_replay(*args):
    out = subprocess.run(
        [sys.executable, "-m", "tinytui", "replay", *map(str, args)], capture_output=True, text=True
    )
    return out.returncode, out.stdout, out.stderr


def test_replay_to_end_prints_the_final_state(recorded):
    path, _live = recorded
    rc, out, err = run_replay(path, "--to-end", "--print")
    assert rc == 0, err
    assert out.startswith(f"replayed 5 of 5 events from {path.with_suffix('.jsonl')}\n")
    assert "weights     1 cell differs from the model file: W_O[h2.k0, thing] = 2.0000" in out
    assert "switches    mask on · PE on · ReLU · pre-norm · residual on" in out
    assert "prediction  chuck (p 0.2115)" in out and "loss        1.6978" in out
    assert "at step     14/16 · Tied unembedding" in out
    assert "Step 14/16 · Tied unembedding" in out and "\x1b" not in out
    rc, alone, _ = run_replay(path.with_suffix(".jsonl"), "--print")  # the log itself works too
    # --print alone prints where the recording ends, as --to-end --print does (and as the README says)
    assert rc == 0 and alone == out
    assert alone.startswith("replayed 5 of 5 events") and "prediction  chuck (p 0.2115)" in alone


def test_record_option_is_kept_for_the_app(tmp_path):
    setup = setup_from(build_parser().parse_args(["--record", str(tmp_path / "l.txt")]))
    assert setup.record == str(tmp_path / "l.txt")
    assert setup_from(build_parser().parse_args([])).record is None


def without_event_data(path):
    """The transcript as a killed session leaves it: no event data, so it cannot stand in for its log."""
    kept = [raw for raw in path.read_text(encoding="utf-8").splitlines() if not raw.startswith("#|")]
    path.write_text("\n".join(kept) + "\n", encoding="utf-8")


def _cut_inside(path):
    """Line 4 cut short with lines after it: damage, not a write stopped at the end (which replays
    what came before it: tests/recording/test_cut_and_full.py)."""
    lines = lines_of(path)
    write_lines(path, [*lines[:3], lines[3][:-40], *lines[4:]])
    without_event_data(path)


def damaged(spoil):
    """A log damaged beside a transcript without event data (with it, the transcript's copy replays)."""

    def both(path):
        spoil(path)
        without_event_data(path)

    return both


BAD = {
    "a line cut inside": (_cut_inside, 4, "not JSON"),
    "not a session": (
        lambda p: write_lines(p, ['{"format": "tinytui-model/1"}']),
        1,
        "not a tinytui session",
    ),
    "plain text": (lambda p: write_lines(p, ["hello"]), 1, "not a tinytui session"),
    "truncated start": (
        damaged(lambda p: write_lines(p, [lines_of(p)[0][:300]])),
        1,
        "truncated: the last line is not complete JSON",
    ),
    "empty": (damaged(lambda p: write_lines(p, [], end="")), 1, "empty: not a tinytui session"),
    "no such parameter": (
        lambda p: edit_line(p, 3, lambda d: d["data"].update(param="blocks.0.W_Z")),
        3,
        "edit: no parameter 'blocks.0.W_Z' in this model (E, W_Q, W_K, W_V, W_O, W_1, b_1, W_2, b_2)",
    ),
    "index out of range": (
        lambda p: edit_line(p, 3, lambda d: d["data"].update(index=[9, 0])),
        3,
        "edit: W_O[9, 0] is outside its shape (4, 4)",
    ),
    "value overflows": (
        lambda p: edit_line(p, 3, lambda d: d["data"].update(param="E", index=[0, 0], new=1e308)),
        3,
        "edit: that makes ln1.var overflow to a non-finite number",
    ),
    "value not finite": (
        lambda p: edit_line(p, 3, lambda d: d["data"].update(new=float("inf"))),
        3,
        "Infinity is not a number a session can hold",
    ),
    "step out of range": (
        lambda p: edit_line(p, 2, lambda d: d["data"].update(step=17)),
        2,
        "step: 17 is out of range (1–16)",
    ),
    "backward flag not a boolean": (
        lambda p: edit_line(p, 2, lambda d: d["data"].update(backward="yes")),
        2,
        "step: backward: expected true or false, got 'yes'",
    ),
    "unknown kind": (
        lambda p: edit_line(p, 4, lambda d: d.update(kind="teleport")),
        4,
        "unknown event kind 'teleport'",
    ),
    "unknown switch": (
        lambda p: edit_line(p, 4, lambda d: d["data"].update(switch="gravity")),
        4,
        "toggle: switch: 'gravity' is not a switch",
    ),
    "missing line": (lambda p: write_lines(p, lines_of(p)[:2] + lines_of(p)[3:]), 3, "a line is missing"),
    "tampered check": (
        lambda p: edit_line(p, 3, lambda d: d["check"].update(loss=1.5)),
        3,
        "replaying this edit does not reach the recorded state (loss is different: 1.5 recorded",
    ),
    "bad model": (
        lambda p: edit_line(p, 1, lambda d: d["model"]["weights"].update(E=[[1]])),
        1,
        "model: weights.E",
    ),
    "edited start outside the model": (
        lambda p: edit_line(p, 1, lambda d: d["history"][0]["edits"].append(["W_X", [0], 1.0])),
        1,
        "history[0].edits: no parameter 'W_X'",
    ),
    "undo with nothing to undo": (
        lambda p: write_lines(p, [*lines_of(p)[:2], lines_of(p)[4].replace('"seq": 4', '"seq": 2')]),
        3,
        "undo: there is nothing to undo at this point",
    ),
}


@pytest.mark.parametrize("case", BAD)
def test_bad_session_files_are_one_line_naming_the_line(recorded, case):
    path, _ = recorded
    spoil, line, needle = BAD[case]
    spoil(path)
    rc, out, err = run_replay(path, "--to-end", "--print")
    assert rc == 2 and out == ""  # nothing replayed, nothing printed
    assert err.count("\n") == 1, err
    assert err.startswith(f"tinytui: error: {path.with_suffix('.jsonl')}:{line}: "), err
    assert needle in err, err


def test_a_transcript_without_its_log_or_event_data_is_named(recorded):
    path, _ = recorded
    path.with_suffix(".jsonl").unlink()
    text = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(x for x in text if not x.startswith("#|")), encoding="utf-8")  # an old one
    with pytest.raises(ReplayError, match=r"lesson.txt: no lesson.jsonl beside it and no event data"):
        load_recording(path)
    assert main(["replay", str(path), "--print"]) == 2
