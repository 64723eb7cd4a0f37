import pytest

from tests.apps import make_app
from tinytui.tui.app import TinyTuiApp


@pytest.fixture(autouse=True)
def no_user_settings(tmp_path, monkeypatch):
    # The app remembers a changed theme in the user's settings; tests must neither read nor write them.
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


@pytest.fixture
def app() -> TinyTuiApp:
    return make_app()
