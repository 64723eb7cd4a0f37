"""Training a Llama-family model: the corpus gradient (every position's next token through RMSNorm, W_U
and the gated feed-forward) matches finite differences of the corpus loss, and training lowers it."""

import numpy as np
import pytest

from tests.model.reference_backward import MODERN, random_model
from tinytui.model.training import corpus
from tinytui.model.training.corpus import line_gradients, line_loss

H = 1e-6


@pytest.mark.parametrize("name", list(MODERN))
def test_the_line_gradient_matches_finite_differences(name):
    shape, choices = MODERN[name]
    params, prompt, target = random_model(*shape, **choices)
    tokens = (*prompt, target)
    grads = line_gradients(params, tokens).params
    assert set(grads) == set(params)
    for param in params:
        arr = params[param]
        for index in {(0,) * arr.ndim, tuple(n - 1 for n in arr.shape)}:  # a first and a last entry
            up = line_loss(params.with_edit(param, index, arr[index] + H), tokens)
            down = line_loss(params.with_edit(param, index, arr[index] - H), tokens)
            fd = (up - down) / (2 * H)
            assert abs(grads[param][index] - fd) <= 1e-6 * abs(fd) + 5e-9, (param, index)


def test_training_lowers_the_corpus_loss():
    shape, choices = MODERN["random-qwen2"]
    params, _, _ = random_model(*shape, **choices)
    vocab = params.cfg.vocab
    lines = corpus.read_lines(
        "\n".join(" ".join(vocab[(i + k) % len(vocab)] for k in range(4)) for i in range(6))
    )
    before = corpus.corpus_loss(params, lines)
    trained = corpus.train(params, lines, steps=15, lr=0.1, kind="adam", batch=6)
    after = corpus.corpus_loss(trained.params, lines)
    assert after < 0.7 * before and np.isfinite(after)
