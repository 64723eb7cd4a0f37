"""checks.one_line: a refusal's text as one line a terminal can show, a long typed value cut to its start
and end (the command lines that say it: tests/cli/test_refusal_lines.py)."""

from tinytui.model.checks import one_line


def test_one_line_keeps_short_words_and_cuts_long_runs():
    assert one_line("cannot write /home/alice/lesson.txt (Permission denied)") == (
        "cannot write /home/alice/lesson.txt (Permission denied)"
    )
    cut = one_line(f"-o: cannot write {'b' * 300}.json (File name too long)")
    assert cut == f"-o: cannot write {'b' * 60}…{'b' * 15}.json (305 characters) (File name too long)"
