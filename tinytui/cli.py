"""The `tinytui` command: the app by default, `print` and `trace` for the terminal and for tools."""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from dataclasses import dataclass, replace
from typing import TextIO

from tinytui import collector
from tinytui.commands import gallery, new, serve, train
from tinytui.commands import trace as trace_command
from tinytui.commands.new import CommandError
from tinytui.model import ModelFile, ModelFileError, checks, load_default, run
from tinytui.model.backward import gradients
from tinytui.model.checkpoint import CheckpointModel, load_model
from tinytui.model.presets import resolve
from tinytui.model.stages import GROUPS, STAGE_BY_NUMBER, STAGES
from tinytui.model.switches import defaults
from tinytui.model.trace import DEFAULT_LR, Trace
from tinytui.session import Refused, Session, State


class UsageError(Exception):
    """Bad command-line input: printed as one line, exit status 2."""


@dataclass(frozen=True)
class Setup:
    """What the command line asks to run: the model and the session's first state (weights, prompt,
    target, switches, learning rate)."""

    model: ModelFile
    state: State
    record: str | None = None  # --record FILE: the app attaches a tinytui.recorder.Recorder at start

    def trace(self) -> Trace:
        s = self.state
        return run(s.params, s.prompt, s.target, s.switches, s.lr)


