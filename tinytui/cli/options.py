"""The `tinytui` command line's grammar: the run's options every command shares and the parser of
`tinytui` and each of its subcommands (their help text is the command's help).

A subcommand's own options are added the first time its parser is used (CommandParser.complete): the
command named on the line, or every one for `tinytui --help`. So `tinytui` and `tinytui print` neither
import the other commands' modules nor build their options."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable

from tinytui.cli import refusal
from tinytui.cli.option_types import file_name, not_empty, theme_name
from tinytui.lesson.stages import GROUPS
from tinytui.model.switches import NORM_KINDS, TURNED
from tinytui.model.trace import DEFAULT_LR


class OneLineParser(argparse.ArgumentParser):
    """A bad command line is one line, like every other refusal: `tinytui: error: --seed: …`, exit 2
    (argparse would print the usage first; `tinytui COMMAND --help` shows it)."""

    def error(self, message: str):
        self.exit(2, refusal.line(message.removeprefix("argument ")) + "\n")


class LazyCommand:
    """What the subcommands hold for a command until it is used: its parser is made, its options added
    (its module imported), when the command line names it (argparse then asks it to parse the rest)."""

    def __init__(self, *, prog: str, make: Callable[[LazyCommand], OneLineParser]) -> None:
        self.prog = prog  # `tinytui NAME`, as argparse names a subcommand's parser
        self.make = make
        self.parser: OneLineParser | None = None

    def made(self) -> OneLineParser:
        if self.parser is None:
            self.parser = self.make(self)
        return self.parser

    def parse_known_args(self, args=None, namespace=None):  # argparse's: the subcommand's arguments
        return self.made().parse_known_args(args, namespace)


class TopParser(OneLineParser):
    """`tinytui`'s parser; its help lists every subcommand with its help, so it is made whole for it."""

    def format_help(self) -> str:
        return build_parser(whole=True).format_help()


class Completing:
    """What a command module's add_parser is given in place of the subparsers when one of its commands
    is used: add_parser(name, ...) makes that command's parser (the run's options added for
    parents=[the run's options]) and gives it to the command's LazyCommand."""

    def __init__(self, commands: dict[str, LazyCommand], run_options: argparse.ArgumentParser) -> None:
        self.commands = commands
        self.run_options = run_options

    def add_parser(self, name: str, *, parents=(), help: str = "", **kwargs) -> OneLineParser:
        command = self.commands[name]
        p = OneLineParser(prog=command.prog, **kwargs)  # description, epilog
        if parents:
            assert list(parents) == [self.run_options], parents
            add_run_options(p, for_subcommand=True)
        command.parser = p  # a module that adds two commands (lens and patch) makes both
        return p


# The subcommands a module adds (its add_parser function, and whether it takes the run's options), in
# the order `tinytui --help` lists them; print, why and replay are this module's own.
MODULE_COMMANDS: tuple[tuple[tuple[str, ...], str, str, bool], ...] = (
    (("trace",), "trace_command", "add_parser", True),
    (("handout",), "handout_command", "add_parser", False),
    (("serve",), "serve_command", "add_parser", True),
    (("new",), "new_command", "add_parser", False),
    (("train",), "train_command", "add_parser", False),
    (("presets",), "new_command", "add_presets_parser", False),
    (("circuits", "attribution"), "analysis_commands", "add_parsers", True),
    (("lens", "patch"), "prediction_commands", "add_parsers", True),
    (("quiz",), "quiz_command", "add_parser", True),
    (("practice",), "practice_command", "add_parser", True),
    (("generate",), "generate_command", "add_parser", True),
)


def _module_parsers(sub, run_options: argparse.ArgumentParser, module: str, function: str, runs: bool):
    """Call the command module's add_parser function with the subparsers themselves (whole)."""
    add = getattr(importlib.import_module(f"tinytui.cli.{module}"), function)
    return add(sub, run_options) if runs else add(sub)


