"""The watch pane at 120×40 on step 6, right after an edit of W_Q (head 2): the bars with their ghosts
and ▲▼, head 2's attention marked. Regenerate with `pytest tests/snapshots --snapshot-update`, then look."""

import pytest

from tests.apps import make_app


@pytest.fixture(autouse=True)
def no_user_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))


async def edited_at_step_6(pilot) -> None:
    await pilot.press("6")
    await pilot.press("W")
    await pilot.pause()
    pilot.app.apply(lambda s: s.edit("W_Q", (1, 0, 0), "2"), "edit W_Q")
    await pilot.pause()
    pilot.app.clear_notifications()
    await pilot.pause()


def test_watch_pane_after_an_edit_at_step_6(snap_compare):
    assert snap_compare(make_app(), run_before=edited_at_step_6, terminal_size=(120, 40))
