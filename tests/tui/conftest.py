import pytest

from tinytui.app import TinyTuiApp
from tinytui.cli import build_parser, setup_from


def make_app(*argv: str) -> TinyTuiApp:
    return TinyTuiApp(setup_from(build_parser().parse_args(list(argv))))


@pytest.fixture
def app() -> TinyTuiApp:
    return make_app()
