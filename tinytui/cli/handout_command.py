"""`tinytui handout lesson.txt -o lesson.md`: the Markdown handout of a recording (see
tinytui.recording.handout), written to a new file: an existing file, folder or link at -o is never
overwritten, and the file appears whole or not at all."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from tinytui.cli.new_command import CommandError, output_path
from tinytui.model.io.safe_io import write_new_text


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

    path = output_path(args, "Markdown file", "lesson.md")
    try:
        recording = load_recording(args.file)
    except ReplayError as exc:
        raise CommandError(str(exc)) from None
    if recording.notice:  # the .jsonl was damaged or short: the transcript's copy is used
        print(f"tinytui: warning: {recording.notice}", file=err)
    text = handout(recording, Path(args.file).name)
    try:
        write_new_text(path, text)
    except FileExistsError:
        raise CommandError(f"-o: {path} exists; tinytui never overwrites it (choose another name)") from None
    except OSError as exc:
        raise CommandError(f"-o: cannot write {path} ({exc.strerror or exc})") from None
    n = len(recording.events)
    print(f"wrote {path}: the handout of {args.file} ({n} event{'' if n == 1 else 's'})", file=out)
    return 0
