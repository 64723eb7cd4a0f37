"""The logit lens and activation patching: checked against the plain reference forward on random models,
and by what must hold whatever the weights (the lens's last point is the prediction; a run patched with
itself is itself; a whole block input patched in is the clean run)."""

import numpy as np
import pytest

from tests.model.reference_backward import GPT2, RANDOM, forward, random_model
from tinytui.model.analysis.lens import logit_lens, stream_names
from tinytui.model.analysis.patching import block_input, metric, patch
from tinytui.model.io.model_file import load
from tinytui.model.io.presets import resolve
from tinytui.model.switches import defaults
from tinytui.model.trace import run

MODELS = {**{k: (v, {}) for k, v in RANDOM.items()}, **GPT2}


@pytest.fixture(params=sorted(MODELS))
def model(request):
    shape, more = MODELS[request.param]
    return random_model(*shape, **more)


def reference_probs(params, stream_row):
    """The final norm and the unembedding, written out by hand."""
    cfg = params.cfg
    mu = stream_row.mean()
    z = (stream_row - mu) / np.sqrt(((stream_row - mu) ** 2).mean() + cfg.eps)
    if cfg.norm_affine:
        z = z * params["lnf_g"] + params["lnf_b"]
    logits = params["E"] @ z
    e = np.exp(logits - logits.max())
    return e / e.sum()


def test_the_lens_reads_every_point_as_the_reference_does(model):
    params, prompt, target = model
    switches = defaults(params.cfg)
    trace = run(params, prompt, target, switches)
    nodes, _ = forward({n: params[n] for n in params}, params.cfg, prompt, target, switches)
    points = logit_lens(trace, params)
    assert [(p.block, p.at) for p in points] == [
        (b + 1, at) for b in range(params.cfg.n_blocks) for at in ("pre", "mid", "post")
    ]
    for point in points:
        expected = reference_probs(params, nodes[point.stream][0, -1])
        np.testing.assert_allclose(point.probs, expected, rtol=1e-12, atol=1e-15)
        assert abs(point.probs.sum() - 1) < 1e-12


def test_the_last_point_is_the_prediction_bit_for_bit(model):
    params, prompt, target = model
    trace = run(params, prompt, target)
    last = logit_lens(trace, params)[-1]
    assert (last.block, last.at) == (params.cfg.n_blocks, "post")
    assert last.probs.tobytes() == trace["probs"].tobytes()
    assert last.logits.tobytes() == trace["logits"].tobytes()


def test_the_chapter_lens_says_wood_at_every_point():
    chapter = load(resolve("chapter17"))
    trace = run(chapter.params, chapter.prompt, chapter.target)
    points = logit_lens(trace, chapter.params)
    vocab = trace.cfg.vocab
    assert [p.top(vocab, 1)[0][0] for p in points] == ["wood", "wood", "wood"]
    assert round(points[0].top(vocab, 1)[0][1], 4) == 0.3647  # the embedding alone, before the block
    assert round(points[-1].top(vocab, 1)[0][1], 4) == 0.3107  # the chapter's printed p(wood)
    assert stream_names(2)[3] == (2, "pre", "blocks.0.y")


def corrupted(params, prompt):
    """The prompt with its first token replaced by another token of the vocabulary."""
    vocab = params.cfg.vocab
    other = vocab[(vocab.index(prompt[0]) + 1) % len(vocab)]
    return (other, *prompt[1:])


def test_patching_matches_the_reference_forward_nudged_by_the_difference(model):
    params, prompt, target = model
    cfg = params.cfg
    foil = cfg.vocab[(cfg.vocab.index(target) + 1) % cfg.n_vocab]
    bad = corrupted(params, prompt)
    sw = defaults(cfg)
    arrays = {n: params[n] for n in params}
    clean_nodes, _ = forward(arrays, cfg, prompt, target, sw)
    bad_nodes, _ = forward(arrays, cfg, bad, target, sw)
    t, f = cfg.vocab.index(target), cfg.vocab.index(foil)

    def reference(name, rows=None):
        delta = clean_nodes[name] - bad_nodes[name]
        if rows is not None:
            keep = np.zeros_like(delta)
            keep[:, rows] = delta[:, rows]
            delta = keep
        logits = forward(arrays, cfg, bad, target, sw, (name, delta))[0]["logits"][0]
        return logits[t] - logits[f]

    result = patch(params, prompt, bad, target, foil)
    assert result.resid_pre.shape == (cfg.n_blocks, len(prompt))
    assert result.heads.shape == (cfg.n_blocks, cfg.n_heads)
    for b in range(cfg.n_blocks):
        for p in range(len(prompt)):
            assert result.resid_pre[b, p] == pytest.approx(reference(block_input(b), p), abs=1e-10)
        for h in range(cfg.n_heads):
            assert result.heads[b, h] == pytest.approx(reference(f"blocks.{b}.head.{h + 1}"), abs=1e-10)
    assert result.clean == pytest.approx(reference("x"), abs=1e-10)  # all of x: the clean run


def test_a_run_patched_with_itself_changes_nothing(model):
    params, prompt, target = model
    foil = params.cfg.vocab[0] if target != params.cfg.vocab[0] else params.cfg.vocab[1]
    result = patch(params, prompt, prompt, target, foil)
    assert result.clean == result.corrupt
    assert (result.resid_pre == result.clean).all() and (result.heads == result.clean).all()


def test_every_position_of_a_block_input_patched_in_is_the_clean_metric(model):
    params, prompt, target = model
    foil = params.cfg.vocab[0] if target != params.cfg.vocab[0] else params.cfg.vocab[1]
    bad = corrupted(params, prompt)
    clean, dirty = run(params, prompt, target), run(params, bad, target)
    for b in range(params.cfg.n_blocks):
        name = block_input(b)
        whole = run(params, bad, target, reuse=dirty, patch={name: lambda _, c=clean[name]: c})
        assert metric(whole, target, foil) == metric(clean, target, foil)
        assert whole["logits"].tobytes() == clean["logits"].tobytes()


def test_patching_refuses_prompts_of_different_lengths_and_unknown_tokens():
    chapter = load(resolve("chapter17"))
    p = chapter.params
    with pytest.raises(ValueError, match="same length"):
        patch(p, chapter.prompt, chapter.prompt[:-1], "wood", "chuck")
    with pytest.raises(ValueError, match="foil 'beaver' is not in the vocabulary"):
        patch(p, chapter.prompt, chapter.prompt, "wood", "beaver")


def test_a_patched_trace_is_never_taken_for_an_unpatched_one():
    chapter = load(resolve("chapter17"))
    p, prompt = chapter.params, chapter.prompt
    plain = run(p, prompt, "wood")
    zeros = run(p, prompt, "wood", reuse=plain, patch={"blocks.0.head.1": np.zeros_like})
    assert not zeros["blocks.0.head.1"].any() and zeros["logits"].tobytes() != plain["logits"].tobytes()
    again = run(p, prompt, "wood", reuse=zeros)  # the same inputs as zeros' head, but not patched
    assert again["logits"].tobytes() == plain["logits"].tobytes()
