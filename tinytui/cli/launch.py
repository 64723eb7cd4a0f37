"""The `tinytui` command's entry point: Python's cycle collector is paused while the program loads.

Loading Textual, Rich, numpy and the app makes a few hundred thousand objects that live as long as the
program, and the collector walked them again and again as they came (a sixth of the time to the first
frame). The app's process then freezes them and turns the collector back on (collector.settle, just
before the app runs); every other command turns it back on as soon as its arguments are read.
"""

from __future__ import annotations

from tinytui.cli import collector


def main(argv: list[str] | None = None) -> int:
    collector.pause()
    from tinytui.cli.main import main as run

    return run(argv)
