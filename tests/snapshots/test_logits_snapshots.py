"""The logit pane of a 4-head model (the woodland preset: d_model 16, 2 blocks, a 58-token vocabulary) at step
14, on a 16-token prompt: the top ten tokens by probability, the target marked, one line for the others.
Regenerate with `pytest tests/snapshots --snapshot-update`, then look at each as a PNG."""

import pytest

from tests.apps import make_app


@pytest.fixture(autouse=True)
def no_user_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))


SIXTEEN = "the beaver builds a dam in the river and the fox runs in the forest at"  # 16 tokens


def woodland():
    return make_app("--model", "woodland", "--prompt", SIXTEEN, "--target", "night")


def test_woodland_logit_pane(snap_compare):
    assert snap_compare(woodland(), press=["G", "p", "p"], terminal_size=(120, 40))


def test_woodland_logit_pane_at_80x24(snap_compare):
    assert snap_compare(woodland(), press=["G", "p", "p"], terminal_size=(80, 24))
