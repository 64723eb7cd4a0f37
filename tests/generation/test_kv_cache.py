"""The new position's pass with the KV cache equals the full recompute's last row, to 1e-12, on the
chapter's model, a random model of three blocks and the tiny GPT-2, under the switches; and the cache is
refused exactly where it would be wrong (no mask, several blocks)."""

from dataclasses import replace

import numpy as np
import pytest

from tests.generation.models import NAMES, cases
from tinytui.model.generation import kv_cache
from tinytui.model.names import prefix
from tinytui.model.switches import Switches, defaults
from tinytui.model.trace import run

TOL = 1e-12

VARIANTS = {
    "default": {},
    "post-norm": {"norm": "post"},
    "no residual": {"residual": False},
    "head 2 ablated": {"ablated_heads": frozenset({2})},
    "other activation": {"activation": "relu"},
    "no PE": {"positional_encoding": False},
}


def _switches(case, variant: str) -> Switches:
    sw = defaults(case.params.cfg)
    changes = dict(VARIANTS[variant])
    if changes.get("activation") == sw.activation:
        changes["activation"] = "gelu"
    return replace(sw, **changes)


def _close(a, b, what: str) -> None:
    assert a.shape == b.shape, what
    worst = float(np.max(np.abs(a - b))) if a.size else 0.0
    assert worst <= TOL, f"{what}: {worst:.3g}"


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("name", NAMES)
def test_the_new_rows_equal_the_full_recompute(name, variant):
    case = cases()[name]
    cfg, sw = case.params.cfg, _switches(case, variant)
    token = cfg.vocab[7]
    before = run(case.params, case.prompt, case.target, sw)
    full = run(case.params, (*case.prompt, token), case.target, sw)
    new = kv_cache.extend(case.params, kv_cache.from_trace(before), token, sw)
    assert new.position == len(case.prompt)
    assert len(new.rows) == 4 + cfg.n_blocks * (8 + 6 * cfg.n_heads)  # x, z, logits, probs; each block
    for key, row in new.rows.items():
        whole = full[key]
        _close(row, whole if key in ("z", "logits", "probs") else whole[-1], key)
    for b in range(cfg.n_blocks):
        for h in range(cfg.n_heads):
            for c, held in (("k", new.cache.keys), ("v", new.cache.values)):
                _close(held[b][h], full[f"{prefix(b)}{c}.{h + 1}"], f"{prefix(b)}{c}.{h + 1} cached")
    assert new.cache.length == len(case.prompt) + 1


@pytest.mark.parametrize("name", NAMES)
def test_the_earlier_rows_are_reused_not_recomputed(name):
    """The cache extended is the earlier arrays themselves, row for row, and only one row is new."""
    case = cases()[name]
    before = run(case.params, case.prompt, case.target)
    cache = kv_cache.from_trace(before)
    new = kv_cache.extend(case.params, cache, case.params.cfg.vocab[2], before.switches)
    T = len(case.prompt)
    assert all(k.shape[0] == T + 1 for block in new.cache.keys for k in block)
    assert np.array_equal(new.cache.keys[-1][0][:T], cache.keys[-1][0])  # the reused rows, bit for bit
    assert new.rows[f"{prefix(0)}q.1"].shape == (case.params.cfg.d_head,)  # one row of Q, not T + 1


def test_without_the_mask_one_block_still_holds():
    case = cases()["chapter"]
    sw = Switches(causal_mask=False)
    before = run(case.params, case.prompt, case.target, sw)
    full = run(case.params, (*case.prompt, "wood"), case.target, sw)
    new = kv_cache.extend(case.params, kv_cache.from_trace(before), "wood", sw)
    _close(new.logits, full["logits"], "logits")


def test_without_the_mask_several_blocks_are_refused_because_they_change():
    case = cases()["random"]
    sw = replace(defaults(case.params.cfg), causal_mask=False)
    before = run(case.params, case.prompt, case.target, sw)
    full = run(case.params, (*case.prompt, "t1"), case.target, sw)
    # what a cache would have reused is wrong: block 2's K rows of the earlier positions moved
    moved = np.max(np.abs(full["blocks.1.k.1"][:-1] - before["blocks.1.k.1"]))
    assert moved > 1e-3
    assert not kv_cache.reusable(case.params.cfg, sw)
    with pytest.raises(ValueError, match=r"^without the causal mask every earlier position attends"):
        kv_cache.extend(case.params, kv_cache.from_trace(before), "t1", sw)


def test_learned_positions_end_at_the_context():
    case = cases()["tiny-gpt2"]
    cfg = case.params.cfg
    prompt = tuple(cfg.vocab[i] for i in range(10, 10 + cfg.n_ctx))
    trace = run(case.params, prompt, case.target)
    with pytest.raises(ValueError, match=f"^position {cfg.n_ctx} is past the model's {cfg.n_ctx} learned"):
        kv_cache.extend(case.params, kv_cache.from_trace(trace), cfg.vocab[3], trace.switches)
