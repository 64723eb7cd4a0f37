"""The attention step (step 8: mask and softmax, the heatmaps) in each of tinytui's five themes."""

from __future__ import annotations

import pytest

from tests.apps import make_app
from tinytui import themes


@pytest.fixture(autouse=True)
def no_user_settings(tmp_path, monkeypatch):
    # Snapshots must not depend on, or write to, the user's remembered settings.
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))


@pytest.mark.parametrize("name", list(themes.THEMES))
def test_attention_step_in_each_theme(snap_compare, name):
    app = make_app(theme=name)
    assert snap_compare(app, press=["8"], terminal_size=(120, 40))
    assert app.theme == name and app.session.step == 8
