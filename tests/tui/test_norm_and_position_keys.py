"""The norm and positions switches from the keyboard and the palette: on the Llama preset O runs
sinusoids for its RoPE (the status line says so, the prediction moves from 'how' to 'much') and the
palette names the model's own setting; l is refused in one line, with nothing changed."""

from tests.apps import make_app
from tests.tui.helpers import press, status


async def test_the_llama_preset_switches_its_positions_and_not_its_norm():
    app = make_app("--model", "chapter17-llama")
    async with app.run_test(size=(120, 40)) as pilot:
        entry = next(c for c in app.palette_commands() if c.title.startswith("Switch the positions"))
        assert "now the model's own positions" in entry.help and "key O" in entry.help
        await press(pilot, "O")
        assert app.session.state.switches.positions == "sinusoid"
        assert "sinusoids" in status(app) and "how 0.1975 → much 0.3400" in status(app)
        entry = next(c for c in app.palette_commands() if c.title.startswith("Switch the positions"))
        assert "now changed" in entry.help
        before = app.session.trace
        await press(pilot, "l")
        assert app.session.trace is before and app.session.state.switches.norm_kind is None
        await press(pilot, "u")
        assert app.session.state.switches.positions is None and "sinusoids" not in status(app)
