"""Every block in the stepper: a 3-block model steps through each block's copy of steps 5–12, an edit in
block 3 changes only what follows it, the backward walk reaches block 1, and print/transcript/replay
name the block."""

import numpy as np
import pytest

from tests.tui.helpers import info, press, status, steplist
from tinytui.lesson import step_path
from tinytui.lesson.stages import STAGES
from tinytui.lesson.step_path import changed_per_step
from tinytui.model.training.seeded_model import new_model
from tinytui.model.training.seeded_model import sizes as make_sizes
from tinytui.session.session import Session
from tinytui.tui.app import TinyTuiApp

N_BLOCKS = 3


def three_blocks():
    return new_model(make_sizes(8, 2, 16, N_BLOCKS), seed=3)


def app_of(model) -> TinyTuiApp:
    return TinyTuiApp(Session(model))


def test_the_path_repeats_the_block_steps_once_per_block():
    path = step_path.forward(N_BLOCKS)
    assert len(path) == 4 + 8 * N_BLOCKS + 4
    assert [s.number for s in path[:5]] == [1, 2, 3, 4, 5]
    assert [s.block for s in path[4:12]] == [0] * 8 and [s.block for s in path[20:28]] == [2] * 8
    assert [s.number for s in path[-4:]] == [13, 14, 15, 16]
    walk = step_path.backward(N_BLOCKS, (15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2))
    assert walk[3] == step_path.Step(12, 2) and walk[-4] == step_path.Step(5, 0)


def test_a_block_step_reads_the_stream_that_enters_its_block():
    assert step_path.resolve(("x", "attn.{h}", "W_Q"), 2, step_path.Step(5, 2), 3) == (
        "blocks.1.y",
        "blocks.2.attn.1",
        "blocks.2.attn.2",
        "blocks.2.W_Q",
    )
    assert step_path.resolve(("x",), 2, step_path.Step(5, 0), 3) == ("x",)
    assert step_path.resolve(("y", "grad.y"), 2, step_path.Step(13), 3) == ("blocks.2.y", "grad.blocks.2.y")


def test_the_step_texts_quote_the_block_they_show():
    model = three_blocks()
    session = Session(model)
    session.goto(10, block=2)
    trace = step_path.focus(session.trace, session.here)
    residual = STAGES[9]
    assert residual.id == "residual1"
    # the fact quotes the last column at the last position: from the stream entering block 3 (block 2's
    # y) to block 3's x′ — not block 1's numbers
    facts = " ".join(residual.facts(trace))
    before, after = session.trace["blocks.1.y"][-1, -1], session.trace["blocks.2.x_mid"][-1, -1]
    assert f"{before:.4f} → {after:.4f}" in facts
    first = session.trace["blocks.0.x_mid"][-1, -1]
    assert f"{first:.4f}" not in facts


@pytest.mark.asyncio
async def test_stepping_through_every_block_in_pilot():
    app = app_of(three_blocks())
    async with app.run_test(size=(120, 40)) as pilot:
        seen = []
        for _ in range(len(step_path.forward(N_BLOCKS)) - 1):
            await press(pilot, "n")
            seen.append(status(app).splitlines()[0])
        assert any("Block 1/3 · step 5/16 Layer norm" in line for line in seen)
        assert any("Block 3/3 · step 12/16" in line for line in seen)
        assert seen[-1].startswith(" Step 16/16") or "Step 16/16" in seen[-1]
        assert len([line for line in seen if "step 8/16" in line]) == N_BLOCKS
        listed = steplist(app)
        assert "block 1 of 3" in listed and "block 3 of 3" in listed
        # back to block 2's attention: its own heatmaps and its own text
        await press(pilot, *["p"] * 16)  # from step 16 (index 31 of 32) to block 2·8 (index 15)
        assert "Block 2/3 · step 8/16" in status(app)
        assert "Block 2 of 3 · step 8 of 16" in info(app)
        assert app.session.here == step_path.Step(8, 1)
        # ] and [ keep the step and change the block
        await press(pilot, "right_square_bracket")
        assert app.session.here == step_path.Step(8, 2)
        await press(pilot, "left_square_bracket", "left_square_bracket")
        assert app.session.here == step_path.Step(8, 0)
        await press(pilot, "left_square_bracket")
        assert app.session.here == step_path.Step(8, 0)  # no block before the first: a bell, nothing moves


@pytest.mark.asyncio
async def test_an_edit_in_block_3_changes_only_what_follows_it():
    app = app_of(three_blocks())
    async with app.run_test(size=(120, 40)):
        session = app.session
        session.goto(11, block=2)
        before = session.trace
        session.edit("blocks.2.W_1", (0, 0), float(session.params["blocks.2.W_1"][0, 0]) + 0.5)
        after = session.trace
        for name in ("x", "blocks.0.y", "blocks.1.y", "blocks.2.x_mid", "blocks.2.attn.1"):
            assert np.array_equal(before[name], after[name]), name
        for name in ("blocks.2.hidden_pre", "blocks.2.y", "z", "logits"):
            assert not np.array_equal(before[name], after[name]), name
        counts = changed_per_step(session.diff, 2, N_BLOCKS)
        assert all(counts[step_path.Step(n, b)] == 0 for b in (0, 1) for n in range(5, 13))
        assert counts[step_path.Step(11, 2)] > 0 and counts[step_path.Step(13)] > 0


