"""Decoding one token at a time with the cache's buffers gives the full forward's logits at every
position, within 1e-12 (the decode multiplies one row where the full pass multiplies all of them, so
the sums may round differently in the last bits), on the tiny GPT-2 and the tiny Llama (4 query heads
over 2 key/value heads, rotary positions); the buffers grow when full, and a cache extended twice
(two continuations of one prompt) leaves each continuation its own rows."""

from functools import cache

import numpy as np
import pytest

from tests.gpt2.checkpoints import TINY
from tests.llama.checkpoints import LLAMA
from tinytui.model.generation import kv_cache
from tinytui.model.io.checkpoint import load_checkpoint
from tinytui.model.names import prefix
from tinytui.model.switches import defaults
from tinytui.model.trace import run

TOL = 1e-12
FOLDERS = {"tiny-gpt2": TINY, "tiny-llama": LLAMA}


@cache
def model(name: str):
    return load_checkpoint(FOLDERS[name])


def _worst(a: np.ndarray, b: np.ndarray) -> float:
    assert a.shape == b.shape
    return float(np.max(np.abs(a - b)))


@pytest.mark.parametrize("name", FOLDERS)
def test_every_position_decoded_equals_the_full_forward(name):
    m = model(name)
    params, cfg = m.params, m.cfg
    sw = defaults(cfg)
    seq = [*m.prompt, m.target, *(cfg.vocab[i] for i in (5, 40, 7, 99, 12, 3, 61))]
    cache_ = kv_cache.from_trace(run(params, seq[:1], m.target, sw), room=2)  # full after two: it grows
    for p in range(1, len(seq)):
        new = kv_cache.extend(params, cache_, seq[p], sw)
        full = run(params, seq[: p + 1], m.target, sw)
        assert new.position == p and new.cache.length == p + 1
        assert _worst(new.logits, full["logits"]) <= TOL, f"position {p}"
        for b in range(cfg.n_blocks):
            for g in range(cfg.n_kv_heads):
                for c, held in (("k", new.cache.keys), ("v", new.cache.values)):
                    assert _worst(held[b][g], full[f"{prefix(b)}{c}.{g + 1}"]) <= TOL, (p, b, c, g)
        cache_ = new.cache
    assert cache_.rows.capacity >= len(seq) > 3  # it grew past the two rows of room it started with
    assert cfg.n_kv_heads == (2 if name == "tiny-llama" else cfg.n_heads)


@pytest.mark.parametrize("name", FOLDERS)
def test_two_continuations_of_one_cache_keep_their_own_rows(name):
    m = model(name)
    params, cfg = m.params, m.cfg
    sw = defaults(cfg)
    start = kv_cache.from_trace(run(params, m.prompt, m.target, sw), room=4)
    a, b = (kv_cache.extend(params, start, cfg.vocab[i], sw) for i in (11, 23))
    a2 = kv_cache.extend(params, a.cache, cfg.vocab[30], sw)  # a's rows after b wrote its own
    for new, tail in ((a, (11,)), (b, (23,)), (a2, (11, 30))):
        full = run(params, (*m.prompt, *(cfg.vocab[i] for i in tail)), m.target, sw)
        assert _worst(new.logits, full["logits"]) <= TOL
        assert _worst(new.cache.keys[-1][-1], full[f"{prefix(cfg.n_blocks - 1)}k.{cfg.n_kv_heads}"]) <= TOL
    assert start.length == len(m.prompt) and start.keys[0][0].shape[0] == len(m.prompt)
    with pytest.raises(ValueError):
        a.cache.keys[0][0][0, 0] = 1.0  # the rows a cache hands out cannot be written through
