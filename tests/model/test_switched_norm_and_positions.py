"""The norm and positions switches: the chapter's model run with RMSNorm or RoPE in place of its own,
and the Llama preset with sinusoids in place of RoPE. The run is the model as run_config makes it, its
gradients match finite differences, and switching back gives the model's own run bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from tests.model.reference_backward import assert_matches_fd, finite_differences
from tests.model.reference_backward import forward as reference_forward
from tinytui.model.analysis.attribution import attribution
from tinytui.model.backward.gradients import gradients
from tinytui.model.io.model_file import load
from tinytui.model.io.presets import presets
from tinytui.model.switches import Switches, defaults, run_config
from tinytui.model.trace import run


@pytest.fixture(scope="module")
def llama():
    return load(presets()["chapter17-llama"])


def test_switching_the_chapter_to_rmsnorm_changes_its_norm_only(chapter, trace):
    sw = Switches().toggled("norm_kind", cfg=chapter.cfg)
    assert sw.norm_kind == "rms" and sw.to_dict()["norm_kind"] == "rms"
    rms = run(chapter.params, chapter.prompt, chapter.target, sw)
    assert rms.cfg.norm == "rms" and rms.cfg.positions == "sinusoid"
    x = trace["x"]  # the same input to block 1's norm: positions are untouched
    np.testing.assert_array_equal(rms["x"], x)
    by_hand = x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + chapter.cfg.eps)
    np.testing.assert_allclose(rms["blocks.0.x_norm"], by_hand, rtol=0, atol=1e-15)
    assert "blocks.0.ln1.mean" not in rms and "blocks.0.ln1.mean_sq" in rms
    # the chapter's loss 1.1690 becomes 0.7218 with RMSNorm; "wood" stays the prediction
    assert trace.loss == pytest.approx(1.1689552339321705, abs=1e-12)
    assert rms.loss == pytest.approx(0.7217860494161549, abs=1e-12)
    assert rms.prediction == trace.prediction == "wood"


def test_switching_the_chapter_to_rope_turns_q_and_k_and_adds_nothing(chapter, trace):
    sw = Switches().toggled("positions", cfg=chapter.cfg)
    assert sw.positions == "rope" and sw.labels()[-1] == "RoPE"
    rope = run(chapter.params, chapter.prompt, chapter.target, sw)
    np.testing.assert_array_equal(rope["pe"], np.zeros_like(trace["pe"]))
    np.testing.assert_array_equal(rope["x"], trace["emb"])
    # d_head 2: one pair per head, turned by p radians at position p (θ^0 = 1)
    q_pre, q = rope["blocks.0.q_pre.1"], rope["blocks.0.q.1"]
    for p in range(len(chapter.prompt)):
        c, s = np.cos(p), np.sin(p)
        a, b = q_pre[p]
        np.testing.assert_allclose(q[p], [a * c - b * s, a * s + b * c])
    assert rope.prediction == "would" and rope.loss == pytest.approx(3.993788277288418, abs=1e-12)


@pytest.mark.parametrize("which", ["norm_kind", "positions", "both"])
def test_switched_chapter_gradients_match_finite_differences(chapter, which):
    names = ("norm_kind", "positions") if which == "both" else (which,)
    # GELU: the chapter's ReLU has units exactly at 0 under RMSNorm and RoPE together, where a finite
    # difference straddles the kink and no gradient could match it
    sw = Switches(activation="gelu")
    for name in names:
        sw = sw.toggled(name, cfg=chapter.cfg)
    params, prompt, target = chapter.params, chapter.prompt, chapter.target
    t = run(params, prompt, target, sw)
    cfg = run_config(params.cfg, sw)
    _, losses = reference_forward(dict(params), cfg, prompt, target, sw)
    assert losses[0] == pytest.approx(t.loss, abs=1e-12)
    grads = gradients(params, t)
    for name in ("blocks.0.W_Q", "blocks.0.W_K", "E", "blocks.0.W_1"):
        fd = finite_differences(dict(params), cfg, prompt, target, sw, name, params[name].shape)
        assert_matches_fd(grads.param(name), fd, grads.loss, name)


def test_switching_back_gives_the_models_own_run_bit_for_bit(chapter, trace, llama):
    for model, own in ((chapter, trace), (llama, run(llama.params, llama.prompt, llama.target))):
        sw = defaults(model.cfg)
        for name in ("norm_kind", "positions") if model is chapter else ("positions",):
            there = sw.toggled(name, cfg=model.cfg)
            switched = run(model.params, model.prompt, model.target, there, reuse=own)
            back = there.toggled(name, cfg=model.cfg)
            assert back == sw and back.to_dict() == sw.to_dict()  # None again: as a fresh session's
            again = run(model.params, model.prompt, model.target, back, reuse=switched)
            assert again.cfg is model.cfg
            for tensor in own:
                np.testing.assert_array_equal(again[tensor], own[tensor], err_msg=tensor)


def test_llama_preset_runs_with_sinusoids_added(llama):
    own = run(llama.params, llama.prompt, llama.target)
    sw = defaults(llama.cfg).toggled("positions", cfg=llama.cfg)
    assert sw.positions == "sinusoid" and "sinusoids" in sw.describe()
    added = run(llama.params, llama.prompt, llama.target, sw)
    assert "blocks.0.q_pre.1" in own and "blocks.0.q_pre.1" not in added
    assert np.abs(added["pe"]).sum() > 0
    # the preset predicts "how" (loss 3.2012) with RoPE and "much" (loss 1.8512) with sinusoids added
    assert (own.prediction, added.prediction) == ("how", "much")
    assert (own.loss, added.loss) == pytest.approx((3.2011567867910435, 1.8512120262219323), abs=1e-12)


def test_a_norm_with_gains_or_a_learned_table_cannot_be_switched(llama):
    with pytest.raises(ValueError, match="gains"):
        defaults(llama.cfg).toggled("norm_kind", cfg=llama.cfg)
    with pytest.raises(ValueError, match="norm"):
        run_config(llama.cfg, Switches(norm_kind="layer"))
    with pytest.raises(ValueError, match="must be one of"):
        Switches(positions="spiral")


def test_logit_attribution_reads_the_switched_norm(chapter):
    """Under RMSNorm the final norm takes no mean away: the parts still add up to each logit."""
    t = run(chapter.params, chapter.prompt, chapter.target, Switches(norm_kind="rms"))
    split = attribution(chapter.params, t)
    assert split.exact and split.tokens
    for part in split.tokens.values():
        assert sum(part.parts.values()) == pytest.approx(part.logit, abs=1e-12)
