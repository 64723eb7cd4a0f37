"""Every command-line refusal is one line of bounded length, exit status 2, whatever was typed: a
5,000-character value with or without spaces, a line break or a terminal escape in it (before, a value
with spaces came back whole, 5,300 characters, and a line break in a path split the refusal in two; a
value without spaces once came back whole too)."""

import pytest

from tinytui.cli.main import main
from tinytui.cli.refusal import line
from tinytui.model.checks import MAX_LINE_CHARS

RUN = "a" * 5000  # no space: one run
WORDS = " ".join(["zz"] * 1700)  # 5,099 characters with spaces
LONGEST = 600  # characters: eight rows of a terminal 80 wide

COMMAND_LINES = {
    "--model, a run": ["--model", RUN, "print"],
    "--model, words": ["--model", WORDS, "print"],
    "--model, a line break": ["--model", "gone\nmodel.json", "print"],
    "--model, an escape": ["--model", "gone\x1b[2Jmodel.json", "print"],
    "--model path, words": ["--model", f"{WORDS}.json", "print"],
    "--prompt, a run": ["print", "--prompt", RUN],
    "--prompt, words": ["print", "--prompt", WORDS],
    "--target, words": ["print", "--target", WORDS],
    "--theme, words": ["--theme", WORDS, "print"],
    "--record, words": ["--record", WORDS, "print"],
    "--lr, words": ["print", "--lr", WORDS],
    "--arch (argparse), words": ["new", "--arch", WORDS, "-o", "m.json"],
    "new -o, words": ["new", "-o", f"{WORDS}.json"],
    "train corpus, words": ["train", WORDS, "-o", "m.json"],
    "new -o, a run": ["new", "-o", RUN + ".json"],
    "new --vocab, a run": ["new", "--vocab", RUN, "-o", "m.json"],
    "why, a run": ["why", RUN],
    "--record, a run": ["--record", RUN, "print"],
    "--theme, a run": ["--theme", RUN, "print"],
    "replay, a run": ["replay", RUN],
    "practice, a run": ["practice", RUN],
    "train corpus, a run": ["train", RUN, "-o", "m.json"],
}


@pytest.mark.parametrize("argv", COMMAND_LINES.values(), ids=COMMAND_LINES.keys())
def test_a_refusal_is_one_line_of_bounded_length(tmp_path, monkeypatch, capsys, argv):
    monkeypatch.chdir(tmp_path)
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's refusals
        code = exc.code
    said = capsys.readouterr()
    assert code == 2 and said.out == ""
    assert said.err.startswith("tinytui: error: ") and said.err.endswith("\n")
    assert said.err.count("\n") == 1 and "\r" not in said.err and "\x1b" not in said.err
    longest = MAX_LINE_CHARS if argv[0] == "why" else LONGEST  # why lists the model's names after it
    assert len(said.err) <= longest, len(said.err)
    if RUN in argv or RUN + ".json" in argv:  # cut to its start and end, with its length
        assert "a" * 201 not in said.err and " characters" in said.err
    assert list(tmp_path.iterdir()) == []


def test_a_value_with_spaces_is_cut_to_its_start_and_end_with_the_reason_whole():
    said = line(f"--theme: {WORDS!r} is not a theme; choose one of tinytui-dark, tinytui-light")
    start, end = " ".join(["zz"] * 20), " ".join(["zz"] * 7)
    assert said == (
        f"tinytui: error: --theme: '{start} …{end} (5099 characters)' is not a theme; "
        "choose one of tinytui-dark, tinytui-light"
    )


def test_a_line_break_and_an_escape_are_written_as_escapes():
    assert line("/tmp/a\nb: cannot read the file") == "tinytui: error: /tmp/a\\nb: cannot read the file"
    assert line("'x\x1b[2J': not a theme") == "tinytui: error: 'x\\x1b[2J': not a theme"
