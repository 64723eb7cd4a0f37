"""The gallery reading: strokes add up to the attention output, A·B is each head's part, the captions
quote only values of the run, the picture shapes and the scale card."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.model.reference_backward import random_model
from tinytui.lesson.gallery_reading import (
    GPT3,
    _beside_the_stock,
    artist_rules,
    captions,
    day,
    day_captions,
    picture_shape,
    scale_card,
    shade,
)
from tinytui.model.switches import Switches
from tinytui.model.trace import run

SIZES = {  # (seed, d_model, heads, d_head, d_ff, vocab, blocks, T)
    "d5-3heads": (31, 5, 3, 2, 6, 7, 1, 4),
    "2blocks-3heads-d6": (32, 6, 3, 2, 5, 9, 2, 6),
    "3blocks-d12": (33, 12, 4, 3, 16, 11, 3, 7),
}
SWITCHES = {
    "default": Switches(),
    "mask off": Switches(causal_mask=False),
    "head 1 ablated": Switches(ablated_heads={1}),
    "post-norm": Switches(norm="post"),
    "residual off": Switches(residual=False),
}


@pytest.fixture(scope="module", params=["chapter", *SIZES])
def model(request, chapter):
    if request.param == "chapter":
        return chapter.params, chapter.prompt, chapter.target
    return random_model(*SIZES[request.param])


@pytest.fixture(params=list(SWITCHES))
def case(request, model):
    params, prompt, target = model
    return params, run(params, prompt, target, SWITCHES[request.param])


def w_o_rows(params, b, h):
    dh = params.cfg.d_head
    return params[f"blocks.{b}.W_O"][(h - 1) * dh : h * dh]


def test_strokes_add_up_to_the_attention_output_everywhere(case):
    params, trace = case
    cfg = params.cfg
    gallery = day(params, trace)
    assert len(gallery.paintings) == len(trace.prompt)
    for p, pt in enumerate(gallery.paintings):
        assert (pt.position, pt.token, pt.label) == (p, trace.prompt[p], trace.token_labels[p])
        assert np.array_equal(pt.stock, trace["emb"][p]) and np.array_equal(pt.mark, trace["pe"][p])
        assert np.array_equal(pt.start, trace["x"][p])
        assert [d.block for d in pt.days] == list(range(cfg.n_blocks))
        for d in pt.days:
            pre = f"blocks.{d.block}."
            assert len(d.strokes) == cfg.n_heads
            np.testing.assert_allclose(sum(d.strokes), trace[pre + "mha"][p], rtol=0, atol=1e-12)
            assert np.array_equal(d.morning, trace[pre + "mha"][p])
            assert np.array_equal(d.canvas, trace[pre + "x_mid"][p])
            assert np.array_equal(d.filter_change, trace[pre + "ffn"][p])
            assert np.array_equal(d.evening, trace[pre + "y"][p])
        assert np.array_equal(pt.finished, trace[f"blocks.{cfg.n_blocks - 1}.y"][p])
    assert gallery.prediction.token == trace.prediction
    assert gallery.prediction.probability == trace["probs"].max()


def test_a_times_b_is_each_heads_part(case):
    params, trace = case
    cfg = params.cfg
    for b in range(cfg.n_blocks):
        pre = f"blocks.{b}."
        total = 0
        for h in range(1, cfg.n_heads + 1):
            rules = artist_rules(params, trace, b, h)
            M = trace[pre + "x_norm"]
            assert np.array_equal(rules.paintings, M)
            np.testing.assert_allclose(
                rules.value_rule, M @ params[pre + "W_V"][h - 1] @ w_o_rows(params, b, h), atol=1e-12
            )
            np.testing.assert_allclose(rules.pre_attention, trace[f"{pre}scores.{h}"], atol=1e-12)
            np.testing.assert_allclose(rules.attention, trace[f"{pre}attn.{h}"], atol=1e-12)
            np.testing.assert_allclose(rules.attention.sum(axis=1), 1.0, atol=1e-12)
            part = trace[f"{pre}head.{h}"] @ w_o_rows(params, b, h)
            np.testing.assert_allclose(rules.strokes, part, rtol=0, atol=1e-12)
            assert rules.ablated == (h in trace.switches.ablated_heads)
            if not rules.ablated:
                np.testing.assert_allclose(rules.product, part, rtol=0, atol=1e-12)
            total = total + rules.strokes
        np.testing.assert_allclose(total, trace[pre + "mha"], rtol=0, atol=1e-12)


# ---- captions --------------------------------------------------------------------------------------

LABELS = re.compile(r"\d+:\S+|“[^”]*”|\b(?:artist|day) \d+")
NUMBER = re.compile(r"(\d+(?:\.(\d+))?)(%?)")


def expected_numbers(params, trace, p: int) -> dict[str, dict[str, float]]:
    """What the captions of painting p should quote, worked out here from the trace's own tensors."""
    cfg = params.cfg
    strokes = [
        np.linalg.norm(
            (trace[f"blocks.{b}.attn.{h}"] @ trace[f"blocks.{b}.v.{h}"])[p] @ w_o_rows(params, b, h)
        )
        * (h not in trace.switches.ablated_heads)
        for b in range(cfg.n_blocks)
        for h in range(1, cfg.n_heads + 1)
    ]
    all_strokes = np.linalg.norm(sum(trace[f"blocks.{b}.mha"][p] for b in range(cfg.n_blocks)))
    ratios = [
        (np.linalg.norm(trace[f"blocks.{b}.ffn"][p]), np.linalg.norm(trace[f"blocks.{b}.x_mid"][p]))
        for b in range(cfg.n_blocks)
    ]
    change, canvas = max(ratios, key=lambda r: r[0] / r[1])
    return {
        "artist": {"strokes": max(strokes), "all strokes": all_strokes},
        "filter": {"change": change, "canvas": canvas, "ratio": change / canvas},
    }


