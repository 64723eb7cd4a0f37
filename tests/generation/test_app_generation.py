"""The app: + appends the next token (greedy, or drawn with the palette's settings), undoably and
recorded; step 14 shows the choice, step 6 after an append the KV cache's rows, reused or computed now."""

from pathlib import Path

import numpy as np

from tests.apps import make_app
from tests.tui.helpers import grid, press, status
from tinytui.model.generation.continuation import generate
from tinytui.model.generation.sampling import Sampling, uniform
from tinytui.present.cells import step_sections
from tinytui.present.grid_spec import GridSpec
from tinytui.recording.replay import Replayer, load_recording
from tinytui.tui.app import TinyTuiApp
from tinytui.tui.screens.help_screen import help_rows


def items(app) -> dict[str, GridSpec]:
    """The step's tables by key, as the spec layer gives them to the step view."""
    return {
        i.key: i for s in step_sections(app.view()) for row in s.rows for i in row if isinstance(i, GridSpec)
    }


def headings(app) -> list[str]:
    return [s.title for s in step_sections(app.view())]


async def set_by_palette(pilot, title: str, text: str) -> None:
    await press(pilot, "ctrl+p")
    await pilot.press(*title)
    await press(pilot, "enter")
    await pilot.press("ctrl+a", *["delete"] * 12, *text)  # the box starts with the setting as it is
    await press(pilot, "enter")


async def test_plus_appends_the_most_likely_token_and_u_undoes_it():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        footer = [b.binding.description for b in app.screen.active_bindings.values() if b.binding.show]
        assert "+Token" in footer
        help_keys = [
            (keys, what) for _, keys, what, _ in help_rows(app, app.help_sources()) if what == "+Token"
        ]
        assert help_keys == [("+", "+Token")]
        assert "Append the next token" in [c.title for c in app.palette_commands()]
        await press(pilot, "plus")
        assert app.session.state.prompt == ("a", "woodchuck", "would", "chuck", "wood")
        assert "a woodchuck would chuck wood → target wood" in status(app)
        await press(pilot, "u")
        assert app.session.state.prompt == ("a", "woodchuck", "would", "chuck")


async def test_the_palette_settings_draw_what_tinytui_generate_draws():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await set_by_palette(pilot, "Set temperature", "1")
        await set_by_palette(pilot, "Set seed", "3")
        assert app.session.sampling == Sampling(1.0, seed=3)
        for _ in range(6):
            await press(pilot, "plus")
        model = app.session.model
        cli = generate(
            model.params, model.prompt, model.target, app.session.state.switches, 6, Sampling(1.0, seed=3)
        )
        assert (
            app.session.state.prompt[4:]
            == cli.tokens
            == ("chuck", "much", "much", "chuck", "woodchuck", "chuck")
        )
        # undo and append again: the same draw, the same token
        await press(pilot, "u", "plus")
        assert app.session.state.prompt[-1] == "chuck"


async def test_a_bad_setting_is_refused_in_one_line_and_changes_nothing():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await set_by_palette(pilot, "Set top-p", "1.5")
        assert app.session.sampling == Sampling()
        assert "top-p 1.5 is outside (0, 1]" in str(app.screen.query_one("#ask-message").render())
        await press(pilot, "escape")
        await set_by_palette(pilot, "Set top-k", "9")
        assert "top-k 9 is outside 1–8 (the vocabulary has 8 tokens)" in str(
            app.screen.query_one("#ask-message").render()
        )


async def test_step_14_shows_the_distributions_the_draw_and_the_pick():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "G", "p", "p")
        assert app.session.step == 14
        spec = items(app)["next-token"]
        assert spec.cols == ("ℓ", "p = softmax(ℓ)", "greedy")
        assert spec.rows[4] == "→ wood" and spec.cells[4] == ("1.0480", "0.3107", "1.0000")
        assert headings(app)[1].startswith("Next token — + appends it (greedy: no draw")
        assert "→ wood" in grid(app, "next-token").text()  # on screen
        await set_by_palette(pilot, "Set temperature", "0.8")
        await set_by_palette(pilot, "Set top-k", "3")
        spec = items(app)["next-token"]
        assert spec.cols == ("ℓ", "p = softmax(ℓ)", "÷ T 0.8", "top-k 3", "running Σ")
        u = uniform(0, 4)
        assert spec.title == f"Position 4 · T 0.8 · top-k 3 · seed 0 · u = {u:.4f} → 'woodchuck'"
        assert [r for r in spec.rows if r.startswith("→")] == ["→ woodchuck"]
        kept = [r.strip("→ ") for r, c in zip(spec.rows, spec.cells) if c[3] != "0.0000"]
        assert kept == ["chuck", "wood", "woodchuck"]  # the three likeliest, in vocabulary order
        running = [float(c[4]) for c in spec.cells]
        assert running[4] <= u < running[5]  # wood's total is below u = 0.8133, woodchuck's the first past it
        await press(pilot, "plus")
        assert app.session.state.prompt[-1] == "woodchuck"


async def test_step_6_after_an_append_marks_the_rows_reused_and_the_row_computed_now():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "6")
        assert "kv-cache:blocks.0.k" not in items(app)  # nothing was appended yet
        await press(pilot, "plus")
        k = items(app)["kv-cache:blocks.0.k"]
        assert k.rows == ("0:a cache", "1:woodchuck cache", "2:would cache", "3:chuck cache", "4:wood new")
        assert k.cells[4][:2] == ("−0.1678", "1.6287")  # on screen the minus sign is U+2212
        np.testing.assert_array_equal([v for v in k.values[4][:2]], app.session.trace["blocks.0.k.1"][4])
        assert headings(app)[1] == "KV cache: 'wood' at 4 computed its Q, K, V row; rows 0–3 of K, V reused"
        assert "4:wood new" in grid(app, "kv-cache:blocks.0.v").text()  # on screen
        await press(pilot, "u")
        assert "kv-cache:blocks.0.k" not in items(app)


async def test_without_the_mask_later_blocks_compute_every_row_again():
    app = make_app("--model", "woodland", "--no-mask")
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "plus", "6")
        assert items(app)["kv-cache:blocks.0.k"].rows[0].endswith(" cache")  # block 1: its own tokens only
        await press(pilot, "right_square_bracket")
        assert app.session.block == 1
        assert items(app)["kv-cache:blocks.1.k"].rows[0].endswith(" again")
        assert "every row computed again: without the causal mask" in headings(app)[1]


async def test_a_full_context_refuses_in_one_line():
    prompt = " ".join(["a", "woodchuck", "would", "chuck"] * 4)  # 16 tokens: the context is full
    app = make_app("--prompt", prompt)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "plus")
        assert len(app.session.state.prompt) == 16
        messages = [n.message for n in app.toasts.notes()]
        assert (
            "the prompt fills the model's context of 16 positions: nothing more can be appended" in messages
        )


async def test_appends_are_recorded_and_replay_the_same(tmp_path: Path):
    lesson = tmp_path / "lesson.txt"
    app = make_app("--record", str(lesson))
    async with app.run_test(size=(120, 40)) as pilot:
        await set_by_palette(pilot, "Set temperature", "1.5")
        await press(pilot, "plus", "plus", "plus")
        live = app.session.state.prompt
        trace = app.session.trace
    assert len(live) == 7
    replayer = Replayer(load_recording(lesson), True)
    again = TinyTuiApp(replayer.new_session(), replay=replayer)
    async with again.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert again.session.state.prompt == live
        for name in trace.tensors:
            assert np.array_equal(again.session.trace[name], trace[name]), name
