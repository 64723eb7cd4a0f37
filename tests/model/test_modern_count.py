"""Step 16 counts a Llama-family model by its own formula, exactly what its parameters hold, and the real
models beside it match what their makers publish: SmolLM-135M, Llama 3.2 1B and Llama 3 8B (8.03 B);
GPT-2 small (124M) and GPT-3 (175B) by GPT-2's formula with every term on."""

from __future__ import annotations

import itertools
import math

import pytest

from tests.random_models import config
from tinytui.model import count
from tinytui.model.params import param_shapes


def llama_3_8b():
    """Llama 3 8B's config.json as a ModelConfig (no weights: counting needs only the shapes)."""
    return config(
        4096, 32, 128, 14336, 128256, blocks=32, norm="rms", norm_affine=True, positions="rope",
        n_kv_heads=8, activation="swiglu", tied=False, rope_theta=500000.0,
    )  # fmt: skip


def test_the_published_counts():
    assert count.LLAMA_3_8B.total() == 8_030_261_248  # "8.03B"
    assert count.SMOLLM_135M.total() == 134_515_008
    assert count.LLAMA_32_1B.total() == 1_235_814_400  # "1.24B"
    for size, published in count.PUBLISHED.values():
        digits, unit = float(published[:-1]), {"M": 1e6, "B": 1e9}[published[-1]]
        places = len(published[:-1].partition(".")[2])
        assert round(size.total() / unit, places) == digits, size.name
    assert count.PUBLISHED["GPT-2 small"][0].total() == 124_439_808
    assert count.PUBLISHED["GPT-3"][0].total() == 174_604_259_328


def test_llama_3_8b_from_its_config_is_the_row():
    cfg = llama_3_8b()
    assert sum(math.prod(s) for s in param_shapes(cfg).values()) == 8_030_261_248
    assert count.this_model(cfg).total() == 8_030_261_248
    assert count.this_model(cfg).components() == count.LLAMA_3_8B.components()
    assert count.formula(cfg) == "V·d + d·V + N·(d·(H + 2H_kv)·d_k + H·d_k·d + 3d·d_ff + 2d) + d"
    sizes = count.four_sizes(cfg)
    assert [s.name for s in sizes] == ["this model", "SmolLM-135M", "Llama-3.2-1B", "Llama-3-8B"]
    assert all(list(s.components()) == list(sizes[0].components()) for s in sizes)  # the columns line up
    said = count.left_out(cfg)
    assert "K and V are counted once per key/value head (8 for 32 query heads)" in said
    assert "W_U, not tied to E, adds V·d" in said


@pytest.mark.parametrize(
    "norm, activation, kv, tied, bias",
    itertools.product(
        ("layer", "rms"),
        ("relu", "swiglu"),
        (3, 1),
        (True, False),
        ((False, True), (True, False), (True, True)),
    ),
)
def test_every_mix_counts_what_the_params_hold(norm, activation, kv, tied, bias):
    attn_bias, out_bias = bias
    if not attn_bias:
        out_bias = True
    cfg = config(
        5, 3, 2, 7, 11, blocks=2, n_ctx=9, norm=norm, norm_affine=True, activation=activation,
        n_kv_heads=kv, tied=tied, attn_bias=attn_bias, attn_out_bias=out_bias, positions="rope",
    )  # fmt: skip
    total = sum(math.prod(s) for s in param_shapes(cfg).values())
    assert count.this_model(cfg).total() == total


def test_the_chapters_rows_are_unchanged(chapter):
    assert [s.name for s in count.four_sizes(chapter.cfg)] == [
        "this model",
        "GPT-2 small",
        "GPT-2 XL",
        "GPT-3",
    ]
    assert count.formula(chapter.cfg) == count.FORMULA


def test_the_four_sizes_formula_has_w_u_where_one_of_them_is_untied():
    """The table of four sizes is titled with the one formula they are counted by: beside a tied
    Llama-family model, Llama-3-8B (its own W_U) is counted with d·V, so the title carries that term as a
    condition, and the formula gives each size's total with it."""
    from tinytui.model.io.checkpoint import load_model
    from tinytui.model.io.presets import resolve
    from tinytui.model.trace import run
    from tinytui.report.step_report import count_tables

    model = load_model(resolve("chapter17-llama"))
    shared = count.sizes_formula(model.cfg)
    assert shared == "V·d (+ d·V when untied) + N·(d·(H + 2H_kv)·d_k + H·d_k·d + 3d·d_ff + 2d) + d"
    for size in count.four_sizes(model.cfg):
        d, v, h, kv = size.d_model, size.vocab, size.n_heads, size.n_kv_heads
        dk = (size.d_attn or d) // h  # a head's width
        block = d * (h + 2 * kv) * dk + h * dk * d + 3 * d * size.d_ff + 2 * d
        assert size.total() == v * d + (0 if size.tied else d * v) + size.n_blocks * block + d, size.name
    trace = run(model.params, model.prompt, model.target)
    titles = [t.title for t in count_tables(trace)]
    assert f"four sizes, one formula: {shared}" in titles