def quoted(text: str) -> list[tuple[float, int, bool]]:
    """(value, decimals, is a percentage) for every number in the text that is not a label."""
    return [(float(m[1]), len(m[2] or ""), m[3] == "%") for m in NUMBER.finditer(LABELS.sub("", text))]


def test_captions_quote_only_values_of_the_run(case):
    params, trace = case
    probs = np.sort(trace["probs"])[::-1]
    for c in captions(day(params, trace)):
        if c.kind == "prediction":
            expected = {"probability": probs[0], "runner-up probability": probs[1]}
            assert f"“{trace.prediction}”" in c.text
        elif c.kind in ("stock", "mark"):
            tensor = trace["emb" if c.kind == "stock" else "pe"]
            on = c.kind == "stock" or trace.switches.positional_encoding
            expected = {c.kind: np.linalg.norm(tensor, axis=1).max()} if on else {}
            if c.kind == "mark" and on:  # the biggest mark beside the boldest stock picture
                expected["boldest stock"] = np.linalg.norm(trace["emb"], axis=1).max()
        else:
            expected = expected_numbers(params, trace, c.position)[c.kind]
            assert c.text.startswith(f"Painting {trace.token_labels[c.position]}:")
        assert c.numbers.keys() == expected.keys()
        for name, value in c.numbers.items():
            assert value == pytest.approx(expected[name], rel=1e-12, abs=1e-12), (c.text, name)
        shown = quoted(c.text)
        assert len(shown) == len(c.numbers), c.text  # each quoted value once, nothing else
        for value, decimals, percent in shown:
            tolerance = 0.5 * 10.0**-decimals + 1e-9
            assert any(abs(value - (100 * v if percent else v)) <= tolerance for v in c.numbers.values()), (
                c.text,
                value,
            )


def test_chapter_captions(chapter, trace):
    texts = [c.text for c in captions(day(chapter.params, trace))]
    assert len(texts) == 2 * len(trace.prompt) + 3
    assert texts[2].startswith("Painting 0:a: artist 1 painted the most on it, strokes of size 1.83")
    # one evening: nothing to be "most" among, and no day to name
    assert texts[6] == (
        "Painting 0:a: the filter changed it by 56% of the size of the canvas (a change of 1.37 on a "
        "canvas of 2.45)."
    )
    assert texts[-1] == (
        "The finished gallery says the next painting is “wood”, and it is far from sure: 31%, "
        "with “chuck” next at 15%."
    )


def test_equal_sizes_at_the_quoted_precision_are_named_as_a_tie(chapter, trace):
    """woodchuck's and chuck's stock pictures are both √1.25 = 1.118 (1.12 as quoted); every sinusoidal
    position mark at d_model 4 is √2: none of them is "the" boldest or biggest."""
    stock, mark = (c.text for c in captions(day(chapter.params, trace))[:2])
    assert stock.endswith("The boldest, tied at a size of 1.12, are 1:woodchuck and 3:chuck."), stock
    assert "sines and cosines of the position" in mark and "small" not in mark
    assert mark.endswith(
        "No mark is bigger than another: all four positions tie at 1.41. That is more than the boldest "
        "stock picture's size, 1.12."
    ), mark
    off = run(chapter.params, chapter.prompt, chapter.target, Switches(positional_encoding=False))
    mark_off = captions(day(chapter.params, off))[1]
    assert "switched off (PE off)" in mark_off.text and mark_off.numbers == {}


def test_one_largest_is_named_alone(chapter):
    """Different stock pictures: the one that reads largest is named, with its size."""
    trace = run(chapter.params, ("a", "woodchuck", "would"), "chuck")
    stock = captions(day(chapter.params, trace))[0].text
    assert stock.endswith("The boldest one is 1:woodchuck, of size 1.12."), stock


def test_caption_for_a_painting_no_artist_touched(chapter):
    trace = run(chapter.params, chapter.prompt, chapter.target, Switches(ablated_heads={1, 2}))
    artists = [c for c in captions(day(chapter.params, trace)) if c.kind == "artist"]
    assert all("no artist added anything" in c.text and c.numbers == {} for c in artists)


# ---- pictures and the scale card --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("d", "shape"),
    [
        (12288, (64, 64, 3)),
        (12, (2, 2, 3)),
        (6, (1, 2, 3)),
        (18, (2, 3, 3)),
        (21, (1, 7, 3)),
        (66, (1, 22, 3)),
        (4, None),
        (5, None),
    ],
)
def test_picture_shape(d, shape):
    assert picture_shape(d) == shape
    if shape is not None:
        assert np.prod(shape) == d


