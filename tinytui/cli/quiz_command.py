"""`tinytui quiz --step N [--backward] [--count K --seed S]`: practice in a plain terminal, for scripts
and classes. The questions are the cells the step computes (lesson/practice/questions.py), in order.

    tinytui quiz --step 7                   at a terminal: a conversation, one question at a time
    tinytui quiz --step 7 --list --json     the questions as JSON: name, index, formula, operands (no answers)
    tinytui quiz --step 7 < answers.txt     one answer a line: ✓ or the first hint for each, then the score
    tinytui quiz --step 7 --json < answers  {"questions": [{name, index, answer, expected, correct}], score}

At a terminal (stdin and stdout both one) each question comes with its formula and its operands' values as
the screen shows them, and is graded as it is answered: a wrong number earns the next hint and another
try, text that is not a number is refused and asked again, an empty line skips; the score comes last.
Piped, a line that is not a number is graded wrong and said so; a missing line is no answer; lines after
the last question are reported, not read as answers. The exit status is 0 when every question is answered
right, 1 otherwise; bad options (a step that is not one, --count 0) are one line from the caller's
UsageError (exit 2).
"""

from __future__ import annotations

import argparse
import json
import shutil
import textwrap
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, BinaryIO, TextIO

from tinytui.cli.option_types import seed

# The questions, their grading and hints are imported by the functions that ask and grade: the parser
# reads this module for its options whatever the command.
if TYPE_CHECKING:
    from tinytui.cli.run_setup import Setup
    from tinytui.lesson.practice.grading import Grade
    from tinytui.lesson.practice.questions import Question

MAX_LINE = 1000  # characters of one answer line read; a longer line is not a number anyway
MAX_EXTRA = 10_000  # lines after the last question counted (and reported) before reading stops
MAX_OPERANDS = 48  # operands listed with a question at a terminal; why --json lists them all
HELP = "practice in the terminal: the cells a step computes as questions, your answers graded from stdin"
EPILOG = (
    "At a terminal the quiz asks one question at a time, with its formula and its operands as the screen "
    "shows them, and grades each answer as it comes (a wrong one earns a hint and another try). Piped, "
    "it reads one answer a line. An answer is right when it is what the formula gives from the operands "
    "as shown (4 decimals), within the rounding they carry. Exit status: 0 when every question is "
    "answered right, 1 otherwise, 2 for bad options."
)


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
    p = sub.add_parser("quiz", parents=[run_options], help=HELP, description=HELP + ".", epilog=EPILOG)
    add_step_options(p, required=True)
    p.add_argument("--list", action="store_true", help="print the questions (no answers) instead of asking")
    p.add_argument("--json", action="store_true", help="JSON output")


def questions(setup: Setup, args: argparse.Namespace) -> tuple[tuple[Question, ...], int]:
    """The questions the options ask, and the model's number of blocks."""
    from tinytui.cli.run_setup import UsageError
    from tinytui.lesson.practice.questions import QuestionError, step_questions
    from tinytui.model.backward.gradients import Gradients

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


def _text(raw: bytes) -> str:
    """One line of stdin as text (bytes that are not UTF-8 read as �), cut at MAX_LINE."""
    return raw[: MAX_LINE * 4].decode("utf-8", errors="replace").rstrip("\r\n")[:MAX_LINE]


def answer_lines(stream: BinaryIO, n: int) -> tuple[list[str], int]:
    """Up to n lines of stdin as text, and how many non-empty lines came after them (counted up to
    MAX_EXTRA): an answer too many is reported, never taken for the next question's."""
    out: list[str] = []
    extra = 0
    for raw in stream:
        if len(out) < n:
            out.append(_text(raw))
            continue
        extra += bool(raw.strip())
        if extra >= MAX_EXTRA:
            break
    return out, extra


def is_terminal(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):
        return False


