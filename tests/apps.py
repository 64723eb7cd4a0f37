"""Apps for tests: the debugger as `tinytui ARGS…` would open it."""

from tinytui.cli.options import build_parser
from tinytui.cli.run_setup import setup_from
from tinytui.session.session import Session
from tinytui.tui.app import TinyTuiApp


def make_app(*argv: str, **options) -> TinyTuiApp:
    setup = setup_from(build_parser().parse_args(list(argv)))
    options.setdefault("record", setup.record)
    return TinyTuiApp(Session(setup.model, setup.state), **options)
