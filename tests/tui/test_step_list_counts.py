"""The step list's Δ counts are kept while the diff is (a step change shows the same counts) and made
again when it changes (compared with the model file after an undo: nothing moved)."""

from tests.tui.helpers import W_O, press, steplist, type_into_cell


def counted(app) -> dict[int, str]:
    """Each step's Δ badge as the list shows it ('' for none)."""
    out = {}
    for line in steplist(app).splitlines():
        number, _, rest = line[1:].strip().partition(" ")
        out[int(number)] = rest.rsplit("Δ", 1)[1] if "Δ" in rest else ""
    return out


async def test_counts_stay_with_a_step_change_and_follow_the_diff(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9")
        await type_into_cell(pilot, app, W_O, 0, 0, "0.5")
        edited = counted(app)
        assert [n for n, badge in edited.items() if badge] == [9, 10, 11, 12, 13, 14, 15]
        await press(pilot, "n", "n", "p")
        assert counted(app) == edited
        await press(pilot, "escape", "u")  # the undo moves the same cells back
        assert counted(app) == edited
        await press(pilot, "c")  # against the model file, which the undo is back to
        assert not any(counted(app).values())
        await press(pilot, "c", "ctrl+r", "c")  # the redo against the model file: the edit's counts
        assert counted(app) == edited
