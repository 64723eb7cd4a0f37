"""The logit pane of a 16-dimension, 4-head model with a 58-token vocabulary (the woodland preset) at step 14:
the top ten tokens by probability, the target marked, one line for the other 48. Regenerate with
`pytest tests/snapshots --snapshot-update`, then look at each as a PNG."""

import pytest

from tests.apps import make_app


@pytest.fixture(autouse=True)
def no_user_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))


def test_woodland_logit_pane(snap_compare):
    assert snap_compare(make_app("--model", "woodland"), press=["G", "p", "p"], terminal_size=(120, 40))


def test_woodland_logit_pane_at_80x24(snap_compare):
    assert snap_compare(make_app("--model", "woodland"), press=["G", "p", "p"], terminal_size=(80, 24))
