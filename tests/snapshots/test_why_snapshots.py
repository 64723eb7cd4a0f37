"""Why this number: the score cell with its operands lit, and after f followed one to step 6.
Regenerate with `pytest tests/snapshots --snapshot-update`, then look at each."""

import pytest

from tests.apps import make_app
from tinytui.widgets.panes import StepPanes


@pytest.fixture(autouse=True)
def no_user_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))


async def on_score(pilot) -> None:
    await pilot.press("7")
    await pilot.pause()
    g = pilot.app.query_one(StepPanes).grid("output:blocks.0.scores.{h}")
    g.focus()
    await pilot.pause()
    g.move_to(1, 4)  # scores.2[1,0]
    await pilot.pause()


async def followed(pilot) -> None:
    await on_score(pilot)
    await pilot.press("f")
    for _ in range(6):
        await pilot.pause()


def test_score_with_its_operands_lit(snap_compare):
    assert snap_compare(make_app(), run_before=on_score, terminal_size=(120, 40))


def test_after_following_to_q(snap_compare):
    assert snap_compare(make_app(), run_before=followed, terminal_size=(120, 40))
