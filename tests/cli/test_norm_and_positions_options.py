"""--norm and --positions: the command line's way to the l and O switches (print, why, the debugger and
what serve starts in each browser tab); a model that cannot run them is refused in one line."""

import shlex

import pytest

from tinytui.cli.options import build_parser
from tinytui.cli.run_setup import UsageError, setup_from
from tinytui.cli.serve_command import app_command


def setup(*argv: str):
    return setup_from(build_parser().parse_args(list(argv)))


def test_the_options_set_the_switches_and_the_run():
    made = setup("--norm", "rms", "--positions", "rope")
    sw = made.state.switches
    assert (sw.norm_kind, sw.positions) == ("rms", "rope")
    assert (made.first_trace.cfg.norm, made.first_trace.cfg.positions) == ("rms", "rope")
    assert made.first_trace.prediction == "chuck" and round(made.first_trace.loss, 4) == 1.5877
    # the model's own is no switch at all: the same switches as without the option
    own = setup("--model", "chapter17-llama", "--positions", "rope")
    assert own.state.switches.positions is None and own.state.switches.norm_kind is None


def test_a_norm_the_model_cannot_run_is_one_line():
    with pytest.raises(
        UsageError, match=r"^--norm: the norm \(LayerNorm or RMSNorm\): this model's norms have gains"
    ):
        setup("--model", "chapter17-llama", "--norm", "layer")


def test_serve_hands_the_options_to_each_tab():
    args = build_parser().parse_args(["serve", "--norm", "rms", "--positions", "rope"])
    command = shlex.split(app_command(args))
    assert command[command.index("--norm") + 1] == "rms"
    assert command[command.index("--positions") + 1] == "rope"