def _run_options(for_subcommand: bool = False) -> argparse.ArgumentParser:
    """The run's options. A subcommand's copy leaves an option it was not given unset (SUPPRESS), so
    `tinytui --model F print` keeps the --model given before the subcommand instead of the default."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("the run")

    def add(*names: str, default=None, **kw) -> None:
        g.add_argument(*names, default=argparse.SUPPRESS if for_subcommand else default, **kw)

    add(
        "--model",
        metavar="PATH",
        help="a tinytui model file, a preset's name, or a GPT-2 checkpoint folder (default: the chapter's)",
    )
    add(
        "--prompt",
        metavar="TEXT",
        help='space-separated tokens, e.g. "woodchuck a would chuck"; any text for a GPT-2 checkpoint '
        "(split by its own BPE)",
    )
    add(
        "--target",
        metavar="TOKEN",
        help="the token the loss is measured against (GPT-2: a piece such as Ġwood, or a one-piece word)",
    )
    add("--no-mask", action="store_true", default=False, help="switch the causal mask off")
    add("--no-pe", action="store_true", default=False, help="switch the positional encoding off")
    # text, checked by tinytui.model.checks.lr like the app's box: 1/4 works, 0 and -5 are refused
    add("--lr", metavar="RATE", help=f"step size for step 15 and learning (default {DEFAULT_LR:g})")
    return p


def build_parser() -> argparse.ArgumentParser:
    common = _run_options()
    run_options = _run_options(for_subcommand=True)
    parser = argparse.ArgumentParser(
        prog="tinytui",
        description="Step through a 172-parameter transformer, one equation at a time. "
        "With no subcommand, opens the interactive debugger.",
        parents=[common],
    )
    parser.add_argument(
        "--theme",
        metavar="NAME",
        help="colour theme for the debugger: dark, light, high-contrast, colour-blind or monochrome "
        "(remembered for next time; NO_COLOR=1 forces monochrome)",
    )
    parser.add_argument(
        "--record",
        metavar="FILE",
        help="record the session as a plain-text transcript in FILE (events for replay go beside it, "
        "FILE with .jsonl)",
    )
    parser.add_argument(
        "--large",
        action="store_true",
        help="open in the presenter view, for a projector: one table at a time, more room (z toggles it)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    pr = sub.add_parser("print", parents=[run_options], help="print the sixteen steps as tables")
    pr.add_argument("--step", type=int, metavar="N", help="print only step N (1–16)")
    for group, steps in GROUPS.items():
        pr.add_argument(f"--{group}", action="store_true", help=_steps_help(steps))
    pr.add_argument("--markdown", action="store_true", help="write a Markdown handout instead")
    pr.add_argument("--plain", action="store_true", help="plain text even in a terminal")
    trace_command.add_parser(sub, run_options)
    wy = sub.add_parser(
        "why", parents=[run_options], help="explain one number: its formula, the numbers it is made of"
    )
    wy.add_argument("cell", metavar="NAME[i,j]", help="a tensor, weight or gradient cell, e.g. 'attn.2[1,0]'")
    wy.add_argument("--json", action="store_true", help="the explanation as JSON")
    rp = sub.add_parser("replay", help="open a recorded session and re-apply its events (n: next event)")
    rp.add_argument("file", metavar="FILE", help="a transcript written by --record (or its .jsonl)")
    rp.add_argument("--to-end", action="store_true", help="apply every recorded event at once")
    rp.add_argument("--print", action="store_true", help="print the state as plain text instead of the app")
    serve.add_parser(sub, run_options)
    new.add_parser(sub)
    train.add_parser(sub)
    new.add_presets_parser(sub)
    gallery.add_parsers(sub, run_options)
    return parser


def _steps_help(steps: tuple[int, ...]) -> str:
    return f"step {steps[0]}" if len(steps) == 1 else f"steps {steps[0]}–{steps[-1]}"


def _option(flag: str, check, *values):
    """check(*values) from tinytui.model.checks; its message becomes "FLAG: message" (exit 2)."""
    try:
        return check(*values)
    except ValueError as exc:
        raise UsageError(f"{flag}: {exc}") from None


def setup_from(args: argparse.Namespace) -> Setup:
    """The model and first state the options ask for, checked by the same functions as the app's; the
    model is run once here, so one that overflows is one line now rather than a traceback later."""
    model = load_model(resolve(args.model)) if args.model else load_default()
    cfg = model.cfg
    prompt, target = model.prompt, model.target
    if isinstance(model, CheckpointModel):  # text, split by the checkpoint's own BPE
        if args.prompt is not None:
            prompt = _option("--prompt", model.prompt_pieces, args.prompt)
        if args.target is not None:
            target = _option("--target", model.target_piece, args.target)
    else:
        if args.prompt is not None:
            prompt = _option("--prompt", checks.prompt, args.prompt.split(), cfg.vocab, cfg.n_ctx)
        if args.target is not None:
            target = _option("--target", checks.target, args.target, cfg.vocab)
    lr = DEFAULT_LR if args.lr is None else _option("--lr", checks.lr, args.lr)
    # the model's own activation (GELU for GPT-2), with the options' switches
    switches = replace(defaults(cfg), causal_mask=not args.no_mask, positional_encoding=not args.no_pe)
    state = State(model.params, prompt, target, switches, lr)
    try:
        Session(model, state)  # the session refuses a run with a non-finite intermediate
    except Refused as exc:
        why = str(exc).removesuffix("; nothing was changed").removeprefix("that ")
        raise UsageError(f"{args.model or 'the model'}: running it {why}") from None
    return Setup(model, state, getattr(args, "record", None))


def selected_steps(args: argparse.Namespace) -> list[int]:
    if args.step is not None:
        if args.step not in STAGE_BY_NUMBER:
            raise UsageError(f"--step: {args.step} is not a step (1–16)")
        return [args.step]
    chosen = [n for group, steps in GROUPS.items() if getattr(args, group) for n in steps]
    return sorted(set(chosen)) or [s.number for s in STAGES]


def cmd_print(args: argparse.Namespace, out: TextIO) -> int:
    from tinytui.model import steps
    from tinytui.render import markdown_document, plain_report, rich_report
    from tinytui.report import stage_report

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
    if getattr(args, "list", False):
        out.write(trace_command.names_text(setup_from(args)))
        return 0
    doc = trace_command.document(setup_from(args), getattr(args, "only", None), args.model or "the model")
    text = json.dumps(doc, indent=1, allow_nan=False)  # allow_nan=False: never NaN/Infinity in the output
    out.write(text + "\n")
    return 0


def cmd_why(args: argparse.Namespace, out: TextIO) -> int:
    """tinytui why NAME[i,j]: the formula, the operands filled in, the result and each operand's cell."""
    from tinytui.model.names import label
    from tinytui.model.provenance import CellError, axes_of, explain, num, parse_cell

    setup = setup_from(args)
    trace, params = setup.trace(), setup.state.params
    grads = gradients(params, trace)
    try:
        name, index = parse_cell(args.cell, trace, params, grads)
    except CellError as exc:
        raise UsageError(str(exc)) from None
    why = explain(trace, params, name, index, grads)
    if args.json:
        out.write(json.dumps(why.to_json(), indent=1, ensure_ascii=False, allow_nan=False) + "\n")
        return 0
    lines = [why.formula, f"  = {why.filled}", f"  = {why.result}", ""]
    lines.append("operands:" if why.operands else "operands: none (nothing else goes into it)")
    for op in why.operands:
        base, sep, block = label(op.name, trace.cfg.n_blocks).partition(" (")
        at = base + (f"[{','.join(map(str, op.index))}]" if op.index else "") + (f" ({block}" if sep else "")
        where = ", ".join(a.labels[i] for a, i in zip(axes_of(op.name, trace, grads), op.index))
        lines.append(f"  {at:<24} {num(op.value):>10}   {where}".rstrip())
    out.write("\n".join(lines) + "\n")
    return 0


