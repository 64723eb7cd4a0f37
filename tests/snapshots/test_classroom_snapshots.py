"""Snapshots for the classroom issue. Regenerate with --snapshot-update, then look at each as a PNG."""

import pytest

from tests.apps import make_app


@pytest.fixture(autouse=True)
def no_user_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))


def test_theme_switch_at_step_8(snap_compare):
    # 8 then t: the step's title, formula and facts in tinytui-light's colours, as a fresh light app has them.
    # The theme's notice is cleared first: it lasts 3 s, so on a loaded machine it was there or gone.
    async def switch(pilot):
        await pilot.press("8", "t")
        pilot.app.clear_notifications()
        await pilot.pause()

    assert snap_compare(make_app(), run_before=switch, terminal_size=(120, 40))
