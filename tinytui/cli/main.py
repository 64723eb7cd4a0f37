"""The `tinytui` command: the app by default, `print`, `trace` and `why` for the terminal and for tools.

This module reads the arguments and runs the command they name (main), and holds the commands that
print a run. The rest is beside it: the parser in tinytui.cli.options, the Setup the options ask for in
tinytui.cli.run_setup, the commands that open the debugger (the app, replay) in tinytui.cli.debugger,
and each other command in its own module, imported only when that command runs (run_command), so
`tinytui print` does not load the server, the analyses or Textual.
"""

from __future__ import annotations

import io
import json
import os
import sys
from types import SimpleNamespace
from typing import TYPE_CHECKING, TextIO

from tinytui import __version__
from tinytui.cli import garbage_collector, refusal
from tinytui.cli.debugger import cmd_app, cmd_replay
from tinytui.cli.run_setup import UsageError, setup_from
from tinytui.lesson.stages import GROUPS, STAGE_BY_NUMBER, STAGES
from tinytui.model.io.field_checks import ModelFileError

if TYPE_CHECKING:
    import argparse

# What the parser makes of `tinytui` alone, the debugger's start: read without argparse, whose import
# and the parser's making are ~15 M instructions of that start (callgrind). tests/cli/test_bare_command.py
# holds it equal to build_parser().parse_args([]).
BARE_COMMAND = {
    "model": None,
    "prompt": None,
    "target": None,
    "no_mask": False,
    "no_pe": False,
    "norm": None,
    "positions": None,
    "lr": None,
    "theme": None,
    "record": None,
    "large": False,
    "version": False,
    "command": None,
}


def selected_steps(args: argparse.Namespace) -> list[int]:
    if args.step is not None:
        if args.step not in STAGE_BY_NUMBER:
            raise UsageError(f"--step: {args.step} is not a step (1–16)")
        return [args.step]
    chosen = [n for group, steps in GROUPS.items() if getattr(args, group) for n in steps]
    return sorted(set(chosen)) or [s.number for s in STAGES]


def cmd_print(args: argparse.Namespace, out: TextIO) -> int:
    from tinytui.lesson import step_path as steps
    from tinytui.report.render import markdown_document, plain_report, rich_report
    from tinytui.report.step_report import stage_report

    setup = setup_from(args)
    trace = setup.trace()
    params = setup.state.params  # each step's report also shows the weights it reads
    chosen = set(selected_steps(args))  # a block's step is printed once per block, in the stepper's order
    path = [s for s in steps.forward(trace.cfg.n_blocks) if s.number in chosen]
    reports = [stage_report(trace, s.stage, params, s.block or 0) for s in path]
    if args.markdown:
        s = setup.state
        intro = (
            f"Prompt: **{' '.join(s.prompt)}**, target **{s.target}**; "
            f"model `{setup.model.name}`; switches: {s.switches.describe()}. "
            f"{setup.model.about}"
        )
        out.write(markdown_document("tinytui walk-through", intro, reports))
        return 0
    if args.plain or os.environ.get("NO_COLOR") or not out.isatty():
        out.write("\n\n\n".join(plain_report(r) for r in reports) + "\n")
        return 0
    from rich.console import Console

    console = Console(file=out)
    for r in reports:
        console.print(rich_report(r))
    return 0


def cmd_trace(args: argparse.Namespace, out: TextIO) -> int:
    from tinytui.cli import trace_command

    if getattr(args, "list", False):
        out.write(trace_command.names_text(setup_from(args)))
        return 0
    doc = trace_command.document(setup_from(args), getattr(args, "only", None), args.model or "the model")
    text = json.dumps(doc, indent=1, allow_nan=False)  # allow_nan=False: never NaN/Infinity in the output
    out.write(text + "\n")
    return 0


