"""N tokens one at a time: with the KV cache the same tokens and logits as recomputing everything, the
same seed the same tokens, the context length stops it with one line, and on the tiny GPT-2 the first
greedy token of each prompt is the one transformers' logits give (reference.json)."""

import numpy as np
import pytest

from tests.generation.models import NAMES, cases
from tests.gpt2.checkpoints import TINY, reference
from tinytui.model.generation.continuation import context_full, generate
from tinytui.model.generation.sampling import Sampling
from tinytui.model.io.checkpoint import load_checkpoint
from tinytui.model.switches import Switches, defaults
from tinytui.model.trace import run

SETTINGS = [
    Sampling(),
    Sampling(1.0, seed=3),
    Sampling(0.7, top_k=5, top_p=0.9, seed=12),
    Sampling(2.0, seed=1),
]


@pytest.mark.parametrize("sampling", SETTINGS, ids=Sampling.describe)
@pytest.mark.parametrize("name", NAMES)
def test_the_cache_gives_what_recomputing_everything_gives(name, sampling):
    case = cases()[name]
    sw = defaults(case.params.cfg)
    cached = generate(case.params, case.prompt, case.target, sw, 8, sampling)
    full = generate(case.params, case.prompt, case.target, sw, 8, sampling, use_cache=False)
    assert cached.cached and not full.cached
    assert cached.tokens == full.tokens and len(cached.tokens) == 8
    for a, b in zip(cached.picks, full.picks):
        assert np.max(np.abs(a.logits - b.logits)) <= 1e-12
        assert a.draw == b.draw and a.token == b.token


@pytest.mark.parametrize("name", NAMES)
def test_greedy_is_the_argmax_of_each_full_recompute(name):
    case = cases()[name]
    got = generate(case.params, case.prompt, case.target, defaults(case.params.cfg), 6, Sampling())
    seq = list(case.prompt)
    for token, chosen in zip(got.tokens, got.picks):
        logits = run(case.params, seq, case.target)["logits"]
        assert token == case.params.cfg.vocab[int(np.argmax(logits))]
        assert chosen.draw is None and chosen.position == len(seq)
        seq.append(token)


def test_the_same_seed_gives_these_tokens():
    """Pinned: the chapter's model at temperature 1, seed 3 (the draws are PCG64's, bit for bit)."""
    case = cases()["chapter"]
    got = generate(case.params, case.prompt, case.target, Switches(), 6, Sampling(1.0, seed=3))
    assert got.tokens == ("chuck", "much", "much", "chuck", "woodchuck", "chuck")
    again = generate(case.params, case.prompt, case.target, Switches(), 6, Sampling(1.0, seed=3))
    assert again.tokens == got.tokens
    other = generate(case.params, case.prompt, case.target, Switches(), 6, Sampling(1.0, seed=4))
    assert other.tokens != got.tokens


def test_three_then_two_is_five_at_once():
    case = cases()["random"]
    s, sw = Sampling(1.3, top_k=10, seed=99), defaults(case.params.cfg)
    five = generate(case.params, case.prompt, case.target, sw, 5, s)
    three = generate(case.params, case.prompt, case.target, sw, 3, s)
    two = generate(case.params, case.prompt + three.tokens, case.target, sw, 2, s)
    assert three.tokens + two.tokens == five.tokens


def test_without_the_mask_several_blocks_recompute_everything():
    case = cases()["random"]
    sw = Switches(causal_mask=False)
    got = generate(case.params, case.prompt, case.target, sw, 4, Sampling(1.0, seed=2))
    assert not got.cached
    seq = list(case.prompt)
    for chosen in got.picks:
        np.testing.assert_array_equal(chosen.logits, run(case.params, seq, case.target, sw)["logits"])
        seq.append(case.params.cfg.vocab[chosen.token])


def test_the_context_length_stops_with_one_line():
    case = cases()["chapter"]  # 4 tokens, n_ctx 16
    exactly = generate(case.params, case.prompt, case.target, Switches(), 12, Sampling())
    assert len(exactly.tokens) == 12 and exactly.stopped is None
    over = generate(case.params, case.prompt, case.target, Switches(), 13, Sampling())
    assert over.tokens == exactly.tokens
    assert (
        over.stopped == "stopped after 12 new tokens: the sequence fills the model's context of 16 positions"
    )
    assert (
        context_full(32, 1)
        == "stopped after 1 new token: the sequence fills the model's context of 32 positions"
    )


def test_zero_tokens_and_too_many_are_handled():
    case = cases()["chapter"]
    assert generate(case.params, case.prompt, case.target, Switches(), 0, Sampling()).tokens == ()
    with pytest.raises(ValueError, match=r"^1025 tokens: ask for 0 to 1024$"):
        generate(case.params, case.prompt, case.target, Switches(), 1025, Sampling())


@pytest.mark.parametrize("case", reference()["prompts"], ids=lambda c: repr(c["text"][:20]))
def test_the_tiny_gpt2s_first_greedy_token_is_transformers(case):
    """reference.json keeps transformers' float64 logits at each prompt's last position: its greedy
    choice is their argmax. (It holds no continuation longer than one token; longer ones are checked
    against a full recompute above.)"""
    tiny = load_checkpoint(TINY)
    prompt = tiny.prompt_pieces(case["text"])
    got = generate(tiny.params, prompt, case["target"], defaults(tiny.cfg), 3, Sampling())
    assert tiny.cfg.token_id(got.tokens[0]) == int(np.argmax(case["tensors"]["logits"]))
    assert tiny.tokenizer.text([*prompt, *got.tokens]).startswith(case["text"])
