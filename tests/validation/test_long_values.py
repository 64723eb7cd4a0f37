"""A 5,000-character value typed on the command line is refused in one line a terminal can show: the
value is cut to its start and end (before, every refusal that named it echoed all 5,000 characters)."""

import pytest

from tinytui.cli.main import main
from tinytui.model.checks import one_line

LONG = "a" * 5000

COMMAND_LINES = {
    "new -o": ["new", "-o", LONG + ".json"],
    "new --vocab": ["new", "--vocab", LONG, "-o", "m.json"],
    "why": ["why", LONG],
    "--record": ["--record", LONG, "print"],
    "--theme": ["--theme", LONG, "print"],
    "replay": ["replay", LONG],
    "practice": ["practice", LONG],
    "train": ["train", LONG, "-o", "m.json"],
}


@pytest.mark.parametrize("argv", COMMAND_LINES.values(), ids=COMMAND_LINES.keys())
def test_a_long_value_is_refused_in_one_short_line(tmp_path, monkeypatch, capsys, argv):
    monkeypatch.chdir(tmp_path)
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's refusals
        code = exc.code
    said = capsys.readouterr()
    assert code == 2 and said.out == ""
    assert said.err.startswith("tinytui: error: ") and said.err.count("\n") == 1
    assert "a" * 100 not in said.err and " characters)" in said.err
    assert list(tmp_path.iterdir()) == []


def test_one_line_keeps_short_words_and_cuts_long_runs():
    assert one_line("cannot write /home/alice/lesson.txt (Permission denied)") == (
        "cannot write /home/alice/lesson.txt (Permission denied)"
    )
    cut = one_line(f"-o: cannot write {'b' * 300}.json (File name too long)")
    assert cut == f"-o: cannot write {'b' * 60}…{'b' * 15}.json (305 characters) (File name too long)"