def cmd_why(args: argparse.Namespace, out: TextIO) -> int:
    """tinytui why NAME[i,j]: the formula, the operands filled in, the result and each operand's cell.
    The cell is named as the screen shows it (A_2[1,0], W_O[h2.k0, thing], W_Q[h1: wood, k1]) or by its
    canonical name (attn.2[1,0]); each cell is printed both ways."""
    from tinytui.lesson.texts.display_names import canonical_cell, in_formula, screen_cell
    from tinytui.lesson.why.explain import CellError, axes_of, explain, parse_cell
    from tinytui.lesson.why.why import num
    from tinytui.model.backward.gradients import gradients
    from tinytui.model.names import label

    setup = setup_from(args)
    trace, params = setup.trace(), setup.state.params
    grads = gradients(params, trace)
    read = canonical_cell(args.cell)
    try:
        name, index = parse_cell(read, trace, params, grads)
    except CellError as exc:
        said = "" if read == args.cell.strip() else f" (reading {args.cell.strip()!r} as {read!r})"
        raise UsageError(f"{exc}{said}") from None
    why = explain(trace, params, name, index, grads)

    def named(cell: str, at: tuple[int, ...]) -> tuple[str, str]:
        """(the screen's name, the canonical one) of a cell."""
        base, sep, block = label(cell, trace.cfg.n_blocks).partition(" (")
        canonical = base + (f"[{','.join(map(str, at))}]" if at else "") + (f" ({block}" if sep else "")
        shape = tuple(len(a.labels) for a in axes_of(cell, trace, grads))
        return screen_cell(trace.cfg, cell, at, shape), canonical

    if args.json:
        doc = why.to_json()
        doc["shown"] = named(name, index)[0]
        for op, entry in zip(why.operands, doc["operands"]):
            entry["shown"] = named(op.name, op.index)[0]
        out.write(json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False) + "\n")
        return 0
    shown, canonical = named(name, index)
    lines = [f"{shown}   (canonical: {canonical})", in_formula(why.formula)]
    if why.filled != why.result:  # a weight or a constant has nothing to fill in: its value, once
        lines.append(f"  = {in_formula(why.filled)}")
    lines += [f"  {why.ending}", ""]
    lines.append("operands:" if why.operands else "operands: none (nothing else goes into it)")
    for op in why.operands:
        shown, canonical = named(op.name, op.index)
        where = ", ".join(a.labels[i] for a, i in zip(axes_of(op.name, trace, grads), op.index))
        lines.append(f"  {shown:<22} {canonical:<22} {num(op.value):>10}   {where}".rstrip())
    out.write("\n".join(lines) + "\n")
    return 0


class OutputError(Exception):
    """Standard output could not take what a command wrote (closed, a full disk, a file size limit)."""


class CheckedOutput:
    """A command's standard output, every write checked: what cannot be written is an OutputError (one
    line and a non-zero exit from main), never a traceback, and never exit 0 with a short file.

    On the process's own stdout (POSIX) the text is written with os.write in a loop until every byte is
    taken: Python's buffered writer can report success after a partial write that a file size limit
    (ulimit -f) cut short. To a terminal each write goes out at once (quiz asks, then reads); elsewhere
    the text is gathered and written in large pieces, and at the end by main's flush."""

    GATHER = 1 << 16  # bytes held before they are written

    def __init__(self, stream: TextIO | None):
        self.stream = stream
        self.pending: list[str] = []
        self.held = 0
        self.fd: int | None = None
        if stream is not None and stream is sys.__stdout__ and os.name == "posix":
            try:
                self.fd = stream.fileno()
            except (OSError, ValueError):
                self.fd = None
        self.terminal = self.isatty()

    @property
    def encoding(self) -> str:
        return getattr(self.stream, "encoding", None) or "utf-8"

    @property
    def errors(self) -> str:
        return getattr(self.stream, "errors", None) or "strict"

    def isatty(self) -> bool:
        try:
            return self.stream is not None and self.stream.isatty()
        except (OSError, ValueError):
            return False

    def fileno(self) -> int:
        if self.stream is None:
            raise OutputError("standard output is closed")
        return self.stream.fileno()

    def writable(self) -> bool:
        return self.stream is not None

    def write(self, text: str) -> int:
        if self.stream is None:
            raise OutputError("standard output is closed")
        if self.fd is None:
            try:
                self.stream.write(text)
            except BrokenPipeError:
                raise
            except OSError as exc:
                raise OutputError(exc.strerror or str(exc)) from None
        else:
            self.pending.append(text)
            self.held += len(text)
        if self.terminal or self.held >= self.GATHER:
            self.flush()
        return len(text)

    def flush(self) -> None:
        if self.stream is None:
            return
        try:
            if self.fd is None:
                self.stream.flush()
                return
            self.stream.flush()  # anything written to sys.stdout directly goes first
            data = memoryview("".join(self.pending).encode(self.encoding, self.errors))
            self.pending, self.held = [], 0
            while data:
                data = data[os.write(self.fd, data) :]
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(exc.strerror or str(exc)) from None

    def silence(self) -> None:
        """Drop what is held and point the process's standard output at /dev/null, so the
        interpreter's own flush at exit finds nothing that fails (after a reader left a pipe, or a
        write failed and was reported)."""
        self.pending, self.held = [], 0
        if self.fd is None:
            return
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self.fd)
            os.close(null)
        except OSError:
            pass


