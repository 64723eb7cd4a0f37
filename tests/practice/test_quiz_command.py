"""tinytui quiz: the questions of a step as JSON (no answers), and answers from stdin graded with ✓ or the
first hint and a score; a line that is not a number is graded wrong and said so, never a traceback."""

from __future__ import annotations

import io
import json
import math
import re
import subprocess
import sys

import pytest

from tinytui.cli.main import main


def quiz(capsys, monkeypatch, *args, stdin: bytes = b""):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    rc = main(["quiz", *args])
    out, err = capsys.readouterr()
    return rc, out, err


def listed(capsys, monkeypatch, *args) -> list[dict]:
    rc, out, err = quiz(capsys, monkeypatch, *args, "--list", "--json")
    assert rc == 0, err
    return json.loads(out)


def test_list_json_names_cells_as_why_takes_them(capsys, monkeypatch):
    qs = listed(capsys, monkeypatch, "--step", "7")
    assert len(qs) == 32
    assert [set(q) for q in qs] == [{"name", "index", "shown", "formula", "operands"}] * 32  # no answers
    assert qs[0]["name"] == "blocks.0.scores.1" and qs[0]["index"] == [0, 0]
    assert qs[20] == {
        "name": "blocks.0.scores.2",
        "index": [1, 0],
        "shown": "S_2[1,0]",
        "formula": "scores.2[1,0] = (q.2[1] · k.2[0]) / √2",
        "operands": [
            {"name": "blocks.0.q.2", "index": [1, 0], "shown": "Q_2[1,0]"},
            {"name": "blocks.0.k.2", "index": [0, 0], "shown": "K_2[0,0]"},
            {"name": "blocks.0.q.2", "index": [1, 1], "shown": "Q_2[1,1]"},
            {"name": "blocks.0.k.2", "index": [0, 1], "shown": "K_2[0,1]"},
        ],
    }
    # the name and index are what `tinytui why` takes
    rc = main(["why", "--json", f"{qs[20]['name']}[{','.join(map(str, qs[20]['index']))}]"])
    assert rc == 0 and json.loads(capsys.readouterr().out)["result"] == "−0.2429"
    rc = main(["why", "--json", qs[20]["shown"]])  # and so is the name the screen gives it
    assert rc == 0 and json.loads(capsys.readouterr().out)["result"] == "−0.2429"


def test_backward_sample_and_run_options(capsys, monkeypatch):
    five = listed(capsys, monkeypatch, "--step", "9", "--backward", "--count", "5", "--seed", "2")
    assert len(five) == 5 and all(q["name"].startswith("grad.blocks.0.") for q in five)
    assert five == listed(capsys, monkeypatch, "--step", "9", "--backward", "--count", "5", "--seed", "2")
    masked = listed(capsys, monkeypatch, "--step", "8", "--no-mask")
    assert "1 if j ≤ i" not in masked[1]["formula"]  # the formula as it ran with the mask off
    other = listed(capsys, monkeypatch, "--step", "14", "--prompt", "a a a", "--target", "chuck")
    assert other[0]["formula"] == "logits[0] = z · E[0]   (the row of 'a')"


def test_answers_graded_with_hints_and_score(capsys, monkeypatch):
    answers = "−0.2429\n-0.2439\nseven\n\n0.3131\n".encode()
    rc, out, err = quiz(capsys, monkeypatch, "--step", "7", "--count", "6", "--seed", "0", stdin=answers)
    assert rc == 1 and err == ""  # not every answer right
    rc, js, _ = quiz(
        capsys, monkeypatch, "--step", "7", "--count", "6", "--seed", "0", "--json", stdin=answers
    )
    doc = json.loads(js)
    assert [set(q) >= {"name", "index", "answer", "expected", "correct"} for q in doc["questions"]] == [
        True
    ] * 6
    got = [(q["answer"], q["correct"]) for q in doc["questions"]]
    expected = [round(q["expected"], 4) for q in doc["questions"]]
    lines = out.splitlines()
    assert len(lines) == 7
    assert got[0][0] == -0.2429 and got[1][0] == -0.2439  # the app's minus and Python's read alike
    for line, (_, correct) in zip(lines, got):
        assert ("✓" in line) == correct
        if not correct:
            assert "Hint: computed from " in line
    assert got[2] == (None, False) and "'seven' is not a number" in lines[2]
    assert got[3] == (None, False) and "no answer given" in lines[3]
    assert got[5] == (None, False)  # stdin ended: nothing to grade
    assert lines[-1] == f"score: {doc['score']['right']} of 6" and doc["score"]["asked"] == 6
    # now answer every one right, to 4 decimals
    right = "".join(f"{e:.4f}\n" for e in expected).encode()
    rc, js, _ = quiz(capsys, monkeypatch, "--step", "7", "--count", "6", "--seed", "0", "--json", stdin=right)
    assert json.loads(js)["score"] == {"right": 6, "asked": 6} and rc == 0
    assert all(
        any(low < q["expected"] < high for low, high in q["accepted"]) for q in json.loads(js)["questions"]
    )


