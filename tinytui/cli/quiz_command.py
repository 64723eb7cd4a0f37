"""`tinytui quiz --step N [--backward] [--count K --seed S]`: practice in a plain terminal, for scripts
and classes. The questions are the cells the step computes (model/practice/questions.py), in order.

    tinytui quiz --step 7 --list --json     the questions as JSON: name, index, formula, operands (no answers)
    tinytui quiz --step 7 < answers.txt     one answer a line: ✓ or the first hint for each, then the score
    tinytui quiz --step 7 --json < answers  {"questions": [{name, index, answer, expected, correct}], score}

A line that is not a number is graded wrong and said so; a missing line is no answer. Bad options (a
step that is not one, --count 0) are one line from the caller's UsageError.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Iterable, Sequence
from typing import BinaryIO, TextIO

from tinytui.cli.option_types import seed
from tinytui.cli.run_setup import Setup, UsageError
from tinytui.model.backward.gradients import Gradients
from tinytui.model.practice.grading import Grade, accepted, grade
from tinytui.model.practice.hints import hint
from tinytui.model.practice.questions import Question, QuestionError, step_questions
from tinytui.model.texts.display_names import in_formula

MAX_LINE = 1000  # characters of one answer line read; a longer line is not a number anyway
HELP = "practice in the terminal: the cells a step computes as questions, your answers graded from stdin"


def add_step_options(p: argparse.ArgumentParser, required: bool) -> None:
    """--step, --backward, --block, --count, --seed: which cells are asked (quiz and practice share them)."""
    g = p.add_argument_group("the questions")
    g.add_argument("--step", type=int, metavar="N", required=required, help="ask the cells step N computes")
    g.add_argument("--backward", action="store_true", help="ask the backward walk's step N (15 … 2)")
    g.add_argument(
        "--block",
        type=int,
        metavar="B",
        default=1,
        help="the block of a block's step (1 = the first; default)",
    )
    g.add_argument("--count", type=int, metavar="K", help="ask a sample of K cells instead of every one")
    g.add_argument("--seed", type=seed, metavar="S", default=0, help="which sample --count draws (default 0)")


def add_parser(sub, run_options: argparse.ArgumentParser) -> None:
    p = sub.add_parser("quiz", parents=[run_options], help=HELP, description=HELP + ".")
    add_step_options(p, required=True)
    p.add_argument("--list", action="store_true", help="print the questions (no answers) instead of asking")
    p.add_argument("--json", action="store_true", help="JSON output")


def questions(setup: Setup, args: argparse.Namespace) -> tuple[tuple[Question, ...], int]:
    """The questions the options ask, and the model's number of blocks."""
    trace, params = setup.trace(), setup.state.params
    grads = Gradients(params, trace) if args.backward else None
    try:
        qs = step_questions(
            trace, params, args.step, args.backward, args.block - 1, args.count, args.seed, grads
        )
    except QuestionError as exc:
        raise UsageError(f"--{exc.option}: {exc}") from None
    if not qs:
        walk = "the backward walk's " if args.backward else ""
        raise UsageError(f"--step {args.step}: {walk}step {args.step} computes nothing to check by hand")
    return qs, trace.cfg.n_blocks


def answer_lines(stream: BinaryIO, n: int) -> list[str]:
    """Up to n lines of stdin as text (bytes that are not UTF-8 read as �), each cut at MAX_LINE."""
    out: list[str] = []
    for raw in stream:
        out.append(raw[: MAX_LINE * 4].decode("utf-8", errors="replace").rstrip("\r\n")[:MAX_LINE])
        if len(out) == n:
            break
    return out


def run(setup: Setup, args: argparse.Namespace, stdin: BinaryIO, out: TextIO) -> int:
    qs, n_blocks = questions(setup, args)
    if args.list:
        out.write(list_json(qs, n_blocks) if args.json else list_text(qs))
        return 0
    lines = answer_lines(stdin, len(qs))
    grades = [grade(lines[i] if i < len(lines) else "", accepted(q.why)) for i, q in enumerate(qs)]
    out.write(results_json(qs, grades, n_blocks) if args.json else results_text(qs, grades, n_blocks))
    return 0


def _lines(items: Sequence[dict]) -> str:
    """A JSON list with one object a line: a class's scripts read it, and so can people."""
    return "[\n" + ",\n".join(" " + json.dumps(i, ensure_ascii=False, allow_nan=False) for i in items) + "\n]"


def list_json(qs: Sequence[Question], n_blocks: int = 1) -> str:
    return _lines([q.to_json(n_blocks) for q in qs]) + "\n"


def list_text(qs: Sequence[Question]) -> str:
    return "".join(f"{i:>3}. {in_formula(q.why.formula)}\n" for i, q in enumerate(qs, 1))


def results_text(qs: Sequence[Question], grades: Sequence[Grade], n_blocks: int) -> str:
    lines = []
    for i, (q, g) in enumerate(zip(qs, grades), 1):
        ok = g.accepted
        if g.correct:
            lines.append(f"{i:>3}. ✓ {q.cell(n_blocks)} = {q.why.result} (accepted {ok.text()})")
        else:
            rule = f" (right is {ok.rule_text()})" if g.answer is not None else ""
            lines.append(f"{i:>3}. ✗ {q.cell(n_blocks)}: {g.said}{rule}. Hint: {hint(q, 1, n_blocks)}")
    right = sum(g.correct for g in grades)
    lines.append(f"score: {right} of {len(grades)}")
    return "\n".join(lines) + "\n"


def results_json(qs: Sequence[Question], grades: Sequence[Grade], n_blocks: int = 1) -> str:
    items = [
        {
            "name": q.name,
            "index": list(q.index),
            "shown": q.cell(n_blocks),
            "answer": _number(g.answer),
            "expected": q.value,
            "correct": g.correct,
            "said": g.said,
            "accepted": [g.accepted.low, g.accepted.high],
        }
        for q, g in zip(qs, grades)
    ]
    score_text = json.dumps(score(grades))
    return '{"questions": ' + _lines(items) + f',\n "score": {score_text}}}\n'


def score(grades: Iterable[Grade]) -> dict:
    grades = list(grades)
    return {"right": sum(g.correct for g in grades), "asked": len(grades)}


def _number(v: float | None) -> float | str | None:
    """JSON has no infinity: an answer of ∞ is written as the text the app shows."""
    if v is None or math.isfinite(v):
        return v
    return "∞" if v > 0 else "−∞"
