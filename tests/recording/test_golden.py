"""The transcript of a short fixed session, compared line by line with a file a person has read.

After a deliberate change to the transcript's format, regenerate it and read the diff before committing:
    TINYTUI_REGEN_GOLDEN=1 python -m pytest tests/recording/test_golden.py
"""

import os
from pathlib import Path

from tinytui.recording.recorder import Recorder
from tinytui.session.session import Session

GOLDEN = Path(__file__).parent / "golden" / "short_session.txt"


def short_session(chapter, path):
    session = Session(chapter)
    rec = Recorder(path, clock=lambda: "2024-05-01 09:00")
    rec.attach(session)
    session.goto(14)
    session.edit("W_O", (2, 0), "2")
    session.toggle("causal_mask")
    session.undo()
    session.goto(15)
    rec.stop()
    return path.read_text(encoding="utf-8")


def test_transcript_matches_the_golden_file(chapter, tmp_path):
    text = short_session(chapter, tmp_path / "short_session.txt")
    if os.environ.get("TINYTUI_REGEN_GOLDEN"):
        GOLDEN.write_text(text, encoding="utf-8")
    expected = GOLDEN.read_text(encoding="utf-8")
    assert text.splitlines() == expected.splitlines()
    assert text == expected
    assert all(len(line) <= 100 for line in expected.splitlines())