def test_every_question_of_a_step_right_and_1e3_off(capsys, monkeypatch):
    qs = listed(capsys, monkeypatch, "--step", "11", "--backward")
    _, js, _ = quiz(capsys, monkeypatch, "--step", "11", "--backward", "--json", stdin=b"0\n" * len(qs))
    values = [q["expected"] for q in json.loads(js)["questions"]]
    right = "".join(f"{v:.4f}\n" for v in values).encode()
    off = "".join(f"{v + 1e-3:.6f}\n" for v in values).encode()
    _, js, _ = quiz(capsys, monkeypatch, "--step", "11", "--backward", "--json", stdin=right)
    assert json.loads(js)["score"] == {"right": len(qs), "asked": len(qs)}
    _, js, _ = quiz(capsys, monkeypatch, "--step", "11", "--backward", "--json", stdin=off)
    assert json.loads(js)["score"] == {"right": 0, "asked": len(qs)}


def test_bytes_that_are_not_text_are_not_a_number(capsys, monkeypatch):
    rc, out, err = quiz(capsys, monkeypatch, "--step", "13", "--count", "1", stdin=b"\xff\xfe0.5\n")
    assert rc == 1 and err == ""
    assert "is not a number" in out and out.endswith("score: 0 of 1\n")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--step", "17"], "tinytui: error: --step: there is no step 17: the steps are 1–16\n"),
        (["--step", "16"], "tinytui: error: --step 16: step 16 computes nothing to check by hand\n"),
        (
            ["--step", "3", "--backward"],
            "tinytui: error: --step 3: the backward walk's step 3 computes nothing",
        ),
        (["--step", "7", "--count", "0"], "tinytui: error: --count: 0 asks nothing: ask at least one cell\n"),
        (["--step", "7", "--block", "2"], "tinytui: error: --block: the model has no block 2: it has 1\n"),
    ],
)
def test_refusals_are_one_line(capsys, monkeypatch, args, says):
    rc, out, err = quiz(capsys, monkeypatch, *args)
    assert rc == 2 and out == "" and err.startswith(says)


def test_a_real_pipe():
    """The installed command reading a pipe: a number, a word, and the end of input."""
    done = subprocess.run(
        [sys.executable, "-m", "tinytui", "quiz", "--step", "15", "--count", "2", "--seed", "1"],
        input="1.1690\nabc\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr  # not every answer right
    assert done.stderr == ""
    assert done.stdout.splitlines()[-1].startswith("score: ")
    assert "'abc' is not a number" in done.stdout


def test_a_later_block_of_a_deeper_model(capsys, monkeypatch):
    qs = listed(capsys, monkeypatch, "--model", "woodland", "--step", "6", "--block", "2", "--count", "3")
    assert [q["name"].split(".")[:2] for q in qs] == [["blocks", "1"]] * 3
    rc = main(["why", "--model", "woodland", f"{qs[0]['name']}[{','.join(map(str, qs[0]['index']))}]"])
    assert rc == 0 and "(block 2)" in capsys.readouterr().out


def test_answers_after_the_last_question_are_reported_not_dropped(capsys, monkeypatch):
    qs = listed(capsys, monkeypatch, "--step", "13", "--count", "2")
    values = [explain_value(capsys, q) for q in qs]
    typed = "".join(f"{v}\n" for v in values) + "0.1\n\n0.2\n"
    rc, out, _ = quiz(capsys, monkeypatch, "--step", "13", "--count", "2", stdin=typed.encode())
    assert rc == 0 and out.splitlines()[-2:] == [
        "2 more lines after the last question: not read as answers",
        "score: 2 of 2",
    ]
    rc, js, _ = quiz(capsys, monkeypatch, "--step", "13", "--count", "2", "--json", stdin=typed.encode())
    assert rc == 0 and json.loads(js)["extra_lines"] == 2


def explain_value(capsys, q: dict) -> str:
    assert main(["why", "--json", q["shown"]]) == 0
    return json.loads(capsys.readouterr().out)["result"]


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("inf", "'inf' is not a number"),
        ("1e999", "'1e999' is too large to be a finite number"),
        ("1_000", "'1_000' is not a number"),
        ("\u0661\u0662", "is not a number"),
        ("0,4714", "'0,4714' is not a number: write a decimal point, 0.4714"),
    ],
)
def test_one_rule_for_numbers(capsys, monkeypatch, typed, says):
    rc, out, _ = quiz(capsys, monkeypatch, "--step", "7", "--count", "1", stdin=f"{typed}\n".encode())
    assert rc == 1 and says in out.splitlines()[0] and "(try 0.5, -1, 1e-3 or 1/2)" in out.splitlines()[0]
    rc, js, _ = quiz(
        capsys, monkeypatch, "--step", "7", "--count", "1", "--json", stdin=f"{typed}\n".encode()
    )
    assert json.loads(js)["questions"][0]["answer"] is None  # refused, never graded as a number


