"""SVG snapshots of the gallery (v). Regenerate with `pytest tests/snapshots/test_gallery_snapshots.py
--snapshot-update`, then look at each."""

import pytest

from tests.apps import make_app


@pytest.fixture(autouse=True)
def no_user_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))


async def edit_w_o_in_the_morning(pilot) -> None:
    for key in ("v", "n", "n"):
        await pilot.press(key)
        await pilot.pause()
    pilot.app.session.edit("W_O", (2, 0), "2")
    pilot.app.refresh_views()
    await pilot.pause()


def test_gallery_morning(snap_compare):
    assert snap_compare(make_app(), press=["v", "n", "n"], terminal_size=(120, 40))


def test_gallery_evening(snap_compare):
    assert snap_compare(make_app(), press=["v", "n", "n", "n"], terminal_size=(120, 40))


def test_gallery_prediction(snap_compare):
    assert snap_compare(make_app(), press=["v", "n", "n", "n", "n", "n"], terminal_size=(120, 40))


def test_gallery_after_an_edit(snap_compare):
    assert snap_compare(make_app(), run_before=edit_w_o_in_the_morning, terminal_size=(120, 40))


def test_gallery_circuits(snap_compare):
    assert snap_compare(make_app(), press=["v", "3"], terminal_size=(120, 40))


def test_gallery_attribution(snap_compare):
    assert snap_compare(make_app(), press=["v", "4"], terminal_size=(120, 40))


def test_gallery_morning_at_80x24(snap_compare):
    assert snap_compare(make_app(), press=["v", "n", "n"], terminal_size=(80, 24))