def command_error() -> type[Exception]:
    """The commands' one-line error (tinytui.cli.new_command.CommandError), asked for only when an
    exception reaches main: a command that raised it has imported it, and print and the app never do."""
    from tinytui.cli.new_command import CommandError

    return CommandError


def parsed(argv: list[str] | None = None) -> argparse.Namespace | SimpleNamespace:
    """The command line read: `tinytui` alone as BARE_COMMAND, anything else by the parser."""
    if not (sys.argv[1:] if argv is None else argv):
        return SimpleNamespace(**BARE_COMMAND)
    from tinytui.cli.options import build_parser

    return build_parser().parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parsed(argv)
    if args.command is not None:  # not the app (whose run_app settles the collector): collect as usual
        garbage_collector.resume()
    out = CheckedOutput(sys.stdout)
    try:
        code = run_command(args, out)
        out.flush()
        return code
    except (ModelFileError, UsageError, command_error()) as exc:  # evaluated once something is raised
        refusal.say(str(exc))
        return 2
    except BrokenPipeError:  # `tinytui print | head` is fine
        out.silence()
        return 0
    except OutputError as exc:
        out.silence()
        refusal.say(f"cannot write the output: {exc}")
        return 1
    except MemoryError:
        refusal.say(refusal.OUT_OF_MEMORY)
        return 1


def run_command(args: argparse.Namespace, out: CheckedOutput) -> int:
    """Run the command args name, writing to out; its exit status. Each command's module is imported
    here, when it runs: the parser needs only their options, and a command pays for its own imports."""
    if args.version:
        out.write(f"tinytui {__version__}\n")
        return 0
    if args.command == "print":
        return cmd_print(args, out)
    if args.command == "trace":
        return cmd_trace(args, out)
    if args.command in ("circuits", "attribution"):
        from tinytui.cli import analysis_commands

        run = {"circuits": analysis_commands.run_circuits, "attribution": analysis_commands.run_attribution}
        return run[args.command](setup_from(args), args, out)
    if args.command in ("lens", "patch"):
        from tinytui.cli import prediction_commands

        run = {"lens": prediction_commands.run_lens, "patch": prediction_commands.run_patch}
        return run[args.command](setup_from(args), args, out)
    if args.command == "generate":
        from tinytui.cli import generate_command

        return generate_command.run(setup_from(args), args, out)
    if args.command == "serve":
        from tinytui.cli import serve_command

        # a bad model or option is refused here, not in every browser tab; --record NAME is not a file
        # serve writes (each session gets NAME-k), so it is checked by serve itself
        setup_from(SimpleNamespace(**{**vars(args), "record": None}))
        return serve_command.run(args, out, sys.stderr)
    if args.command in ("new", "presets"):
        from tinytui.cli import new_command

        run = new_command.run if args.command == "new" else new_command.run_presets
        return run(args, out, sys.stderr)
    if args.command == "train":
        from tinytui.cli import train_command

        return train_command.run(args, out, sys.stderr)
    if args.command == "why":
        return cmd_why(args, out)
    if args.command == "quiz":
        from tinytui.cli import quiz_command

        answers = sys.stdin.buffer if sys.stdin is not None else io.BytesIO()  # closed: no answers
        return quiz_command.run(setup_from(args), args, answers, out)
    if args.command == "practice":
        from tinytui.cli import practice_command

        return practice_command.run_practice(args)
    if args.command == "handout":
        from tinytui.cli import handout_command

        return handout_command.run(args, out, sys.stderr)
    if args.command == "replay":
        return cmd_replay(args, out)
    return cmd_app(args)