class Terminal(io.BytesIO):
    """Keys typed at a terminal: stdin that says it is one."""

    def isatty(self) -> bool:
        return True


class Screen(io.StringIO):
    def isatty(self) -> bool:
        return True


def converse(typed: str, *args: str) -> tuple[int, str]:
    from tinytui.cli.options import build_parser
    from tinytui.cli.quiz_command import run
    from tinytui.cli.run_setup import setup_from

    ns = build_parser().parse_args(["quiz", *args])
    screen = Screen()
    rc = run(setup_from(ns), ns, Terminal(typed.encode()), screen)
    return rc, screen.getvalue()


def test_at_a_terminal_the_quiz_is_a_conversation(monkeypatch):
    """Each question with its formula and operands as the screen shows them, graded as it is answered:
    refused text asks again, a wrong number gives the next hint, the score comes last. The student's
    answer is worked out from the operands the conversation shows."""
    monkeypatch.setenv("COLUMNS", "100")  # the terminal's width: the operands on one line
    q0, k0, q1, k1 = -1.5850, -1.3145, 0.9683, 0.7194  # as the operands' line below shows them
    worked = f"{(q0 * k0 + q1 * k1) / math.sqrt(2):.4f}"
    rc, said = converse(f"0,5\n0.5\n{worked}\n", "--step", "7", "--count", "1", "--seed", "3")
    lines = said.splitlines()
    lines = lines[lines.index("") + 1 :]  # after the few lines that say how it goes
    assert lines[:7] == [
        "1 of 1.  S_2[2,1] = (Q_2[2] · K_2[1]) / √2",
        "    Q_2[2,0] = −1.5850   K_2[1,0] = −1.3145   Q_2[2,1] = 0.9683   K_2[1,1] = 0.7194",
        "S_2[2,1] =   ✗ '0,5' is not a number: write a decimal point, 0.5 (try 0.5, -1, 1e-3 or 1/2)",
        "S_2[2,1] =   ✗ not quite (right is within ±0.00031 of what the numbers on screen give).",
        "    hint 1 of 3: computed from Q_2[2,0], K_2[1,0], Q_2[2,1], K_2[1,1]",
        "S_2[2,1] =   ✓ S_2[2,1] = 1.9658 (accepted 1.96550 to 1.96614)",
        "",
    ]
    assert lines[7:] == ["score: 1 of 1 right"] and rc == 0
    rc, said = converse("0.5\n", "--step", "7", "--count", "2", "--seed", "3")
    assert rc == 1 and said.endswith("score: 0 of 2 right; stopped at question 1, the rest unanswered\n")


def test_the_exit_status_is_in_the_help(capsys):
    with pytest.raises(SystemExit):
        main(["quiz", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "Exit status: 0 when every question is answered right, 1 otherwise" in text


class Interrupted(Terminal):
    """ctrl+c while the quiz waits for an answer."""

    def readline(self, size: int = -1) -> bytes:
        raise KeyboardInterrupt


def test_ctrl_c_at_a_terminal_ends_with_the_score_not_a_traceback(monkeypatch):
    from tinytui.cli.options import build_parser
    from tinytui.cli.quiz_command import run
    from tinytui.cli.run_setup import setup_from

    monkeypatch.setenv("COLUMNS", "60")  # a narrow terminal: the operands wrap between two of them
    ns = build_parser().parse_args(["quiz", "--step", "5", "--count", "1", "--seed", "2"])
    screen = Screen()
    assert run(setup_from(ns), ns, Interrupted(), screen) == 1
    lines = screen.getvalue().splitlines()
    operands = [line for line in lines if line.startswith("    ") and " = " in line]
    assert len(operands) > 1 and all(re.fullmatch(r"    \S+ = \S+(   \S+ = \S+)*", o) for o in operands)
    said = " ".join(screen.getvalue().split())  # wrapped to the terminal's width
    assert said.endswith("score: 0 of 1 right; stopped at question 1, the rest unanswered")
