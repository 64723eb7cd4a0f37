"""The command palette's query is hostile input too: it is matched in one pass over each title (Textual's
matcher tries every placement of the letters), the palette's entries are made once a palette, not once
a key, and a query longer than MAX_QUERY matches nothing without being looked at. Before, a typed
character cost 80–92 ms and grew with the query (800 characters: 70 s)."""

from __future__ import annotations

from textual.command import CommandPalette

from tests.apps import make_app
from tests.tui.helpers import press
from tinytui.tui.palette import MAX_QUERY, TinyTuiCommands, match


def test_a_run_in_the_title_is_found_as_a_run():
    score, positions = match("param", "Edit parameter W_Q")
    assert list(positions) == [5, 6, 7, 8, 9]
    whole, _ = match("edit parameter w_q", "Edit parameter W_Q")
    assert whole > score > 0


def test_the_letters_in_order_are_found_one_pass():
    score, positions = match("epwq", "Edit parameter W_Q")
    assert list(positions) == [0, 5, 15, 17] and score > 0
    assert match("qwpe", "Edit parameter W_Q") is None  # out of order
    assert match("x", "Edit parameter W_Q") is None
    assert match("", "Edit parameter W_Q") is None


def test_a_query_longer_than_the_title_matches_nothing():
    assert match("e" * 19, "Edit parameter W_Q") is None
    assert match("edit parameter w_q!", "Edit parameter W_Q") is None


def test_a_letter_whose_lower_case_is_longer_keeps_the_positions_of_the_title():
    title = "Change token at position 0 (İstanbul)…"  # 'İ'.lower() is two characters
    score, positions = match("stanbul", title)
    assert title[positions[0] : positions[-1] + 1] == "stanbul" and score > 0


async def test_typing_makes_the_entries_once_and_a_long_query_finds_nothing():
    app = make_app()
    made = []
    offered = app.palette_commands

    def counted():
        made.append(1)
        return offered()

    app.palette_commands = counted
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "ctrl+p")
        assert isinstance(app.screen, CommandPalette)
        await press(pilot, *"edit parameter w edit parameter w edit parameter w ")  # a search a key
        assert len(made) == 1  # made when the palette opened, not once a key
        provider = TinyTuiCommands(app.screen)
        hits = [hit.text async for hit in provider.search("edit parameter w_")]
        assert hits == [f"Edit parameter {n}" for n in ("W_Q", "W_K", "W_V", "W_O", "W_1", "W_2")]
        assert [h async for h in provider.search("edit parameter w " * 10)] == []
        assert [h async for h in provider.search("e" * (MAX_QUERY + 1))] == []
        await press(pilot, "escape")
        assert not isinstance(app.screen, CommandPalette)
