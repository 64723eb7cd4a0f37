"""A and C where a user looks for them: in the footer while their mode is on (C while two runs are
compared, A once patching is set), at 80 columns too in place of m and o, and on the ? screen."""

from tests.tui.helpers import footer_keys, press
from tinytui.tui.screens.help_screen import help_rows
from tinytui.tui.widgets.footer import TinyFooter


async def test_c_is_in_the_footer_while_comparing_and_leaves_with_it(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert "Two runs" not in footer_keys(app)
        app.action_do("compare-pinned")
        await pilot.pause()
        assert "Two runs" in footer_keys(app)
        app.action_do("stop-comparing")
        await pilot.pause()
        assert "Two runs" not in footer_keys(app)


async def test_at_80_columns_a_mode_key_takes_the_place_of_m_and_o(app):
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert footer_keys(app)[:7] == ["Next", "Prev", "Undo", "Compare", "Mask", "PE", "Backward"]
        app.action_do("compare-pinned")
        await press(pilot, "b")  # the walk, compared
        keys = footer_keys(app)
        assert "Two runs" in keys and "Forward" in keys and "Mask" not in keys and "PE" not in keys
        assert keys[-3:] == ["Help", "Quit", "palette"]
        assert len(app.query_one(TinyFooter).text()) <= 80
        app.apply(lambda s: s.set_patching("a much would chuck", "chuck"))
        app.refresh_bindings()
        await pilot.pause()
        keys = footer_keys(app)
        assert "Patch" in keys and keys[-3:] == ["Help", "Quit", "palette"]
        assert len(app.query_one(TinyFooter).text()) <= 80


async def test_the_help_lists_a_and_c_with_what_they_do(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        rows = {(keys, what) for _, keys, what, _ in help_rows(app, app.help_sources())}
        assert ("A", "Patch") in rows and ("C", "Compare runs") in rows and ("C", "Two runs") in rows