@pytest.mark.asyncio
async def test_the_backward_walk_reaches_block_1():
    app = app_of(three_blocks())
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "b")
        assert app.session.mode.backward and app.session.step == 15
        walk = app.session.path()
        for _ in range(len(walk) - 1):
            await press(pilot, "n")
        assert app.session.step == 2
        await press(pilot, *["p"] * 3)
        assert app.session.here == step_path.Step(5, 0)
        assert "BACKWARD PASS · block 1 · step 5" in status(app)
        await press(pilot, *["p"] * 8)
        assert app.session.here == step_path.Step(5, 1)
        assert "block 2 · step 5" in info(app)


def test_print_gives_each_block_its_own_report(tmp_path, capsys):
    from tinytui.cli.main import main
    from tinytui.model.io.model_file import save

    path = tmp_path / "three.model.json"
    save(three_blocks(), path)
    assert main(["print", "--model", str(path), "--plain", "--step", "9"]) == 0
    out = capsys.readouterr().out
    assert [line for line in out.splitlines() if "· Heads combined" in line] == [
        f"Block {b}/3 · step 9/16 · Heads combined  (17.7)" for b in (1, 2, 3)
    ]


def test_a_recording_of_block_steps_replays_to_the_same_block(tmp_path):
    from tinytui.recording.recorder import Recorder
    from tinytui.recording.replay import Replayer, load_recording

    model = three_blocks()
    session = Session(model)
    rec = Recorder(tmp_path / "blocks.txt")
    rec.attach(session)
    session.goto(7, block=2)
    session.edit("blocks.2.W_Q", (0, 0, 0), 0.25)
    session.goto(9, block=1)
    rec.stop()
    transcript = (tmp_path / "blocks.txt").read_text()
    assert "block 3 · step 7/16: moved to Attention scores" in transcript
    assert "block 2 · step 9/16: moved to Heads combined" in transcript
    recording = load_recording(tmp_path / "blocks.jsonl")
    replayed = recording.new_session()
    Replayer(recording).apply_all(replayed)
    assert replayed.here == step_path.Step(9, 1)
    assert float(replayed.params["blocks.2.W_Q"][0, 0, 0]) == 0.25


def test_ablating_one_head_of_one_block_zeroes_it_there_only():
    from dataclasses import replace

    from tinytui.lesson.why.explain import explain
    from tinytui.model.backward.gradients import gradients

    session = Session(three_blocks())
    plain = session.trace
    event = session.set_switches(replace(session.state.switches, ablated=frozenset({(1, 2)})))
    trace = session.trace
    assert event.data["switches"]["ablated"] == [[1, 2]]
    assert not trace["blocks.1.head.2"].any() and trace["blocks.1.head.1"].any()
    assert np.array_equal(trace["blocks.0.head.2"], plain["blocks.0.head.2"])  # block 1 is before it
    assert not np.array_equal(trace["blocks.2.head.2"], plain["blocks.2.head.2"])  # it reads block 2's y
    grads = gradients(session.params, trace)
    assert not grads["grad.blocks.1.v.2"].any() and grads["grad.blocks.0.v.2"].any()
    why = explain(trace, session.params, "blocks.1.head.2", (0, 0), grads)
    assert "ablated" in why.formula and why.result.startswith("0")
    assert "ablated b2h2" in trace.switches.describe()
    session.goto(9, block=1)
    facts = STAGES[8].facts(step_path.focus(trace, session.here))
    assert facts == ["head 2 is ablated: its output is replaced by zeros"]
    session.goto(9, block=0)
    assert STAGES[8].facts(step_path.focus(trace, session.here)) == []


@pytest.mark.asyncio
async def test_the_parameter_browser_lists_every_blocks_weights():
    from tinytui.tui.screens.pick_screen import PickScreen

    app = app_of(three_blocks())
    async with app.run_test(size=(120, 40)) as pilot:
        app.edits.edit_parameter()
        await pilot.pause()
        assert isinstance(app.screen, PickScreen)
        values = [v for v, _ in app.screen.choices]
        assert len(values) == 1 + 8 * N_BLOCKS and "blocks.2.W_O" in values
        shown = dict(app.screen.choices)["blocks.2.W_O"]
        assert shown.split()[:3] == ["W_O", "(block", "3)"]


@pytest.mark.asyncio
async def test_the_watch_pane_shows_the_attention_of_the_block_shown():
    from tinytui.tui.widgets.watch_pane import WatchPane

    app = app_of(three_blocks())
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "W", "8", "right_square_bracket", "right_square_bracket")
        assert app.session.here == step_path.Step(8, 2)
        text = app.query_one(WatchPane).text()
        assert "Attention, block 3 of 3" in text
        spec = app.query_one(WatchPane).spec
        assert spec.heads[0].values[-1][0] == float(app.session.trace["blocks.2.attn.1"][-1, 0])
