"""`tinytui handout lesson.txt -o lesson.md`: a recording as a Markdown handout that Markdown tools read
(the steps visited with their tables, each change before → after, equations in LaTeX), never
overwriting a file."""

import os

import pytest
from markdown_it import MarkdownIt

from tinytui.cli.main import main
from tinytui.recording.recorder import Recorder
from tinytui.report.tables import fmt
from tinytui.session.session import Session


@pytest.fixture
def lesson(chapter, tmp_path):
    path = tmp_path / "lesson.txt"
    session = Session(chapter)
    rec = Recorder(path, clock=lambda: "2024-05-01 09:00")
    rec.attach(session)
    session.goto(8)
    session.goto(14)
    session.edit("W_O", (2, 0), "2")
    session.toggle("causal_mask")
    session.goto(12, backward=True)
    rec.stop()
    return path, session


def handout(path, out, capsys):
    rc = main(["handout", str(path), "-o", str(out)])
    return rc, capsys.readouterr()


def test_the_handout_has_every_event_as_a_section_with_real_tables(lesson, tmp_path, capsys):
    path, live = lesson
    out = tmp_path / "lesson.md"
    rc, said = handout(path, out, capsys)
    assert rc == 0 and said.out == f"wrote {out}: the handout of {path} (5 events)\n"
    text = out.read_text(encoding="utf-8")
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    h2 = [
        "".join(c.content for c in tokens[i + 1].children)  # as a reader sees it, escapes undone
        for i, t in enumerate(tokens)
        if t.type == "heading_open" and t.tag == "h2"
    ]
    assert h2 == [
        "Start: step 1/16, Tokens to ids",
        "1 · step 8/16: moved to Causal mask and softmax",
        "2 · step 14/16: moved to Tied unembedding",
        "3 · edit: W_O[h2.k0, thing] set from 0.0000 to 2.0000 (at step 14)",
        "4 · toggle the causal mask: now mask off (at step 14)",
        "5 · step 12/16: the backward walk moved to Feed-forward out and second residual",
        "Where the lesson ends",
    ]
    assert sum(t.type == "table_open" for t in tokens) > 10 and "\x1b" not in text
    steps = text.count("\n### Step ")  # each forward step shown, with its equation in LaTeX under it
    assert steps == 5 and text.count("\n\n$$ ") == steps
    edit = text.split("## 3 · edit")[1].split("\n## ")[0]
    assert "- **weights**: W\\_O\\[h2.k0, thing\\]: 0.0000 → 2.0000" in edit
    assert "- **prediction**: wood (p 0.3107) → chuck (p 0.2115)" in edit
    assert "**largest change per step (7 of 16 steps changed)**" in edit
    assert "### Step 14. Tied unembedding" in edit.split("After this change the step on screen reads:")[1]
    end = text.split("## Where the lesson ends")[1]
    assert f"**loss**: {fmt(live.trace.loss)}" in end and "mask off" in end
    assert "### Backward: Step 12." in text


def test_an_existing_file_is_never_overwritten(lesson, tmp_path, capsys):
    path, _ = lesson
    out = tmp_path / "lesson.md"
    out.write_text("the teacher's notes\n")
    rc, said = handout(path, out, capsys)
    assert (
        rc == 2
        and said.err
        == f"tinytui: error: -o: {out} exists; tinytui never overwrites it (choose another name)\n"
    )
    assert out.read_text() == "the teacher's notes\n"
    link = tmp_path / "dangling.md"
    os.symlink(tmp_path / "nowhere.md", link)
    rc, said = handout(path, link, capsys)
    assert rc == 2 and "is a symbolic link" in said.err and not (tmp_path / "nowhere.md").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "dangling.md",
        "lesson.jsonl",
        "lesson.md",
        "lesson.txt",
    ]


def test_a_bad_recording_or_no_output_is_one_line(lesson, tmp_path, capsys):
    path, _ = lesson
    log = path.with_suffix(".jsonl")
    lines = log.read_text().splitlines(keepends=True)
    log.write_text("".join(lines[:2] + lines[3:]))  # an event line removed
    rc, said = handout(path, tmp_path / "out.md", capsys)
    assert (
        rc == 2 and said.err.count("\n") == 1 and f"{log}:3: " in said.err and "a line is missing" in said.err
    )
    assert not (tmp_path / "out.md").exists()
    assert main(["handout", str(path)]) == 2
    assert "-o: name the Markdown file to write" in capsys.readouterr().err
