"""Handouts a teacher can use: display names, each step's weights, and a transcript that alone replays."""

import io
import json

import pytest

from tinytui.cli.main import cmd_print, cmd_trace
from tinytui.cli.options import build_parser
from tinytui.recording.recorder import Recorder
from tinytui.recording.replay import Replayer, ReplayError, load_recording
from tinytui.recording.state_digest import params_digest
from tinytui.session.session import Session

INTERNAL = ("x_mid", "hidden_pre", "mha", "logits_stepped", "grad.")


def lesson(chapter, path):
    session = Session(chapter)
    rec = Recorder(path, clock=lambda: "2024-05-01 09:00")
    rec.attach(session)
    for step in range(2, 17):
        session.goto(step)
    session.edit("W_O", (1, 0), "0.05579547883658102")
    session.toggle("causal_mask")
    session.undo()
    session.undo()
    session.redo()
    session.learn_step()
    session.goto(12, backward=True)
    session.goto(9, backward=True)
    rec.stop()
    return session


def replayed(path):
    recording = load_recording(path)
    replayer = Replayer(recording)
    session = replayer.new_session()
    replayer.apply_all(session)
    return recording, session


def text_lines(path):
    return [x for x in path.read_text(encoding="utf-8").splitlines() if not x.startswith("#|")]


def test_a_transcript_alone_replays_bit_for_bit(chapter, tmp_path):
    path = tmp_path / "lesson.txt"
    live = lesson(chapter, path)
    via_log, from_log = replayed(path)
    path.with_suffix(".jsonl").unlink()
    via_text, from_text = replayed(path)
    assert via_text.source == path and via_log.source == path.with_suffix(".jsonl")
    assert [(r.seq, r.kind, r.check) for r in via_text.events] == [
        (r.seq, r.kind, r.check) for r in via_log.events
    ]
    for s in (from_log, from_text):
        assert params_digest(s.params) == params_digest(live.params)
        assert s.trace.loss == live.trace.loss and s.step == live.step and s.cursor == live.cursor
    lines = path.read_text(encoding="utf-8").splitlines()
    assert all(len(x) <= 100 for x in lines) and "\x1b" not in path.read_text(encoding="utf-8")


def test_an_edited_event_line_is_refused_by_its_number(chapter, tmp_path):
    path = tmp_path / "lesson.txt"
    lesson(chapter, path)
    path.with_suffix(".jsonl").unlink()
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    n = next(i for i, x in enumerate(lines) if x.startswith("#| ") and '"kind":"edit"' in x)
    for j in range(n, len(lines)):  # the edit's value: change one digit of it
        if "0.05579547883658102" in lines[j]:
            lines[j] = lines[j].replace("0.05579547883658102", "0.05579547883658103")
            break
    path.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(ReplayError, match=rf"lesson.txt:{j + 1}: this line of event data was changed"):
        load_recording(path)


def test_the_text_uses_display_names_and_four_decimals(chapter, tmp_path):
    path = tmp_path / "lesson.txt"
    lesson(chapter, path)
    text = "\n".join(text_lines(path))
    for name in INTERNAL:
        assert name not in text, name
    assert "edit: W_O[h1.k1, thing] set from 0.0000 to 0.0558" in text
    assert "W_O[h1.k1, thing]: 0.0000 → 0.0558" in text
    assert "0.05579547883658102" not in text
    assert "undo: back to before the switch to mask off" in text
    assert "undo: back to before the edit of W_O[h1.k1, thing]" in text
    assert "redo: the edit of W_O[h1.k1, thing] made again" in text
    assert "x′" in text and "h_pre" in text and "MHA" in text and "∂L/∂" in text


def test_step_blocks_show_the_weights_they_use(chapter, tmp_path):
    path = tmp_path / "lesson.txt"
    lesson(chapter, path)
    text = "\n".join(text_lines(path))
    step9 = text.split("step 9/16: moved to")[1].split("\n=== ")[0]
    assert "The weights this step uses" in step9
    assert "h1.k0  1.0000  0.0000      0.0000   0.0000" in step9  # W_O's first row


def run(cmd, *args):
    out = io.StringIO()
    assert cmd(build_parser().parse_args(list(args)), out) == 0
    return out.getvalue()


def test_print_and_markdown_show_the_weights_of_their_steps():
    plain = run(cmd_print, "print", "--plain", "--step", "11")
    assert "The weights this step uses" in plain and "W_1" in plain and "b_1" in plain
    assert "W_1\ndims        unit 0  unit 1" in plain
    md = run(cmd_print, "print", "--markdown", "--step", "9")
    assert "### The weights this step uses (as in this run)" in md
    assert "| heads | thing | action | quantifier | wood |" in md and "| h1.k0 | 1.0000 |" in md
    rich = run(cmd_print, "print", "--step", "9")  # not a terminal: plain, but via the same report
    assert "h2.k1" in rich


def test_rich_report_shows_the_weights():
    from rich.console import Console

    from tinytui.lesson.stages import STAGE_BY_NUMBER
    from tinytui.model.io.model_file import load_default
    from tinytui.model.trace import run as run_model
    from tinytui.report.render import rich_report
    from tinytui.report.step_report import stage_report

    m = load_default()
    trace = run_model(m.params, m.prompt, m.target)
    out = io.StringIO()
    Console(file=out, width=120, color_system=None).print(
        rich_report(stage_report(trace, STAGE_BY_NUMBER[9], m.params))
    )
    assert "The weights this step uses" in out.getvalue() and "h2.k1" in out.getvalue()


def test_trace_json_has_the_weights_with_axis_labels():
    doc = json.loads(run(cmd_trace, "trace", "--json"))
    assert "tensors" in doc and set(doc["weights"]) >= {"E", "blocks.0.W_O", "blocks.0.W_Q"}
    w_o = doc["weights"]["blocks.0.W_O"]
    assert w_o["label"] == "W_O" and w_o["axes"][0][:2] == ["h1.k0", "h1.k1"]
    assert w_o["axes"][1] == ["thing", "action", "quantifier", "wood"] and w_o["values"][0][0] == 1.0
    assert doc["weights"]["blocks.0.W_Q"]["axes"][0] == ["h1", "h2"]
