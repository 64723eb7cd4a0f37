"""Snapshots of learning in the app. Regenerate with `pytest tests/snapshots --snapshot-update`, then look."""

import pytest

from tests.apps import make_app
from tinytui.tui.app import TinyTuiApp


@pytest.fixture(autouse=True)
def no_user_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))


def app() -> TinyTuiApp:
    return make_app()


def pressing(*keys: str):
    """Press keys, then clear the toasts they raised: the snapshot shows the panes, not a notice."""

    async def run_before(pilot) -> None:
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        pilot.app.clear_notifications()
        await pilot.pause()

    return run_before


def test_backward_walk_at_step_12(snap_compare):
    assert snap_compare(app(), run_before=pressing("G", "b", "n", "n", "n"), terminal_size=(120, 40))


def test_after_a_learning_step_at_step_15(snap_compare):
    assert snap_compare(app(), run_before=pressing("G", "p", "L"), terminal_size=(120, 40))
