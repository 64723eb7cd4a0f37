"""The every-position loss of model/training/corpus.py: its hand-written backward against central finite
differences, on the chapter model and random models, with the tolerance of test_backward.py.

The reference is test_backward's independent forward pass (checked there against model.trace), with the
top done here apart from corpus.py: z_p = LN(y_p) for every row p, logits = z Eᵀ, and the mean over
positions of −log softmax(logits_p)[next token].
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.model.reference_backward import GPT2, RANDOM, SWITCHES, H, assert_matches_fd, forward, random_model
from tinytui.model.backward.gradients import gradients
from tinytui.model.switches import Switches
from tinytui.model.trace import run
from tinytui.model.training.corpus import (
    Line,
    batch_gradients,
    check_lines,
    corpus_loss,
    line_gradients,
    line_loss,
    new_tokens,
    read_lines,
    train,
)

CHAPTER_LINES = (
    ("how", "much", "wood", "would", "a", "woodchuck", "chuck", "."),
    ("a", "woodchuck", "would", "chuck", "wood"),
)
CASES = ("default", "all changed", "post-norm", "GELU", "head 2 ablated")


def reference_losses(arrays, cfg, tokens, sw: Switches, nudge=None) -> np.ndarray:
    """The line's every-position loss for each run of a (nudged) batch, from test_backward.forward."""
    nodes, _ = forward(arrays, cfg, tokens[:-1], tokens[-1], sw, nudge)
    y = nodes[f"blocks.{cfg.n_blocks - 1}.y"]  # (B, T, d)
    mu = y.mean(axis=-1, keepdims=True)
    z = (y - mu) / np.sqrt(((y - mu) ** 2).mean(axis=-1, keepdims=True) + cfg.eps)
    if cfg.norm_affine:  # GPT-2's final norm has a gain and a bias
        g, b = (arrays[n][None] + (nudge[1] if nudge and nudge[0] == n else 0.0) for n in ("lnf_g", "lnf_b"))
        z = z * g[:, None] + b[:, None]
    E = arrays["E"][None]
    if nudge and nudge[0] == "E":
        E = E + nudge[1]
    logits = np.einsum("btd,bvd->btv", z, E)
    top = logits.max(axis=-1, keepdims=True)
    lse = np.log(np.exp(logits - top).sum(axis=-1)) + top[..., 0]  # (B, T)
    nxt = [cfg.vocab.index(t) for t in tokens[1:]]
    picked = logits[:, np.arange(len(nxt)), nxt]
    return (lse - picked).mean(axis=-1)


def fd(arrays, cfg, tokens, sw, name, shape) -> np.ndarray:
    n = int(np.prod(shape))
    deltas = np.concatenate([np.eye(n), -np.eye(n)]).reshape(2 * n, *shape) * H
    losses = np.broadcast_to(reference_losses(arrays, cfg, tokens, sw, (name, deltas)), (2 * n,))
    return ((losses[:n] - losses[n:]) / (2 * H)).reshape(shape)


@pytest.fixture(scope="module", params=["chapter-long", "chapter-short", *RANDOM, *GPT2])
def line(request, chapter):
    if request.param.startswith("chapter"):
        return chapter.params, CHAPTER_LINES[request.param == "chapter-short"]
    if request.param in GPT2:
        dims, switches = GPT2[request.param]
        params, prompt, target = random_model(*dims, **switches)
    else:
        params, prompt, target = random_model(*RANDOM[request.param])
    return params, (*prompt, target)


@pytest.fixture(params=CASES)
def case(request, line):
    params, tokens = line
    sw = SWITCHES[request.param]
    return params, tokens, sw, line_gradients(params, tokens, sw)


def test_reference_loss_is_the_modules(case):
    params, tokens, sw, lg = case
    ref = reference_losses(dict(params), params.cfg, tokens, sw)[0]
    assert lg.loss == pytest.approx(ref, abs=1e-12)
    assert line_loss(params, tokens, sw) == lg.loss


def test_every_parameter_gradient_matches_finite_differences(case):
    params, tokens, sw, lg = case
    assert list(lg.params) == list(params)
    for name in params:
        g = lg.params[name]
        assert g.shape == params[name].shape
        assert_matches_fd(g, fd(dict(params), params.cfg, tokens, sw, name, g.shape), lg.loss, name)


def test_every_intermediate_gradient_matches_finite_differences(case):
    params, tokens, sw, lg = case
    nodes, _ = forward(dict(params), params.cfg, tokens[:-1], tokens[-1], sw)
    checked = 0
    for name in nodes:
        if name in ("z", "logits"):  # the stepper's last-position top, not this loss's
            continue
        g = lg.tensors[name]
        assert_matches_fd(g, fd(dict(params), params.cfg, tokens, sw, name, g.shape), lg.loss, name)
        checked += 1
    learned = params.cfg.positions == "learned"  # pe is a node too
    assert checked == 2 + learned + params.cfg.n_blocks * (8 + 6 * params.cfg.n_heads)


def test_every_row_of_y_reaches_the_loss(case):
    params, tokens, _, lg = case
    last_y = lg.tensors[f"blocks.{params.cfg.n_blocks - 1}.y"]
    assert np.all(np.abs(last_y).sum(axis=-1) > 0)  # the stepper's loss reaches only the last row
    assert lg.logits.shape == (len(tokens) - 1, params.cfg.n_vocab)


