"""Views at size: the row labels pinned after scrolling sideways at 80×24, a 16-token heatmap shaded
without numbers, and the cursor on a label with the glossary's line in the inspector.
Regenerate with `pytest tests/snapshots --snapshot-update`, then look at each as a PNG."""

import pytest

from tests.apps import make_app, random_app
from tests.tui.helpers import grid


@pytest.fixture(autouse=True)
def no_user_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))


def cursor_at(step: str, key: str, row: int, col: int):
    """run_before: go to a step, focus a table and put the cursor at (row, col) (col -1: a row label)."""

    async def run(pilot) -> None:
        await pilot.press(step)
        await pilot.pause()
        pilot.app.clear_notifications()
        g = grid(pilot.app, key)
        g.focus()
        await pilot.pause()
        g.move_to(row, col)
        for _ in range(3):  # the inspector's lines re-lay the screen, then the pane scrolls again
            await pilot.pause()

    return run


def test_row_labels_pinned_after_scrolling_sideways_at_80x24(snap_compare):
    # W_O[1, 23], the far right of a 24-column weight: the row labels stay at the view's left edge
    run = cursor_at("9", "param:blocks.0.W_O", 1, 23)
    assert snap_compare(random_app(tokens=4, d=24), run_before=run, terminal_size=(80, 24))


def test_a_16_token_heatmap_shaded_without_numbers(snap_compare):
    # 16 positions × 2 heads do not fit 120 columns with numbers: shaded blocks, the value in the inspector
    run = cursor_at("8", "output:blocks.0.attn.{h}", 9, 18)
    assert snap_compare(random_app(tokens=16), run_before=run, terminal_size=(120, 40))


def test_the_cursor_on_a_label_with_its_glossary_line(snap_compare):
    # left of W_O's first column: the row label h1.k0, explained in the inspector
    run = cursor_at("9", "param:blocks.0.W_O", 0, -1)
    assert snap_compare(make_app(), run_before=run, terminal_size=(120, 40))
