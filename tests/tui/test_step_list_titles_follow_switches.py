"""The step list's titles follow the switches as the status line's do: with the positional encoding
off, step 4 adds nothing and is not called an addition."""

from tests.tui.helpers import press, steplist


def title_of(app, number: int) -> str:
    line = next(line for line in steplist(app).splitlines() if line[1:].strip().startswith(f"{number} "))
    return line[1:].strip().removeprefix(f"{number} ")


async def test_step_4s_title_follows_the_positional_encoding_switch(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "4")
        assert title_of(app, 4).startswith("Add position to mean")
        await press(pilot, "o")  # the positional encoding off
        assert app.session.trace.switches.positional_encoding is False
        assert title_of(app, 4).startswith("Meaning alone, no po")
        await press(pilot, "o")
        assert title_of(app, 4).startswith("Add position to mean")
