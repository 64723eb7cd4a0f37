"""Tab goes round every table of a step: past the last one the focus moves on, and the next Tab into the
view starts again at the first table (Shift+Tab the other way), wherever an edit and its undo left it."""

from tests.apps import make_app
from tests.tui.helpers import W_O, press, view


async def test_tab_reaches_every_table_again_after_an_edit_and_its_undo():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9", "tab", "tab", "tab")
        v = view(app)
        assert v.cursor_box.item.key == W_O
        await press(pilot, "enter", *"0.5", "enter", "u", "9")
        keys = [b.item.key for b in v.blocks.boxes if b.item.key in {s.key for s in v.tables()}]
        seen = []
        for _ in range(2 * len(keys) + 2):
            await press(pilot, "tab")
            if app.focused is v:
                seen.append(v.cursor_box.item.key)
        assert set(seen) == set(keys)  # every table, W_O included, not two of them over and over


async def test_shift_tab_goes_round_the_other_way():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9", "tab")
        v = view(app)
        keys = [s.key for s in v.tables()]
        seen = []
        for _ in range(2 * len(keys) + 2):
            await press(pilot, "shift+tab")
            if app.focused is v:
                seen.append(v.cursor_box.item.key)
        assert set(seen) == set(keys)
