"""The debugger on the tiny GPT-2 checkpoint, as `tinytui --model FOLDER --prompt TEXT` opens it: the BPE
pieces in the token table, GPT-2's switches on the status line, every step walks, and an edit of a
GPT-2-only weight reaches the loss."""

from tests.apps import make_app
from tests.gpt2.checkpoints import TINY, reference
from tests.tui.helpers import info, press, status
from tinytui.lesson import step_path
from tinytui.lesson.stages import title_for


async def test_the_checkpoint_walks_every_step_of_both_blocks():
    case = reference()["prompts"][0]
    app = make_app("--model", str(TINY), "--prompt", case["text"], "--target", "to")
    async with app.run_test(size=(120, 40)) as pilot:
        assert "The Ġriver Ġruns → target Ġto" in status(app)
        assert f"loss {case['loss']:.4f}" in status(app) and "GELU" in status(app)
        assert "3 tokens, ids 282 281 304; target 'Ġto' is id 316" in info(app)
        for step in step_path.forward(2)[1:]:  # the block's steps once per block: 4 + 2 × 8 + 4
            await press(pilot, "n")
            assert app.session.here == step
            title = title_for(step.stage, app.session.trace.cfg)  # GPT-2's step 11: widen and activate
            assert info(app).startswith(f"{step_path.of_all(step, 2)} · {title}")
        assert "12,864 parameters" in info(app)


async def test_an_edit_of_an_attention_bias_reaches_the_status_line():
    app = make_app("--model", str(TINY), "--prompt", "The river runs", "--target", "to")
    async with app.run_test(size=(120, 40)) as pilot:
        before = app.session.trace.loss
        app.apply(lambda s: s.edit("blocks.1.b_V", (0, 0), "3"), "edit b_V")
        await pilot.pause()
        after = app.session.trace.loss
        assert after != before and app.session.params["blocks.1.b_V"][0, 0] == 3.0
        assert f"loss {before:.4f} → {after:.4f} ▼  │  1 edited weight" in status(app)
