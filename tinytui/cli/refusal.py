"""How the command line says no: one line on standard error, `tinytui: error: REASON`.

Every refusal of every command is written by say() (argparse's is made by line(), for its own exit):
the reason goes through checks.one_line, the cut the app's notices make too, so a value typed on the
line (a 5,000-character path or prompt, a line break or an escape in a name) comes back as one line a
terminal shows whole. The exit status is the caller's: 2 for input refused, 1 for what failed on the
way (the output, the memory).
"""

from __future__ import annotations

import sys
from typing import TextIO

from tinytui.model import checks

OUT_OF_MEMORY = "out of memory (this machine, or its limit, holds too little for it)"


def line(reason: str) -> str:
    """The refusal as the command writes it (without the line's end)."""
    return f"tinytui: error: {checks.one_line(reason)}"


def say(reason: str, err: TextIO | None = None) -> None:
    """Write the refusal to err (standard error by default)."""
    print(line(reason), file=sys.stderr if err is None else err)