def run(setup: Setup, args: argparse.Namespace, stdin: BinaryIO, out: TextIO) -> int:
    from tinytui.lesson.practice.grading import accepted, grade

    qs, n_blocks = questions(setup, args)
    if args.list:
        out.write(list_json(qs, n_blocks) if args.json else list_text(qs))
        return 0
    if not args.json and is_terminal(stdin) and is_terminal(out):
        return converse(qs, n_blocks, stdin, out)
    lines, extra = answer_lines(stdin, len(qs))
    grades = [grade(lines[i] if i < len(lines) else "", accepted(q.why)) for i, q in enumerate(qs)]
    if args.json:
        out.write(results_json(qs, grades, n_blocks, extra))
    else:
        out.write(results_text(qs, grades, n_blocks, extra))
    return 0 if all(g.correct for g in grades) else 1


# ---- at a terminal: one question at a time ----------------------------------------------------------


def converse(qs: Sequence[Question], n_blocks: int, stdin: BinaryIO, out: TextIO) -> int:
    """Ask each question with its formula and operands, grade each answer as it comes (a wrong number:
    the next hint and another try, until the hints run out), and say the score at the end."""
    from tinytui.lesson.practice.grading import accepted, grade
    from tinytui.lesson.practice.hints import RUNGS, hint
    from tinytui.lesson.texts.display_names import in_formula

    width = max(40, min(shutil.get_terminal_size((100, 24)).columns, 120))
    say = _Say(out, width)
    say(
        f"{len(qs)} question{'s' if len(qs) != 1 else ''}: work each value out by hand from the numbers "
        "given and type it (4 decimals, or a fraction such as 1/2). A wrong answer earns a hint and "
        "another try; an empty line skips a question; Ctrl-D stops."
    )
    right = done = 0
    stopped = False
    for i, q in enumerate(qs, 1):
        say("")
        say(f"{i} of {len(qs)}.  {in_formula(q.why.formula)}", indent=" " * (len(f"{i} of {len(qs)}.  ")))
        say.pieces(operands(q, n_blocks), "    ")
        ok = accepted(q.why)
        rung = 0
        while True:
            out.write(f"{q.cell(n_blocks)} = ")
            out.flush()
            try:
                raw = stdin.readline()
            except KeyboardInterrupt:  # ctrl+c: the quiz stops, as at the end of input
                out.write("\n")
                raw = b""
            if not raw:
                stopped = True
                break
            g = grade(_text(raw), ok)
            if g.correct:
                right += 1
                say(f"✓ {q.cell(n_blocks)} = {q.why.result} (accepted {ok.text()})", first="  ")
                break
            if g.answer is None:
                if not _text(raw).strip():
                    say("skipped", first="  ")
                    break
                say(f"✗ {g.said}", first="  ", indent="    ")
                continue
            if rung == RUNGS:
                say(
                    f"✗ not quite: {q.cell(n_blocks)} is {q.why.result} (right is {ok.rule_text()})",
                    first="  ",
                )
                break
            rung += 1
            say(f"✗ not quite (right is {ok.rule_text()}).", first="  ", indent="    ")
            say(f"hint {rung} of {RUNGS}: {hint(q, rung, n_blocks)}", first="    ", indent="      ")
        if stopped:
            break
        done += 1
    say("")
    asked = len(qs)
    said = f"score: {right} of {asked} right"
    if stopped:
        said += f"; stopped at question {done + 1}, the rest unanswered"
    say(said)
    return 0 if right == asked else 1


def operands(q: Question, n_blocks: int) -> list[str]:
    """['Q_2[1,0] = −1.3145', 'K_2[0,0] = 0.5773', …]: each cell the value is computed from, once, with
    its value as the screen shows it."""
    from tinytui.lesson.practice.questions import cell_text
    from tinytui.lesson.why.why import result_text

    seen: dict[tuple[str, tuple[int, ...]], float] = {}
    for op in q.why.operands:
        seen.setdefault((op.name, tuple(op.index)), op.value)
    if not seen:
        return ["(computed from no other cell)"]
    pieces = [f"{cell_text(n, ix, n_blocks)} = {result_text(n, v)}" for (n, ix), v in seen.items()]
    if len(pieces) > MAX_OPERANDS:
        more = len(pieces) - MAX_OPERANDS
        where = f"tinytui why --json '{q.cell(n_blocks)}' with the quiz's run options lists them all"
        pieces = [*pieces[:MAX_OPERANDS], f"… and {more} more ({where})"]
    return pieces


