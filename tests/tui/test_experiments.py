"""Experiment keys: each flips its switch, the status shows it, the trace changes, undo restores it."""

import numpy as np
import pytest

from tests.tui.helpers import cell, grid, info, press, status
from tinytui.tui.experiments import EXPERIMENTS

KEYED = [e for e in EXPERIMENTS if e.key]
SHOWN = {  # what the status line says after pressing the key once
    "toggle-mask": "mask off",
    "toggle-pe": "PE off",
    "cycle-heads": "ablated h1",
    "toggle-activation": "GELU",
    "toggle-norm": "post-norm",
    "toggle-residual": "residual off",
    "toggle-norm-kind": "RMSNorm",
    "toggle-positions": "RoPE",
}


@pytest.mark.parametrize("exp", KEYED, ids=[e.id for e in KEYED])
async def test_key_flips_shows_recomputes_and_undoes(app, exp):
    async with app.run_test(size=(120, 40)) as pilot:
        before = app.session.trace
        assert SHOWN[exp.id] not in status(app)
        await press(pilot, exp.key)
        assert not exp.is_on(app.session.state.switches)
        assert SHOWN[exp.id] in status(app)
        assert not app.session.diff.empty
        after = app.session.trace  # RMSNorm and RoPE name some tensors differently: compare the shared
        assert any(not np.array_equal(before[n], after[n]) for n in before if n in after)
        await press(pilot, "u")
        assert exp.is_on(app.session.state.switches)
        assert SHOWN[exp.id] not in status(app)
        assert all(np.array_equal(before[n], app.session.trace[n]) for n in before)


def test_every_key_is_in_the_bindings_with_a_description(app):
    ids = {b.id: b for b in type(app).BINDINGS if hasattr(b, "id")}
    for e in KEYED:
        assert ids[e.id].key == e.key and ids[e.id].tooltip == e.help


async def test_mask_off_fills_the_heatmap_upper_triangle(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "8")
        attn = grid(app, "output:blocks.0.attn.{h}")
        assert cell(attn, "0:a", 1) == "0.0000"
        await press(pilot, "m")
        attn = grid(app, "output:blocks.0.attn.{h}")
        expected = app.session.trace["blocks.0.attn.1"][0, 1]
        assert cell(attn, "0:a", 1) == f"{expected:.4f}" and expected > 0
        assert "causal mask OFF" in info(app)
        # the last row saw everything already: unchanged
        assert not app.session.diff["blocks.0.attn.1"].changed[3].any()


async def test_pe_off_and_swap_from_the_palette(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "m", "o")
        before = app.session.trace
        await press(pilot, "ctrl+p")
        await pilot.press(*"Swap positions 0 and 1")
        await press(pilot, "enter")
        after = app.session.trace
        assert app.session.state.prompt == ("woodchuck", "a", "would", "chuck")
        assert "woodchuck a would chuck" in status(app)
        assert np.allclose(after["x"], before["x"][[1, 0, 2, 3]])
        assert np.allclose(after["logits"], before["logits"])


async def test_gelu_step_11_counts_zeros(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9", "n", "n")
        assert app.session.step == 11
        assert "24 of 32" in info(app)
        await press(pilot, "a")
        text = info(app)
        assert "GELU" in text and "ReLU would cut 24 of 32" in text
        assert "h = GELU(LN(x′) W_1 + b_1)" in text


async def test_status_marks_the_switches_that_differ_from_the_chapter(app):
    from rich.style import Style

    from tinytui.present.status_words import switch_words

    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "m", "a")
        text = switch_words(app.view(), lambda name: Style(bold=True))
        styled = {text.plain[s.start : s.end] for s in text.spans if s.style}
        assert styled == {"mask off", "GELU"}
        assert "lr " not in status(app)
        app.apply(lambda s: s.set_lr(0.1), "learning rate")
        await pilot.pause()
        assert "lr 0.1" in status(app)


def test_the_activation_note_and_the_words_hold_for_a_gated_model_of_four_heads():
    """chapter17-llama runs SiLU as its own (not "changed" because it is not the chapter's ReLU); the
    activation words name SiLU; the head cycle goes through each of its four heads, then all of them."""
    from tests.apps import make_app
    from tinytui.tui.experiments import EXPERIMENT_BY_ID, cycle_ablation

    app = make_app("--model", "chapter17-llama")
    s = app.session
    assert app.experiments.note("toggle-activation") == "now SiLU, the model's own"
    s.toggle("activation")
    assert app.experiments.note("toggle-activation") == "now ReLU, not the model's own SiLU"
    assert "SiLU → ReLU → GELU" in EXPERIMENT_BY_ID["toggle-activation"].palette
    seen = []
    for _ in range(6):
        cycle_ablation(s)
        seen.append(s.state.switches.ablated_heads)
    assert seen == [{1}, {2}, {3}, {4}, {1, 2, 3, 4}, set()]
    assert "each head alone in turn, then every head" in EXPERIMENT_BY_ID["cycle-heads"].palette


async def test_the_palette_ablates_a_third_head_of_a_one_block_model(tmp_path):
    """The switch table names heads 1 and 2; a model of four heads in one block ablates heads 3 and 4
    from the palette too (a model of several blocks has them per block)."""
    from tests.apps import make_app
    from tinytui.cli.main import main

    path = tmp_path / "four.json"
    assert main(["new", "--d", "8", "--heads", "4", "-o", str(path)]) == 0
    app = make_app("--model", str(path))
    async with app.run_test(size=(120, 40)):
        commands = {c.title: c for c in app.experiments.palette()}
        assert "Ablate head 4 (toggle)" in commands and "Ablate head 5 (toggle)" not in commands
        commands["Ablate head 3 (toggle)"].run()
        assert app.session.state.switches.ablated_heads == {3}
        assert not app.session.trace["blocks.0.head.3"].any()


def test_the_head_cycle_of_a_one_head_model_comes_back_to_none(tmp_path):
    """none → head 1 → none: with one head, "every head" is head 1 again and must not hold the cycle."""
    from tests.apps import make_app
    from tinytui.cli.main import main
    from tinytui.tui.experiments import cycle_ablation

    path = tmp_path / "one.json"
    assert main(["new", "--heads", "1", "-o", str(path)]) == 0
    s = make_app("--model", str(path)).session
    seen = []
    for _ in range(3):
        cycle_ablation(s)
        seen.append(set(s.state.switches.ablated_heads))
    assert seen == [{1}, set(), {1}]


async def test_a_one_head_model_offers_no_head_2_to_ablate(tmp_path):
    """The palette lists what can be done: a one-head model has no head 2, so no 'Ablate head 2'
    (which would only be refused); head 1 and the cycle stay. The chapter's two heads keep both."""
    from tests.apps import make_app
    from tinytui.cli.main import main

    path = tmp_path / "one.json"
    assert main(["new", "--heads", "1", "-o", str(path)]) == 0
    titles = {}
    for name, app in (("one", make_app("--model", str(path))), ("two", make_app())):
        async with app.run_test(size=(80, 24)):
            titles[name] = [c.title for c in app.palette_commands()]
    assert "Ablate head 1 (toggle)" in titles["one"] and "Ablate head 2 (toggle)" not in titles["one"]
    assert "Ablate head 1 (toggle)" in titles["two"] and "Ablate head 2 (toggle)" in titles["two"]
