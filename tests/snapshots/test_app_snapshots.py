"""SVG snapshots of the app. Regenerate with `pytest tests/snapshots --snapshot-update`, then look at each."""

import pytest

from tests.apps import make_app
from tests.tui.helpers import grid
from tinytui.tui.app import TinyTuiApp

W_O = "param:blocks.0.W_O"


@pytest.fixture(autouse=True)
def no_user_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))


def app() -> TinyTuiApp:
    return make_app()


async def focus_w_o(pilot) -> None:
    await pilot.press("9")
    await pilot.pause()
    grid(pilot.app, W_O).focus()
    await pilot.pause()


def test_step_1(snap_compare):
    assert snap_compare(app(), terminal_size=(120, 40))


def test_step_8_attention(snap_compare):
    assert snap_compare(app(), press=["8"], terminal_size=(120, 40))


def test_step_14_logits(snap_compare):
    assert snap_compare(app(), press=["G", "p", "p"], terminal_size=(120, 40))


def test_step_16_counts(snap_compare):
    assert snap_compare(app(), press=["G"], terminal_size=(120, 40))


def test_step_8_at_80x24(snap_compare):
    assert snap_compare(app(), press=["8"], terminal_size=(80, 24))


def test_mid_edit_of_w_o(snap_compare):
    assert snap_compare(app(), press=["enter", "0", ".", "5"], run_before=focus_w_o, terminal_size=(120, 40))


def test_after_an_edit_with_highlights(snap_compare):
    assert snap_compare(
        app(), press=["enter", "0", ".", "5", "enter", "n"], run_before=focus_w_o, terminal_size=(120, 40)
    )


def test_refused_value_at_the_cell(snap_compare):
    assert snap_compare(
        app(), press=["enter", "a", "b", "c", "enter"], run_before=focus_w_o, terminal_size=(120, 40)
    )
