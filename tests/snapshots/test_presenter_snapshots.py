"""The presenter view (tinytui --large) at 120×40: step 8's attention weights alone, with more room, the
step list hidden. Regenerate with `pytest tests/snapshots --snapshot-update`, then look at it as a PNG."""

import pytest

from tests.apps import make_app


@pytest.fixture(autouse=True)
def no_user_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))


def test_presenter_view_at_step_8(snap_compare):
    assert snap_compare(make_app(large=True), press=["8"], terminal_size=(120, 40))  # A, its first table
