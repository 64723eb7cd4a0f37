"""The command line runs the model once: the run setup_from checks is the trace every command reads and the
session the debugger opens on (at GPT-2 small a run is a third of a second)."""

import numpy as np

from tinytui.cli import debugger
from tinytui.cli.options import build_parser
from tinytui.cli.run_setup import setup_from
from tinytui.model.trace import run


def test_the_checked_run_is_the_trace_commands_read():
    setup = setup_from(build_parser().parse_args(["--prompt", "a wood", "--no-mask"]))
    trace = setup.trace()
    assert trace is setup.trace() is setup.session.trace  # read again, nothing runs again
    s = setup.state
    again = run(s.params, s.prompt, s.target, s.switches, s.lr)  # and it is what a run gives, bit for bit
    assert set(trace.tensors) == set(again.tensors)
    assert all(np.array_equal(trace[n], again[n]) for n in again.tensors)


def test_the_debugger_opens_on_the_checked_session(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.setenv("TEXTUAL_DRIVER", "headless")  # a driver is named: no terminal needed
    made, opened = [], []
    monkeypatch.setattr(debugger, "setup_from", lambda args: made.append(setup_from(args)) or made[-1])
    monkeypatch.setattr(debugger, "run_app", lambda app: opened.append(app) or 0)
    assert debugger.cmd_app(build_parser().parse_args(["--prompt", "a wood"])) == 0
    assert opened[0].session is made[0].session
    assert opened[0].session.trace is made[0].trace()
