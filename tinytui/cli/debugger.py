"""The commands that open the debugger: `tinytui` itself and `tinytui replay` (or its --print), the
theme, notices and keymap they start with, and run_app, which runs the app and reports a crash."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, TextIO

from tinytui.cli import garbage_collector
from tinytui.cli.run_setup import UsageError, record_option, setup_from
from tinytui.session.session import Session

if TYPE_CHECKING:  # argparse: `tinytui` alone is read without it (tinytui.cli.main)
    import argparse


def no_color(environ=os.environ) -> bool:
    """NO_COLOR set to anything but the empty string (https://no-color.org)."""
    return bool(environ.get("NO_COLOR"))


def theme_choice(args: argparse.Namespace, environ=os.environ) -> tuple[str, list[str]]:
    """The debugger's starting theme and notices for the user: NO_COLOR > --theme > remembered > default.

    A --theme choice is also remembered for next time.
    """
    theme, notices, _ = app_options(args, environ)
    return theme, notices


def app_options(
    args: argparse.Namespace, environ=os.environ, remember_choice: bool = True
) -> tuple[str, list[str], dict[str, str]]:
    """The debugger's theme (see theme_choice), the notices for the user, and the user's keymap
    (the entries that can be used; a notice for each one that cannot). remember_choice=False: a run
    that will be refused leaves settings.json as it was."""
    from tinytui import themes
    from tinytui.settings import load_settings, remember
    from tinytui.tui.actions import check_keymap

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
    if remember_choice and requested is not None and requested != settings.theme:
        failed = remember(theme=requested)
        notices += [failed] if failed else []
    keymap, keymap_notices = check_keymap(settings.keymap)
    return name, notices + keymap_notices, keymap


def has_terminal(environ=os.environ) -> bool:
    """Standard input, output and error all a terminal, or a driver named in TEXTUAL_DRIVER (serve's
    web driver, a headless one). Without one Textual reads an endless end of file (< /dev/null) or
    draws into a pipe (| head), at 100 % of a core, forever."""
    if environ.get("TEXTUAL_DRIVER"):
        return True
    streams = (sys.__stdin__, sys.__stdout__, sys.__stderr__)
    return all(s is not None and s.isatty() for s in streams)


def require_terminal() -> None:
    if not has_terminal():
        raise UsageError(
            "the debugger needs a terminal (standard input, output and error); without one, "
            "tinytui print writes the steps as text"
        )


def cmd_app(args: argparse.Namespace) -> int:
    setup = setup_from(args)
    require_terminal()  # before app_options, which remembers a --theme (checked when it was parsed)
    theme, notices, keymap = app_options(args)
    from tinytui.tui.app import TinyTuiApp

    # the session setup_from ran the model in: the model runs once
    session = setup.session if setup.session is not None else Session(setup.model, setup.state)
    large = getattr(args, "large", False)
    return run_app(
        TinyTuiApp(session, theme=theme, notices=notices, record=setup.record, keymap=keymap, large=large)
    )


def run_app(app) -> int:
    """Run the debugger; after a crash (Textual exits with return code 1 and prints the traceback)
    stop the recording and save the edited model (TinyTuiApp.rescue), say where both are on stderr,
    and return 1."""
    garbage_collector.settle()  # freezes what exists now; collects the young less often
    try:
        app.run()
    except Exception as exc:  # one that escaped Textual's own handler (while closing the screens, say)
        import traceback

        traceback.print_exception(exc)
        app.rescue(exc)
    if app.return_code == 1:
        app.rescue()
    if app.crash_report is not None:
        for line in app.crash_report.lines():
            print(line, file=sys.stderr)
        return 1
    return app.return_code or 0


def cmd_replay(args: argparse.Namespace, out: TextIO) -> int:
    """The whole file is checked before anything is applied; a bad one is one line and exit 2."""
    from tinytui.recording.replay import Replayer, ReplayError, load_recording, state_text

    record = record_option(getattr(args, "record", None))  # refused before anything is read
    try:
        replayer = Replayer(load_recording(args.file), to_end=args.to_end)
    except ReplayError as exc:
        raise UsageError(str(exc)) from None
    if replayer.recording.notice:  # the .jsonl was damaged or short: the transcript's copy replays
        print(f"tinytui: warning: {replayer.recording.notice}", file=sys.stderr)
    if args.print:  # where the recording ends: every event applied, with or without --to-end
        session = replayer.new_session()
        replayer.apply_all(session)
        out.write(state_text(session, replayer))
        return 0
    require_terminal()
    theme, notices, keymap = app_options(args)
    from tinytui.tui.app import TinyTuiApp

    # the app opens where the recording started (its undo history included)
    session = replayer.new_session()
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
