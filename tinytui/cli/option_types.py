"""The kinds of value the command line takes (argparse `type=`): each refuses a bad value before
anything is read, run or written, with a reason the parser prints after the option's name, in one line
(tinytui.cli.options.OneLineParser), exit status 2.

Its own module, not tinytui.cli.options: the subcommands' modules use these while options imports them.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from tinytui.model import checks

MAX_SEED = 2**63 - 1  # numpy's generators take any whole number from 0; this is far past any need


def file_name(text: str) -> str:
    """A file to read or write: a name, not empty, not a folder (/, ., .., a path ending in / or one
    that is a folder now). Whether it exists is the command's question."""
    if not text.strip():
        raise argparse.ArgumentTypeError("empty; give a file name")
    if "\x00" in text:
        raise argparse.ArgumentTypeError(f"{checks.shown(text)} holds a NUL byte; give a file name")
    name = Path(text).name
    folder = text.endswith(("/", os.sep)) or name in ("", ".", "..") or os.path.isdir(text)
    if folder:
        raise argparse.ArgumentTypeError(f"{checks.shown(text)} is a folder; give a file name (in it)")
    return text


def seed(text: str) -> int:
    """A random seed: a whole number from 0 to 2**63 - 1."""
    try:
        value = int(text.strip())
    except ValueError:
        value = None
    if value is None or not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"{checks.shown(text)} is not a seed (a whole number from 0)")
    return value


def not_empty(what: str):
    """A type for text that may be anything but empty (or only spaces): it would silently mean the
    default, or a piece nobody asked for."""

    def check(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"empty; give {what}")
        return text

    check.__name__ = "not_empty"
    return check


def theme_name(text: str) -> str:
    """A theme as typed (full, short or a Textual built-in) → its registered name; the message lists
    tinytui's themes."""
    from tinytui import themes

    try:
        return themes.resolve(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
