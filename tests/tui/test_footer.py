"""The footer keeps n and p (and ? Help, q Quit) at any width the app opens at, spaces itself as Textual's
Footer where everything fits, never runs off the right edge, and a click on a key presses it."""

import pytest

from tests.apps import make_app
from tests.tui.helpers import footer_keys
from tinytui.tui.widgets.footer import FooterItem, TinyFooter, fit


def item(key: str, words: str, action: str) -> FooterItem:
    return FooterItem(key, key, words, f"do('{action}')", True, "")


ITEMS = [
    item("n", "Next", "next-step"),
    item("p", "Prev", "previous-step"),
    item("u", "Undo", "undo"),
    item("c", "Compare", "compare"),
    item("f", "Follow", "follow-operand"),  # shown on a wide screen only
    item("?", "Help", "help"),
    item("q", "Quit", "quit"),
]
PALETTE = FooterItem("ctrl+p", "^p", "palette", "command_palette", True, "")


def test_fit_keeps_stepping_help_and_quit_first():
    kept, palette, wide = fit(ITEMS, PALETTE, 200)
    assert wide and kept == ITEMS and palette is PALETTE
    kept, palette, wide = fit(ITEMS, PALETTE, 50)  # wide it needs 75; tight 66: Follow, then Compare go
    assert not wide and [k.description for k in kept] == ["Next", "Prev", "Undo", "Help", "Quit"]
    assert palette is PALETTE  # 35 + 12
    kept, palette, _ = fit(ITEMS, PALETTE, 30)
    assert [k.description for k in kept] == ["Next", "Prev", "Help", "Quit"] and palette is None
    kept, palette, _ = fit(ITEMS, PALETTE, 15)
    assert [k.description for k in kept] == ["Next", "Prev"]


@pytest.mark.parametrize(("size", "large"), [((120, 40), False), ((80, 24), False), ((60, 20), False),
                                              ((80, 24), True), ((60, 20), True)])  # fmt: skip
async def test_n_p_help_and_quit_at_every_width(size, large):
    app = make_app(large=large)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        keys = footer_keys(app)
        line = app.query_one(TinyFooter).text()
        stepping = ["Next ›", "‹ Prev"] if large else ["Next", "Prev"]
        assert set(stepping) <= set(keys) and keys[-3:] == ["Help", "Quit", "palette"], keys
        assert len(line) <= size[0] and line.rstrip().endswith("^p palette"), line
        assert line.startswith(" n Next  p Prev ") == (size[0] == 120 and not large)  # Textual's spacing


async def test_the_footer_follows_the_bindings():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "Backward" in footer_keys(app)
        await pilot.press("b")
        await pilot.pause()
        assert "Forward" in footer_keys(app) and "Backward" not in footer_keys(app)
        footer = app.query_one(TinyFooter)
        assert "b Forward" in footer.text()
        assert "b Forward" in footer.render_line(0).text  # the line drawn, kept by what it shows
        await pilot.press("b")  # out of the walk: the line drawn before comes back
        await pilot.pause()
        assert "b Backward" in footer.render_line(0).text and "Forward" not in footer.render_line(0).text
        await pilot.press("b")
        await pilot.pause()
        assert "b Forward" in footer.render_line(0).text


async def test_a_click_on_a_key_presses_it():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        line = app.query_one(TinyFooter).text()
        await pilot.click(TinyFooter, offset=(line.index("Next"), 0))
        await pilot.pause()
        assert app.session.step == 2
        await pilot.click(TinyFooter, offset=(line.index("Prev"), 0))
        await pilot.pause()
        assert app.session.step == 1
