"""`tinytui` alone is read without argparse (tinytui.cli.main.BARE_COMMAND): it must be what the parser
makes of no arguments, or the debugger would start from other options than `tinytui --model …` does."""

import subprocess
import sys

from tinytui.cli.main import BARE_COMMAND, parsed
from tinytui.cli.options import build_parser


def test_bare_command_is_what_the_parser_makes_of_no_arguments():
    assert vars(build_parser().parse_args([])) == BARE_COMMAND
    assert vars(parsed([])) == BARE_COMMAND


def test_any_argument_goes_to_the_parser():
    assert parsed(["--large"]).large is True
    assert vars(parsed(["--large"])) == {**BARE_COMMAND, "large": True}


def test_tinytui_alone_loads_no_argparse():
    code = "import sys; from tinytui.cli.main import parsed; parsed([]); print('argparse' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
