"""Step 16 counts exactly the parameters a config has: the chapter's 172, GPT-2 small's 124,439,808."""

from __future__ import annotations

import itertools
import math

import pytest

from tests.random_models import config
from tinytui.model import count
from tinytui.model.params import param_shapes

GPT2_SWITCHES = {"positions": "learned", "norm_affine": True, "attn_bias": True, "activation": "gelu"}


def gpt2_small():
    """GPT-2 small's shapes and architecture; no weights are needed to count them."""
    return config(768, 12, 64, 3072, 50257, blocks=12, n_ctx=1024, **GPT2_SWITCHES)


def test_gpt2_small_is_counted_exactly():
    cfg = gpt2_small()
    assert count.this_model(cfg).total() == 124_439_808
    assert sum(math.prod(s) for s in param_shapes(cfg).values()) == 124_439_808
    comps = count.this_model(cfg).components()
    assert comps["P"] == 1024 * 768
    assert comps["b_Q/b_K/b_V/b_O"] == 12 * 4 * 768
    assert comps["LN gains and biases"] == 25 * 2 * 768
    # the reference rows are counted with the same terms, so GPT-2 small's row is the same model
    sizes = {s.name: s for s in count.four_sizes(cfg)}
    assert sizes["GPT-2 small"].total() == 124_439_808
    assert list(sizes["GPT-3"].components()) == list(comps)
    assert (
        count.formula(cfg) == "V·d + n_ctx·d + N·(3d² + d² + d·d_ff + d_ff + d_ff·d + d + 3d + d + 4d) + 2d"
    )
    assert "Every parameter is counted" in count.left_out(cfg)


def test_the_chapters_count_is_unchanged(chapter):
    cfg = chapter.cfg
    assert count.formula(cfg) == count.FORMULA
    assert [s.total() for s in count.four_sizes(cfg)][:2] == [172, 123_578_112]


def test_what_the_formula_leaves_out_is_counted_for_every_size_shown(chapter):
    """Not "a few per cent at GPT scale": the parts left out are 0.69% of GPT-2 small (its real count,
    from its parameter shapes, less the formula's), 0.02% of GPT-3, and 38% of the chapter's model with a
    16-row position table."""
    said = count.left_out(chapter.cfg)
    real = sum(math.prod(s) for s in param_shapes(gpt2_small()).values())
    assert real - 123_578_112 == 861_696
    assert f"861,696 to GPT-2 small (0.69% of {real:,})" in said, said
    chapter_extra = 3 * 4 + 4 + 3 * 2 * 4 + 16 * 4  # b_Q, b_K, b_V, b_O; 3 norms gain and bias; P 16 × 4
    assert f"{chapter_extra} to this model (38% of {172 + chapter_extra}, n_ctx 16)" in said, said
    gpt3_extra = 96 * 4 * 12288 + 193 * 2 * 12288 + 2048 * 12288
    assert f"{gpt3_extra:,} to GPT-3 (0.020% of " in said, said
    assert "a few per cent" not in said


@pytest.mark.parametrize(
    "positions, norm_affine, attn_bias",
    itertools.product(("sinusoid", "learned"), (False, True), (False, True)),
)
def test_every_mix_counts_what_the_params_hold(positions, norm_affine, attn_bias):
    # heads 3 × 2 wide: not d_model, so the attention biases' d_attn terms are checked too
    cfg = config(
        5, 3, 2, 7, 11, blocks=2, n_ctx=9, positions=positions, norm_affine=norm_affine, attn_bias=attn_bias
    )
    total = sum(math.prod(s) for s in param_shapes(cfg).values())
    assert count.this_model(cfg).total() == total
    said = count.left_out(cfg)
    assert ("biases on Q, K, V" in said) == (not attn_bias) or "Every parameter" in said