def test_a_two_token_line_is_the_steppers_loss(chapter):
    """One position: the every-position loss is the chapter's loss, and so is its gradient."""
    for params, prompt, target in (
        (chapter.params, ("a",), "woodchuck"),
        (random_model(*RANDOM["random-2blocks"])[0], ("t1",), "t3"),
    ):
        lg = line_gradients(params, (*prompt, target))
        steppers = gradients(params, run(params, prompt, target))
        assert lg.loss == pytest.approx(steppers.loss, abs=1e-14)
        for name in params:
            np.testing.assert_allclose(lg.params[name], steppers.param(name), rtol=0, atol=1e-14)


def test_a_batch_loss_is_per_token_over_its_lines(chapter):
    """7 + 4 predicted tokens: the batch's loss and gradient are the mean over those 11, so the longer
    line weighs 7/11, not 1/2 (a mean of the lines' means would be a different number)."""
    loss, grads = batch_gradients(chapter.params, CHAPTER_LINES)
    each = [line_gradients(chapter.params, t) for t in CHAPTER_LINES]
    per_token = (7 * each[0].loss + 4 * each[1].loss) / 11
    assert loss == pytest.approx(per_token, abs=1e-14)
    assert abs(loss - np.mean([lg.loss for lg in each])) > 1e-3
    for name in chapter.params:
        mean = (7 * each[0].params[name] + 4 * each[1].params[name]) / 11
        np.testing.assert_allclose(grads[name], mean, rtol=0, atol=1e-15)
    lines = [Line(n, t) for n, t in enumerate(CHAPTER_LINES, 1)]
    assert corpus_loss(chapter.params, lines) == pytest.approx(per_token, abs=1e-14)


def test_the_batch_loss_is_the_mean_of_every_positions_cross_entropy(chapter):
    """Straight from the definition: −log p(next token) at every position of every line, averaged."""
    terms = []
    for tokens in CHAPTER_LINES:
        for p in range(1, len(tokens)):
            each = line_gradients(chapter.params, tokens[: p + 1])
            probs = np.exp(each.logits[-1] - each.logits[-1].max())
            probs /= probs.sum()
            terms.append(-np.log(probs[chapter.cfg.token_id(tokens[p])]))
    assert batch_gradients(chapter.params, CHAPTER_LINES)[0] == pytest.approx(np.mean(terms), abs=1e-12)


# ---- reading a corpus and training on it ------------------------------------------------------------


def test_read_lines_and_check_lines():
    lines = read_lines("a woodchuck would\n\n  how much wood .  \n")
    assert [(ln.number, ln.tokens) for ln in lines] == [
        (1, ("a", "woodchuck", "would")),
        (3, ("how", "much", "wood", ".")),
    ]
    assert new_tokens(read_lines("a beaver would chew a log\n"), ("a", "would")) == ("beaver", "chew", "log")
    for text, why in [
        ("a b\nwood\n", "line 2: one token"),
        ("\n \n", "no lines"),
        ("a \x1b b\n", "line 1: token"),
    ]:
        with pytest.raises(ValueError, match=why):
            read_lines(text)
    with pytest.raises(ValueError, match="line 3: 'beaver' is not in the model's vocabulary"):
        check_lines(read_lines("a wood\n\na beaver\n"), ("a", "wood"), 16)
    with pytest.raises(ValueError, match="line 1: 4 tokens is longer than the model's context"):
        check_lines(read_lines("a a a a\n"), ("a",), 2)
    check_lines(read_lines("a a a\n"), ("a",), 2)  # n_ctx + 1 tokens: n_ctx positions


def test_training_lowers_the_loss_and_is_reproducible(chapter):
    lines = read_lines("a woodchuck would chuck wood .\nhow much wood would a woodchuck chuck .\n")
    for kind, lr in (("adam", 0.05), ("sgd", 0.5)):
        one = train(chapter.params, lines, 20, lr, kind, batch=1, seed=2)
        assert one.loss_after < one.loss_before and len(one.losses) == 20
        assert train(chapter.params, lines, 20, lr, kind, batch=1, seed=2).params == one.params
        assert train(chapter.params, lines, 20, lr, kind, batch=1, seed=3).params != one.params
    assert corpus_loss(one.params, lines) == one.loss_after


def test_training_refuses_bad_arguments_and_overflow(chapter):
    lines = read_lines("a woodchuck would chuck wood .\n")
    for args, why in [
        ((0, 0.1), "steps"),
        ((5, 0), "learning rate"),
        ((5, 0.1, "rmsprop"), "not an optimizer"),
    ]:
        with pytest.raises(ValueError, match=why):
            train(chapter.params, lines, *args)
    with pytest.raises(ValueError, match="batch"):
        train(chapter.params, lines, 5, 0.1, batch=0)
    huge = chapter.params.with_arrays({"E": chapter.params["E"] * 1e308})  # the forward pass overflows
    with pytest.raises(ValueError, match=r"step 1 of 5 overflows at lr 0\.1"):
        train(huge, lines, 5, 0.1, "sgd")