def test_pictures_share_one_normalisation():
    params, prompt, target = random_model(*SIZES["3blocks-d12"])
    gallery = day(params, run(params, prompt, target))
    assert gallery.picture_shape == (2, 2, 3)
    every = [v for pt in gallery.paintings for v in pt.vectors()]
    assert gallery.scale == max(np.abs(v).max() for v in every)
    for v in every:
        img = gallery.picture(v)
        assert img.shape == (2, 2, 3) and img.min() >= 0.0 and img.max() <= 1.0
        np.testing.assert_allclose(img.reshape(-1), 0.5 + 0.5 * v / gallery.scale)
    assert np.array_equal(shade(np.zeros(6), 0.0, (1, 2, 3)), np.full((1, 2, 3), 0.5))


def test_no_picture_for_the_chapter_model(chapter, trace):
    gallery = day(chapter.params, trace)
    assert gallery.picture_shape is None and gallery.picture(trace["x"][0]) is None


def test_scale_card(chapter):
    rows = {r.key: r for r in scale_card(chapter.params.cfg)}
    assert {k: r.gpt3 for k, r in rows.items()} == GPT3
    assert GPT3["picture"] == picture_shape(GPT3["painting size"])
    cfg = chapter.params.cfg
    ours = {k: r.ours for k, r in rows.items()}
    assert ours == {
        "paintings": cfg.n_ctx,
        "days": 1,
        "artists": 2,
        "painting size": 4,
        "picture": None,
        "filter width": 8,
        "head width": 2,
    }
    params, _, _ = random_model(*SIZES["2blocks-3heads-d6"])
    rows = {r.key: r.ours for r in scale_card(params.cfg)}
    assert rows["days"] == 2 and rows["artists"] == 3 and rows["picture"] == (1, 2, 3)


def test_ties_are_read_at_the_precision_shown():
    from tinytui.lesson.texts.wording import tops_as_shown

    sizes = [1.0, 1.118033988749895, 1.1180339887498951, 1.1149]
    assert tops_as_shown(sizes, lambda v: f"{v:.2f}") == [1, 2]  # 1.1149 reads 1.11
    assert tops_as_shown(sizes, lambda v: f"{v:.1f}") == [1, 2, 3]
    assert tops_as_shown([0.3, 0.2]) == [0]


@pytest.mark.parametrize(
    ("mark", "stock", "said"),
    [
        (
            1.0,
            2.5,
            "less than half the boldest stock picture's size, 2.50: the marks are faint beside the pictures.",
        ),
        (1.834, 2.69, "less than the boldest stock picture's size, 2.69."),
        (1.118, 1.1204, "as big as the boldest stock picture's size, 1.12."),
        (1.41, 1.12, "more than the boldest stock picture's size, 1.12."),
    ],
)
def test_the_biggest_mark_is_weighed_against_the_boldest_stock_picture(mark, stock, said):
    """A mark is not called small unless it is: the chapter's sinusoidal marks (√2) are bolder than its
    stock pictures; sizes that read the same as quoted are "as big"."""
    assert _beside_the_stock(mark, stock) == f"That is {said}"


def test_a_day_s_captions_quote_that_day_alone(case):
    """Day b's morning and evening name no other day and quote day b's strokes and filter only (the
    run-wide sentences had day 1's morning say which artist of day 2 painted the most)."""
    params, trace = case
    cfg = params.cfg
    gallery = day(params, trace)
    for b in range(cfg.n_blocks):
        found = day_captions(gallery, b)
        assert [c.kind for c in found] == ["artist"] * len(trace.prompt) + ["filter"] * len(trace.prompt)
        for c in found:
            assert " of day " not in c.text and "evening of day" not in c.text, c.text
            p = c.position
            if c.kind == "artist" and c.numbers:
                heads = [
                    (trace[f"blocks.{b}.attn.{h}"] @ trace[f"blocks.{b}.v.{h}"])[p] @ w_o_rows(params, b, h)
                    for h in range(1, cfg.n_heads + 1)
                ]
                live = [h not in trace.switches.ablated_heads for h in range(1, cfg.n_heads + 1)]
                strokes = [np.linalg.norm(v) * on for v, on in zip(heads, live)]
                assert c.numbers["strokes"] == pytest.approx(max(strokes), rel=1e-12, abs=1e-12)
                if "all strokes" in c.numbers:
                    whole = np.linalg.norm(trace[f"blocks.{b}.mha"][p])
                    assert c.numbers["all strokes"] == pytest.approx(whole, rel=1e-12, abs=1e-12)
            elif c.kind == "filter" and c.numbers:
                change = np.linalg.norm(trace[f"blocks.{b}.ffn"][p])
                assert c.numbers["change"] == pytest.approx(change, rel=1e-12, abs=1e-12)
                assert c.numbers["canvas"] == pytest.approx(np.linalg.norm(trace[f"blocks.{b}.x_mid"][p]))