class _Say:
    """Lines to the terminal, wrapped to its width, each written at once."""

    def __init__(self, out: TextIO, width: int) -> None:
        self.out, self.width = out, width

    def __call__(self, text: str, first: str = "", indent: str = "") -> None:
        lines = textwrap.wrap(text, self.width, initial_indent=first, subsequent_indent=indent) or [""]
        self.out.write("\n".join(lines) + "\n")
        self.out.flush()

    def pieces(self, pieces: list[str], indent: str, gap: str = "   ") -> None:
        """Pieces side by side, a line broken only between two of them."""
        lines = [indent]
        for piece in pieces:
            if lines[-1].strip() and len(lines[-1]) + len(gap) + len(piece) > self.width:
                lines.append(indent)
            lines[-1] += (gap if lines[-1].strip() else "") + piece
        self.out.write("\n".join(lines) + "\n")
        self.out.flush()


def _lines(items: Sequence[dict]) -> str:
    """A JSON list with one object a line: a class's scripts read it, and so can people."""
    return "[\n" + ",\n".join(" " + json.dumps(i, ensure_ascii=False, allow_nan=False) for i in items) + "\n]"


def list_json(qs: Sequence[Question], n_blocks: int = 1) -> str:
    return _lines([q.to_json(n_blocks) for q in qs]) + "\n"


def list_text(qs: Sequence[Question]) -> str:
    from tinytui.lesson.texts.display_names import in_formula

    return "".join(f"{i:>3}. {in_formula(q.why.formula)}\n" for i, q in enumerate(qs, 1))


def results_text(qs: Sequence[Question], grades: Sequence[Grade], n_blocks: int, extra: int = 0) -> str:
    from tinytui.lesson.practice.hints import hint

    lines = []
    for i, (q, g) in enumerate(zip(qs, grades), 1):
        ok = g.accepted
        if g.correct:
            lines.append(f"{i:>3}. ✓ {q.cell(n_blocks)} = {q.why.result} (accepted {ok.text()})")
        else:
            rule = f" (right is {ok.rule_text()})" if g.answer is not None else ""
            lines.append(f"{i:>3}. ✗ {q.cell(n_blocks)}: {g.said}{rule}. Hint: {hint(q, 1, n_blocks)}")
    right = sum(g.correct for g in grades)
    if extra:
        lines.append(f"{_extra(extra)} after the last question: not read as answers")
    lines.append(f"score: {right} of {len(grades)}")
    return "\n".join(lines) + "\n"


def _extra(n: int) -> str:
    return f"{n}{'+' if n >= MAX_EXTRA else ''} more line{'s' if n != 1 else ''}"


def results_json(qs: Sequence[Question], grades: Sequence[Grade], n_blocks: int = 1, extra: int = 0) -> str:
    items = [
        {
            "name": q.name,
            "index": list(q.index),
            "shown": q.cell(n_blocks),
            "answer": g.answer,  # a finite number (model.checks.number refuses the rest) or None
            "expected": q.value,
            "correct": g.correct,
            "said": g.said,
            "accepted": [list(r) for r in g.accepted.ranges()],  # [low, high] each; two when apart
        }
        for q, g in zip(qs, grades)
    ]
    score_text = json.dumps(score(grades))
    return '{"questions": ' + _lines(items) + f',\n "extra_lines": {extra},\n "score": {score_text}}}\n'


def score(grades: Iterable[Grade]) -> dict:
    grades = list(grades)
    return {"right": sum(g.correct for g in grades), "asked": len(grades)}
