"""The diffs of tensors a change did not move are shared through the Unchanged a session passes (no
cache at module level): the same outcomes as a diff without one, read-only zeros, an undo's diff the
same cells the other way round; and the step list's counts, with the names each step writes kept by
the one who asks, are the counts worked out afresh, for models of different shapes sharing one store."""

import numpy as np
import pytest

from tests.model.reference_backward import random_model
from tinytui.lesson.arch_names import Arch
from tinytui.lesson.step_path import changed_per_step
from tinytui.model.diff import Unchanged, diff, turned
from tinytui.model.trace import run


def _edited(chapter, name, index, value):
    return run(chapter.params.with_edit(name, index, value), chapter.prompt, chapter.target)


def _same(a, b):
    assert a.tensors.keys() == b.tensors.keys()
    for name, x in a.tensors.items():
        y = b[name]
        assert (x.n_changed, x.reshaped) == (y.n_changed, y.reshaped), name
        assert np.array_equal(x.changed, y.changed) and np.array_equal(x.delta, y.delta), name


def test_a_shared_unchanged_gives_the_diffs_a_diff_alone_gives(chapter, trace):
    shared = Unchanged()
    for name, index, value in (("blocks.0.b_2", (0,), 0.5), ("blocks.0.W_O", (1, 2), -0.25)):
        after = _edited(chapter, name, index, value)
        made = diff(trace, after, unchanged=shared)
        _same(made, diff(trace, after))
        _same(turned(made, trace), diff(after, trace))
        kept = made["blocks.0.x_norm"]  # the b_2 edit and the W_O edit move nothing before them
        assert kept.n_changed == 0 and not kept.delta.any() and not kept.changed.any()
        with pytest.raises(ValueError):  # the shared zeros cannot be written through
            kept.delta[0, 0] = 1.0


def test_counts_with_kept_names_are_the_counts_worked_out_for_every_shape():
    written: dict = {}
    for seed, heads, blocks in ((0, 2, 1), (1, 2, 3), (2, 4, 2)):
        params, prompt, target = random_model(seed, 8, heads, 8 // heads, 8, 7, blocks, 4)
        before = run(params, prompt, target)
        after = run(params.with_edit("blocks.0.W_O", (0, 0), 0.5), prompt, target)
        d, cfg = diff(before, after), params.cfg
        fresh = changed_per_step(d, cfg.n_heads, cfg.n_blocks, Arch.of(cfg))
        for _ in range(2):  # the store made, then read
            assert changed_per_step(d, cfg.n_heads, cfg.n_blocks, Arch.of(cfg), written) == fresh
        assert sum(fresh.values()) > 0
