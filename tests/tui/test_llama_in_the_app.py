"""The debugger on chapter17-llama (RMSNorm, RoPE, 4 query heads over 2 key/value heads, SwiGLU, two
blocks), pressed through as a learner would: every forward step, Tab through the tables, the whole
backward walk, the activation toggle; the status line names the model's choices."""

from __future__ import annotations

import pytest

from tests.apps import make_app
from tests.tui.helpers import info, press, status, tables, view
from tinytui.lesson import step_path


@pytest.mark.asyncio
async def test_every_step_and_the_walk_on_chapter17_llama():
    app = make_app("--model", "chapter17-llama")
    async with app.run_test(size=(120, 40)) as pilot:
        cfg = app.session.trace.cfg
        assert "RMSNorm·RoPE·4q/2kv·SwiGLU·tied" in status(app)
        seen = {}
        for step in step_path.forward(cfg.n_blocks)[1:]:
            await press(pilot, "n", "tab")
            assert app.return_code is None, step
            assert app.session.here == step
            seen[step] = {t.key.partition("#")[0] for t in tables(app)}  # a wide one: "#<head>" each
        sixth = seen[step_path.Step(6, 1)]
        for name in ("q_pre.{h}", "q.{h}", "k_pre.{g}", "k.{g}", "v.{g}"):
            assert f"output:blocks.1.{name}" in sixth, name  # each per head (k, v: per key/value head)
        assert "output:blocks.0.ln1.stats" in seen[step_path.Step(5, 0)]
        assert {"output:blocks.0.gate_pre", "output:blocks.0.gate", "output:blocks.0.up"} <= seen[
            step_path.Step(11, 0)
        ]
        assert "param:blocks.0.W_gate" in seen[step_path.Step(11, 0)]
        await press(pilot, "b")
        walk = app.session.path()
        for step in walk[1:]:
            await press(pilot, "n", "tab")
            assert app.return_code is None, step
            assert app.session.here == step
        assert app.session.step == 2 and "BACKWARD" in status(app)
        await press(pilot, "b", "6")
        assert "Q = RoPE(Q_pre, p)" in info(app)
        activations = []
        for _ in range(3):
            await press(pilot, "a")
            activations.append(app.session.state.switches.activation)
        assert activations == ["relu", "gelu", "silu"]
        assert "SiLU" in status(app)
        await press(pilot, "plus", "6")  # the appended token's pass at step 6: the KV cache
        shown = view(app).text()
        assert "cached per key/value head: 8 numbers a position, not 16 with one per query head" in shown
        assert "K kv head 2" in shown and "K kv head 3" not in shown
