"""`tinytui handout lesson.txt -o lesson.md`: the Markdown handout of a recording (see
tinytui.recording.handout), written to a new file: an existing file, folder or link at -o is never
overwritten, and the file appears whole or not at all."""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
from pathlib import Path
from typing import TextIO

from tinytui.cli.new_command import CommandError
from tinytui.model import checks

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def add_parser(sub) -> None:
    p = sub.add_parser(
        "handout",
        help="write a recording as a Markdown handout (steps with their tables, each change before → after)",
        description="Replay a recording (a transcript written by --record, or its .jsonl) and write what it "
        "showed as Markdown: each step visited with its tables and its equation in LaTeX, each change "
        "with before → after. An existing file is never overwritten.",
    )
    p.add_argument("file", metavar="FILE", help="a transcript written by --record (or its .jsonl)")
    p.add_argument("-o", "--output", metavar="FILE.md", help="the Markdown file to write (must not exist)")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from tinytui.recording.handout import handout
    from tinytui.recording.replay import ReplayError, load_recording

    path = _output(args)
    try:
        recording = load_recording(args.file)
    except ReplayError as exc:
        raise CommandError(str(exc)) from None
    text = handout(recording, Path(args.file).name)
    try:
        _write_new(path, text)
    except FileExistsError:
        raise CommandError(f"-o: {path} exists; tinytui never overwrites it (choose another name)") from None
    except OSError as exc:
        raise CommandError(f"-o: cannot write {path} ({exc.strerror or exc})") from None
    n = len(recording.events)
    print(f"wrote {path}: the handout of {args.file} ({n} event{'' if n == 1 else 's'})", file=out)
    return 0


def _output(args: argparse.Namespace) -> Path:
    """Where to write, refused before anything is read if anything is there or its folder is missing."""
    text = getattr(args, "output", None)
    if not text:
        raise CommandError("-o: name the Markdown file to write, e.g. -o lesson.md")
    path = Path(text)
    try:
        if os.path.islink(path):
            raise CommandError(f"-o: {path} is a symbolic link; tinytui does not write through links")
        if os.path.lexists(path):
            raise CommandError(f"-o: {path} exists; tinytui never overwrites it (choose another name)")
        if not path.parent.resolve().is_dir():
            raise CommandError(f"-o: there is no folder {path.parent}")
    except (OSError, ValueError) as exc:  # a name too long, a NUL byte
        why = getattr(exc, "strerror", None) or exc
        raise CommandError(f"-o: cannot use {checks.shown(text)} ({why})") from None
    return path


def _write_new(path: Path, text: str) -> None:
    """path gets all of text or nothing, and only if nothing is there: the text is written and synced to
    a new hidden file beside it, then linked to path (a link fails if path exists, even as a dangling
    symbolic link), and the hidden name removed."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW
    while True:
        tmp = path.with_name(f".{path.name[:40]}.{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(tmp, flags, 0o644)
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.link(tmp, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
