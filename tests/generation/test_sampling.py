"""Sampling: greedy at temperature 0, temperature, top-k and top-p in Hugging Face's order, the draw from
the named generator (the same numbers on every machine), and one-line refusals."""

import numpy as np
import pytest
from numpy.random import PCG64, Generator

from tinytui.model import checks, ops
from tinytui.model.generation import sampling
from tinytui.model.generation.sampling import Sampling, distribution, draw_token, pick, uniform

# Four tokens of probabilities 0.1, 0.5, 0.15, 0.25 (vocabulary order), as logits.
P4 = np.array([0.1, 0.5, 0.15, 0.25])
L4 = np.log(P4)


def test_the_draw_is_pcg64_at_the_position_bit_for_bit():
    stream = Generator(PCG64(7)).random(10)
    assert [uniform(7, p) for p in range(10)] == list(stream)
    # pinned: PCG64 and Generator.random are integer arithmetic, so these are every machine's numbers
    assert uniform(0, 0).hex() == "0x1.461fd79fb3850p-1"  # 0.6369616873214543, default_rng(0).random()
    assert uniform(1, 4).hex() == "0x1.3f50be80ff35cp-2"
    assert uniform(2**63 - 1, 0) != uniform(0, 0)


def test_the_global_generator_is_left_alone():
    np.random.seed(5)
    before = np.random.get_state()[1].copy()
    pick(L4, Sampling(1.0, seed=3), 2)
    assert np.array_equal(np.random.get_state()[1], before)


def test_temperature_zero_is_greedy_one_hot_and_no_draw():
    chosen = pick(L4, Sampling(0.0), 4)
    assert chosen.token == 1 and chosen.draw is None
    assert list(chosen.probs) == [0.0, 1.0, 0.0, 0.0]
    np.testing.assert_allclose(chosen.before, P4, rtol=0, atol=1e-15)


def test_greedy_ties_go_to_the_lower_id():
    assert pick(np.array([1.0, 3.0, 3.0, 2.0]), Sampling(), 0).token == 1


def test_temperature_divides_the_logits():
    for t in (0.5, 1.0, 2.0):
        np.testing.assert_allclose(distribution(L4, Sampling(t)), ops.softmax(L4 / t), rtol=0, atol=1e-15)
    # a tiny temperature is greedy in effect, without overflow or NaN
    assert list(distribution(L4, Sampling(1e-300))) == [0.0, 1.0, 0.0, 0.0]


def test_top_k_keeps_the_k_likeliest_renormalised():
    got = distribution(L4, Sampling(1.0, top_k=2))
    np.testing.assert_allclose(got, [0, 0.5 / 0.75, 0, 0.25 / 0.75], rtol=0, atol=1e-15)
    assert np.count_nonzero(distribution(L4, Sampling(1.0, top_k=4))) == 4


@pytest.mark.parametrize(
    ("p", "kept"), [(0.4, [1]), (0.7, [1, 3]), (0.8, [1, 3, 2]), (0.95, [1, 3, 2, 0]), (1.0, [0, 1, 2, 3])]
)
def test_top_p_keeps_the_smallest_set_reaching_p(p, kept):
    got = distribution(L4, Sampling(1.0, top_p=p))
    assert sorted(np.flatnonzero(got)) == sorted(kept)
    np.testing.assert_allclose(got[kept], P4[kept] / P4[kept].sum(), rtol=0, atol=1e-15)


def test_top_k_comes_before_top_p():
    # top-k 3 leaves 0.5, 0.25, 0.15 → 0.556, 0.278, 0.167; top-p 0.8 then keeps the first two (0.833)
    got = distribution(L4, Sampling(1.0, top_k=3, top_p=0.8))
    np.testing.assert_allclose(got, [0, 2 / 3, 0, 1 / 3], rtol=0, atol=1e-15)


def test_the_draw_walks_the_distribution_in_vocabulary_order():
    probs = np.array([0.0, 0.25, 0.0, 0.25, 0.5])
    assert [draw_token(probs, u) for u in (0.0, 0.2499, 0.25, 0.4999, 0.5, 0.9999999)] == [1, 1, 3, 3, 4, 4]


def test_the_drawn_token_is_the_one_the_number_decides():
    s = Sampling(1.0, seed=11)
    for position in range(20):
        chosen = pick(L4, s, position)
        u = uniform(11, position)
        assert chosen.draw == u
        edges = np.cumsum(P4)
        assert chosen.token == int(np.sum(edges <= u))  # the first token whose running total passes u


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((-0.1, None, 1.0, 0), "temperature -0.1 is below 0 (0 is greedy; 0.7, 1 or 1.5 sample)"),
        (("warm", None, 1.0, 0), "temperature: 'warm' is not a number (try 0.5, -1, 1e-3 or 1/2)"),
        ((float("nan"), None, 1.0, 0), "temperature: nan is not a finite number"),
        ((1.0, 0, 1.0, 0), "top-k 0 is outside 1–4 (the vocabulary has 4 tokens)"),
        ((1.0, 5, 1.0, 0), "top-k 5 is outside 1–4 (the vocabulary has 4 tokens)"),
        ((1.0, "2.5", 1.0, 0), "top-k: '2.5' is not a whole number"),
        ((1.0, None, 0, 0), "top-p 0 is outside (0, 1]: 0.9 keeps the likeliest tokens up to 90%"),
        ((1.0, None, 1.5, 0), "top-p 1.5 is outside (0, 1]: 0.9 keeps the likeliest tokens up to 90%"),
        ((1.0, None, "-0.2", 0), "top-p -0.2 is outside (0, 1]: 0.9 keeps the likeliest tokens up to 90%"),
        ((1.0, None, 1.0, -1), "seed -1 is outside 0–9223372036854775807"),
    ],
)
def test_refusals_are_one_line(args, message):
    with pytest.raises(checks.Invalid) as caught:
        sampling.checked(*args, n_vocab=4)
    assert str(caught.value) == message


def test_typed_values_are_accepted():
    assert sampling.checked("0.8", "3", "9/10", "42", n_vocab=4) == Sampling(0.8, 3, 0.9, 42)
    assert Sampling(0.8, 3, 0.9, 42).describe() == "T 0.8 · top-k 3 · top-p 0.9 · seed 42"
    assert Sampling().describe() == "greedy"
