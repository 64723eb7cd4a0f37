"""The `tinytui` command line's grammar: the run's options every command shares and the parser of
`tinytui` and each of its subcommands (their help text is the command's help)."""

from __future__ import annotations

import argparse

from tinytui.cli import (
    analysis_commands,
    generate_command,
    handout_command,
    new_command,
    practice_command,
    prediction_commands,
    quiz_command,
    serve_command,
    trace_command,
    train_command,
)
from tinytui.cli.option_types import file_name, not_empty, theme_name
from tinytui.lesson.stages import GROUPS
from tinytui.model.switches import NORM_KINDS, TURNED
from tinytui.model.trace import DEFAULT_LR


class OneLineParser(argparse.ArgumentParser):
    """A bad command line is one line, like every other refusal: `tinytui: error: --seed: …`, exit 2
    (argparse would print the usage first; `tinytui COMMAND --help` shows it)."""

    def error(self, message: str):
        self.exit(2, f"tinytui: error: {message.removeprefix('argument ')}\n")


def _run_options(for_subcommand: bool = False) -> argparse.ArgumentParser:
    """The run's options. A subcommand's copy leaves an option it was not given unset (SUPPRESS), so
    `tinytui --model F print` keeps the --model given before the subcommand instead of the default."""
    p = OneLineParser(add_help=False)
    g = p.add_argument_group("the run")

    def add(*names: str, default=None, **kw) -> None:
        g.add_argument(*names, default=argparse.SUPPRESS if for_subcommand else default, **kw)

    add(
        "--model",
        metavar="PATH",
        type=not_empty("a model file, a preset's name (tinytui presets) or a GPT-2 checkpoint folder"),
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
        type=not_empty("a token of the vocabulary"),
        help="the token the loss is measured against (GPT-2: a piece such as Ġwood, or a one-piece word)",
    )
    add("--no-mask", action="store_true", default=False, help="switch the causal mask off")
    add("--no-pe", action="store_true", default=False, help="switch the positional encoding off")
    add("--norm", choices=NORM_KINDS, help="run the model's norms as LayerNorm or RMSNorm (key l)")
    add("--positions", choices=TURNED, help="run its positions as sinusoids added to x or RoPE (key O)")
    # text, checked by tinytui.model.checks.lr like the app's box: 1/4 works, 0 and -5 are refused
    add("--lr", metavar="RATE", help=f"step size for step 15 and learning (default {DEFAULT_LR:g})")
    return p


def build_parser() -> argparse.ArgumentParser:
    common = _run_options()
    run_options = _run_options(for_subcommand=True)
    parser = OneLineParser(
        prog="tinytui",
        description="Step through a 172-parameter transformer, one equation at a time. "
        "With no subcommand, opens the interactive debugger.",
        parents=[common],
    )
    parser.add_argument(
        "--theme",
        metavar="NAME",
        type=theme_name,
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
    parser.add_argument("--version", action="store_true", help="print tinytui's version and stop")
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
    wy.add_argument(
        "cell",
        metavar="NAME[i,j]",
        help="a tensor, weight or gradient cell, as the screen names it or canonically, e.g. 'A_2[1,0]', "
        "'W_O[h2.k0, thing]' or 'attn.2[1,0]'",
    )
    wy.add_argument("--json", action="store_true", help="the explanation as JSON")
    rp = sub.add_parser("replay", help="open a recorded session and re-apply its events (n: next event)")
    rp.add_argument(
        "file", metavar="FILE", type=file_name, help="a transcript written by --record (or its .jsonl)"
    )
    rp.add_argument("--to-end", action="store_true", help="apply every recorded event at once")
    rp.add_argument(
        "--print",
        action="store_true",
        help="print where the recording ends as plain text, instead of opening the app",
    )
    handout_command.add_parser(sub)
    serve_command.add_parser(sub, run_options)
    new_command.add_parser(sub)
    train_command.add_parser(sub)
    new_command.add_presets_parser(sub)
    analysis_commands.add_parsers(sub, run_options)
    prediction_commands.add_parsers(sub, run_options)
    quiz_command.add_parser(sub, run_options)
    practice_command.add_parser(sub, run_options)
    generate_command.add_parser(sub, run_options)
    return parser


def _steps_help(steps: tuple[int, ...]) -> str:
    return f"step {steps[0]}" if len(steps) == 1 else f"steps {steps[0]}–{steps[-1]}"
