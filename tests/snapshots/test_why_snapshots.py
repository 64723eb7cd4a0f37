"""Why this number: the score cell with its operands lit, and after f followed one to step 6.
Regenerate with `pytest tests/snapshots --snapshot-update`, then look at each."""

import pytest

from tests.apps import make_app
from tests.tui.helpers import grid


@pytest.fixture(autouse=True)
def no_user_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))


async def on_score(pilot) -> None:
    await pilot.press("7")
    await pilot.pause()
    g = grid(pilot.app, "output:blocks.0.scores.{h}")
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


async def mask_off_on_first_row(pilot) -> None:
    """Step 8 with the mask off, the cursor on attn.1[0,3]: the unmasked softmax and its scores lit."""
    await pilot.press("m")
    await pilot.press("8")
    await pilot.pause()
    pilot.app.clear_notifications()
    g = grid(pilot.app, "output:blocks.0.attn.{h}")
    g.focus()
    await pilot.pause()
    g.move_to(0, 3)
    await pilot.pause()


async def glossary(pilot) -> None:
    await pilot.press("question_mark")
    await pilot.pause()
    await pilot.press("end")
    await pilot.pause()


def test_step_8_with_the_mask_off(snap_compare):
    assert snap_compare(make_app(), run_before=mask_off_on_first_row, terminal_size=(120, 40))


def test_the_glossary_in_the_help(snap_compare):
    assert snap_compare(make_app(), run_before=glossary, terminal_size=(120, 40))