def _run_options(for_subcommand: bool = False) -> argparse.ArgumentParser:
    """The run's options, as a parser to give as parents=[…]."""
    p = OneLineParser(add_help=False)
    add_run_options(p, for_subcommand)
    return p


def add_run_options(p: argparse.ArgumentParser, for_subcommand: bool = False) -> None:
    """The run's options, added to p. A subcommand's copy leaves an option it was not given unset
    (SUPPRESS), so `tinytui --model F print` keeps the --model given before the subcommand instead of
    the default."""
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


def build_parser(whole: bool = False) -> argparse.ArgumentParser:
    """The parser of `tinytui`; whole: every subcommand's options added now (for `tinytui --help`),
    else each command's when it is used."""
    common = _run_options()
    run_options = _run_options(for_subcommand=True)
    parser = (OneLineParser if whole else TopParser)(
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
    if whole:
        sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    else:
        sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=LazyCommand)
    commands: dict[str, LazyCommand] = {}

    def command(name: str, add: Callable[[argparse.ArgumentParser], None]) -> None:
        """The command's parser, whole (its options added now) or made by its LazyCommand when used."""
        if whole:
            add(sub.add_parser(name, **_OWN[name]))
            return

        def make(lazy: LazyCommand) -> OneLineParser:
            p = OneLineParser(prog=lazy.prog)
            add(p)
            return p

        commands[name] = sub.add_parser(name, make=make)

    def module_commands(names: tuple[str, ...], module: str, function: str, runs: bool) -> None:
        if whole:
            _module_parsers(sub, run_options, module, function, runs)
            return
        into = Completing(commands, run_options)

        def make(lazy: LazyCommand) -> OneLineParser:
            _module_parsers(into, run_options, module, function, runs)  # sets lazy.parser
            assert lazy.parser is not None
            return lazy.parser

        for name in names:
            commands[name] = sub.add_parser(name, make=make)

    # in `tinytui --help`'s order: print, trace, why, replay, then the rest
    command("print", _print_options)
    module_commands(*MODULE_COMMANDS[0])
    command("why", _why_options)
    command("replay", _replay_options)
    for entry in MODULE_COMMANDS[1:]:
        module_commands(*entry)
    return parser


# print, why and replay: the help `tinytui --help` lists for each
_OWN = {
    "print": {"help": "print the sixteen steps as tables"},
    "why": {"help": "explain one number: its formula, the numbers it is made of"},
    "replay": {"help": "open a recorded session and re-apply its events (n: next event)"},
}


def _print_options(pr: argparse.ArgumentParser) -> None:
    add_run_options(pr, for_subcommand=True)
    pr.add_argument("--step", type=int, metavar="N", help="print only step N (1–16)")
    for group, steps in GROUPS.items():
        pr.add_argument(f"--{group}", action="store_true", help=_steps_help(steps))
    pr.add_argument("--markdown", action="store_true", help="write a Markdown handout instead")
    pr.add_argument("--plain", action="store_true", help="plain text even in a terminal")


def _why_options(wy: argparse.ArgumentParser) -> None:
    add_run_options(wy, for_subcommand=True)
    wy.add_argument(
        "cell",
        metavar="NAME[i,j]",
        help="a tensor, weight or gradient cell, as the screen names it or canonically, e.g. 'A_2[1,0]', "
        "'W_O[h2.k0, thing]' or 'attn.2[1,0]'",
    )
    wy.add_argument("--json", action="store_true", help="the explanation as JSON")


def _replay_options(rp: argparse.ArgumentParser) -> None:
    rp.add_argument(
        "file", metavar="FILE", type=file_name, help="a transcript written by --record (or its .jsonl)"
    )
    rp.add_argument("--to-end", action="store_true", help="apply every recorded event at once")
    rp.add_argument(
        "--print",
        action="store_true",
        help="print where the recording ends as plain text, instead of opening the app",
    )


def _steps_help(steps: tuple[int, ...]) -> str:
    return f"step {steps[0]}" if len(steps) == 1 else f"steps {steps[0]}–{steps[-1]}"