def no_color(environ=os.environ) -> bool:
    """NO_COLOR set to anything but the empty string (https://no-color.org)."""
    return bool(environ.get("NO_COLOR"))


def theme_choice(args: argparse.Namespace, environ=os.environ) -> tuple[str, list[str]]:
    """The debugger's starting theme and notices for the user: NO_COLOR > --theme > remembered > default.

    A --theme choice is also remembered for next time.
    """
    theme, notices, _ = app_options(args, environ)
    return theme, notices


def app_options(args: argparse.Namespace, environ=os.environ) -> tuple[str, list[str], dict[str, str]]:
    """The debugger's theme (see theme_choice), the notices for the user, and the user's keymap
    (the entries that can be used; a notice for each one that cannot)."""
    from tinytui import themes
    from tinytui.actions import check_keymap
    from tinytui.config import load_settings, remember

    requested = None
    if getattr(args, "theme", None) is not None:
        try:
            requested = themes.resolve(args.theme)
        except ValueError as exc:
            raise UsageError(f"--theme: {exc}") from None
    settings, notice = load_settings()
    notices = [notice] if notice else []
    name, choice_notice = themes.choose(requested, settings.theme, no_color(environ))
    notices += [choice_notice] if choice_notice else []
    if requested is not None and requested != settings.theme:
        failed = remember(theme=requested)
        notices += [failed] if failed else []
    keymap, keymap_notices = check_keymap(settings.keymap)
    return name, notices + keymap_notices, keymap


def cmd_app(args: argparse.Namespace) -> int:
    setup = setup_from(args)
    theme, notices, keymap = app_options(args)  # checks --theme before the screen is taken over
    from tinytui.app import TinyTuiApp

    session = Session(setup.model, setup.state)
    large = getattr(args, "large", False)
    return run_app(
        TinyTuiApp(session, theme=theme, notices=notices, record=setup.record, keymap=keymap, large=large)
    )


def run_app(app) -> int:
    """Run the debugger; after a crash (the recording stopped and the edited model saved by
    TinyTuiApp.rescue) say where both are, on stderr once the terminal is restored, and return 1."""
    collector.settle()  # what exists now is frozen; the young are collected less often (collector.py)
    try:
        app.run()
    except Exception as exc:  # one that escaped Textual's own handler (while closing the screens, say)
        traceback.print_exception(exc)
        app.rescue(exc)
    if app.crash_report is not None:
        for line in app.crash_report.lines():
            print(line, file=sys.stderr)
        return 1
    return app.return_code or 0


def cmd_replay(args: argparse.Namespace, out: TextIO) -> int:
    """The whole file is checked before anything is applied; a bad one is one line and exit 2."""
    from tinytui.replay import Replayer, ReplayError, load_recording, state_text

    try:
        replayer = Replayer(load_recording(args.file), to_end=args.to_end)
    except ReplayError as exc:
        raise UsageError(str(exc)) from None
    if args.print:
        session = replayer.new_session()
        if args.to_end:
            replayer.apply_all(session)
        out.write(state_text(session, replayer))
        return 0
    theme, notices, keymap = app_options(args)
    from tinytui.app import TinyTuiApp

    # the app opens where the recording started (its undo history included)
    session = replayer.new_session()
    record = getattr(args, "record", None)
    return run_app(
        TinyTuiApp(
            session,
            theme=theme,
            notices=notices,
            replay=replayer,
            record=record,
            keymap=keymap,
            large=getattr(args, "large", False),  # a lesson replayed on a projector
        )
    )


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is not None:  # not the app (whose run_app settles the collector): collect as usual
        collector.resume()
    try:
        if args.command == "print":
            return cmd_print(args, sys.stdout)
        if args.command == "trace":
            return cmd_trace(args, sys.stdout)
        if args.command == "circuits":
            return gallery.run_circuits(setup_from(args), args, sys.stdout)
        if args.command == "attribution":
            return gallery.run_attribution(setup_from(args), args, sys.stdout)
        if args.command == "serve":
            setup_from(args)  # a bad model or option is refused here, not in every browser tab
            return serve.run(args, sys.stdout, sys.stderr)
        if args.command in ("new", "train", "presets"):
            return {"new": new.run, "train": train.run, "presets": new.run_presets}[args.command](
                args, sys.stdout, sys.stderr
            )
        if args.command == "why":
            return cmd_why(args, sys.stdout)
        if args.command == "replay":
            return cmd_replay(args, sys.stdout)
        return cmd_app(args)
    except (ModelFileError, UsageError, CommandError) as exc:
        print(f"tinytui: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `tinytui print | head` is fine
        return 0
