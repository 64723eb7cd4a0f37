"""Apps for tests: the debugger as `tinytui ARGS…` would open it."""

from tinytui.app import TinyTuiApp
from tinytui.cli import build_parser, setup_from
from tinytui.session import Session


def make_app(*argv: str, **options) -> TinyTuiApp:
    setup = setup_from(build_parser().parse_args(list(argv)))
    options.setdefault("record", setup.record)
    return TinyTuiApp(Session(setup.model, setup.state), **options)
