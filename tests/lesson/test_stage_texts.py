"""Step texts follow the run: every number they quote is a value of this run or a constant of the model,
and the chapter's conditional sentences appear only where the numbers make them true.

Models: the chapter's and the seeded random ones of test_backward (another vocabulary, three heads,
other widths, two blocks), under every switch setting there and a few more combinations.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from tests.model.reference_backward import RANDOM, SWITCHES, random_model
from tinytui.lesson.stages import STAGES
from tinytui.model import count
from tinytui.model.switches import Switches
from tinytui.model.trace import run

MORE = {
    "mask and PE off": Switches(causal_mask=False, positional_encoding=False),
    "heads 1 and 2 ablated": Switches(ablated_heads={1, 2}),
    "PE off, GELU, post-norm": Switches(positional_encoding=False, activation="gelu", norm="post"),
    "mask off, residual off": Switches(causal_mask=False, residual=False),
}
ALL_SWITCHES = {**SWITCHES, **MORE}

NUMBER = re.compile(r"(?<![\w.])[-−]?\d+(?:\.\d+)?(?![\w])")  # − as the tables write a minus


SHAPES = {**RANDOM, "random-16d-wide-heads": (14, 16, 2, 8, 32, 20, 1, 7)}  # d_k = 8: the scaling matters


@pytest.fixture(scope="module", params=["chapter", *SHAPES])
def model(request, chapter):
    if request.param == "chapter":
        return chapter.params, chapter.prompt, chapter.target
    return random_model(*SHAPES[request.param])


@pytest.fixture(params=list(ALL_SWITCHES))
def trace(request, model):
    params, prompt, target = model
    return run(params, prompt, target, ALL_SWITCHES[request.param])


def texts(trace) -> dict[int, str]:
    return {s.number: s.explain(trace) for s in STAGES}


def run_values(trace) -> np.ndarray:
    vals = [t.values.ravel() for t in trace.tensors.values()]
    flat = np.concatenate(vals)
    return flat[np.isfinite(flat)]


def constants(trace) -> set[float]:
    """Sizes, counts and fixed numbers of the model and the chapter that a text may quote."""
    cfg = trace.cfg
    T = len(trace.prompt)
    sizes = {cfg.n_vocab, cfg.d_model, cfg.n_heads, cfg.d_head, cfg.d_ff, cfg.n_blocks, T}
    products = {a * b for a in sizes for b in sizes}
    hidden = trace["blocks.0.hidden"]
    tallies = {int((hidden == 0).sum()), int((hidden == 0).all(axis=0).sum())}
    total = count.this_model(cfg).total()
    waves = (cfg.d_model + 1) // 2
    pe_ratio = 10000.0 ** (2 * (waves - 1) / cfg.d_model)
    chapter = {17.8, 17.10, 2017.0} | set(map(float, range(1, 17)))  # equations, the 2017 paper, steps
    small = set(range(0, T + 1)) | set(range(1, cfg.n_heads + 1))  # positions, head numbers, 0 and 1
    return (
        {float(x) for x in sizes | products | tallies | small | {total, count.tying_saves(cfg)}}
        | chapter
        | {trace.lr, math.sqrt(cfg.d_head), cfg.eps, round(pe_ratio), round(pe_ratio, 1)}
    )


def quoted_is_true(text: str, trace) -> list[str]:
    """The numbers in text that are neither a value of the run (at the precision shown) nor a constant."""
    values, consts = run_values(trace), constants(trace)
    bad = []
    for m in NUMBER.finditer(text):
        s = m.group()
        decimals = len(s.split(".")[1]) if "." in s else 0
        x = float(s.replace("−", "-"))
        if any(abs(round(c, decimals) - x) < 1e-12 for c in consts):
            continue
        if np.any(np.abs(np.round(values, decimals) - x) < 1e-12):
            continue
        bad.append(s)
    return bad


def test_every_number_quoted_is_a_value_of_the_run_or_a_constant(trace):
    for number, text in texts(trace).items():
        assert text.strip(), number
        assert not quoted_is_true(text, trace), (number, quoted_is_true(text, trace), text)


def test_sizes_come_from_the_config_not_the_chapter(trace):
    cfg = trace.cfg
    t = texts(trace)
    if cfg.n_vocab != 8:
        assert "of eight" not in t[1]
    if cfg.n_heads != 2:
        assert "two heads" not in " ".join(t.values()) and "The two results" not in t[9]
    if cfg.d_model != 4:
        assert "d = 4" not in t[3] and "same four numbers" not in t[4]
    if cfg.dims != ("thing", "action", "quantifier", "wood"):
        assert "thing" not in t[2] and "wood" not in t[10] and "acted on" not in t[6]
    if cfg.n_heads * cfg.d_head != cfg.d_model:
        assert "d_model again" not in t[9]
    assert f"{cfg.d_model} to {cfg.d_ff}" in t[11]
    assert f"V·d = {cfg.n_vocab}·{cfg.d_model}" in t[16]


# ---- the wrong sentences of the issue: absent where false, present where true ------------------------


def test_first_row_forced_to_one_only_with_the_mask(trace):
    t = texts(trace)[8]
    said = "The first row is 1.0000"
    first = [trace[f"blocks.0.attn.{h}"][0, 0] for h in range(1, trace.cfg.n_heads + 1)]
    assert (said in t) == all(a == 1.0 for a in first)
    if not trace.switches.causal_mask and len(trace.prompt) > 1:
        assert said not in t and "mask is off" in t


def test_wood_column_figure_matches_the_run(trace):
    t = texts(trace)[10]
    col = len(trace.cfg.dims) - 1
    before, after = trace["x"][-1, col], trace["blocks.0.x_mid"][-1, col]
    chapter_figure = "from about 1.5 to 3.25"
    assert (chapter_figure in t) == (round(before, 1) == 1.5 and round(after, 2) == 3.25)
    m = re.search(r"from about (-?\d+(?:\.\d+)?) to (-?\d+(?:\.\d+)?)", t)
    assert m and float(m.group(1)) == pytest.approx(before, abs=0.005)
    assert float(m.group(2)) == pytest.approx(after, abs=0.005)


def test_last_row_claim_only_with_the_mask(trace):
    t = texts(trace)[13]
    claim = "the only one that has read every token"
    assert (claim in t) == (trace.switches.causal_mask and len(trace.prompt) > 1)


def test_ties_named_only_when_the_logits_tie(trace):
    t = texts(trace)[14]
    logits = trace["logits"]
    vocab = trace.cfg.vocab
    tied = {
        vocab[i] for i in range(len(vocab)) for j in range(len(vocab)) if i != j and logits[i] == logits[j]
    }
    if "how" in vocab and "much" in vocab:
        assert ("'how' and 'much'" in t) == ({"how", "much"} <= tied)
    if not tied:
        assert "tie" not in t.split("always tie")[-1] and "No two tokens" in t


def test_zero_count_and_silence_match_the_hidden_layer(trace):
    t = texts(trace)[11]
    h = trace["blocks.0.hidden"]
    zeros = int((h == 0).sum())
    if trace.switches.activation == "relu" and zeros:
        assert f"{zeros} of {h.size} hidden values are zero" in t
    assert ("most of the hidden layer is silent" in t) == (
        trace.switches.activation == "relu" and zeros * 2 > h.size
    )


def test_head_questions_only_when_the_heads_copy_those_dims(trace):
    t = texts(trace)[6]
    if trace.cfg.dims != ("thing", "action", "quantifier", "wood"):
        assert "asks '" not in t


def test_head_two_figure_only_when_true(trace):
    t = texts(trace)[8]
    if trace.cfg.n_heads >= 2 and len(trace.prompt) > 1:
        a = trace["blocks.0.attn.2"][1]
        keeps = f"head 2 keeps {a[1]:.4f} on '{trace.prompt[1]}'"
        alone = int((a >= a.max() - 1e-9).sum()) == 1
        tops = {int(trace[f"blocks.0.attn.{h}"][1].argmax()) for h in range(1, trace.cfg.n_heads + 1)}
        assert (keeps in t) == (alone and int(a.argmax()) == 1 and len(tops) > 1)
    assert "0.8618" not in t or np.isclose(trace["blocks.0.attn.2"][1, 1], 0.8618, atol=5e-5)


# ---- the chapter's default run says what the chapter says -----------------------------------------------


def test_chapter_default_keeps_the_chapter_figures(chapter):
    t = texts(run(chapter.params, chapter.prompt, chapter.target))
    assert "vocabulary of eight" in t[1]
    assert "thing, action, quantifier and wood" in t[2]
    assert "d = 4 there are two waves" in t[3] and "100×" in t[3]
    assert "The first row is 1.0000" in t[8]
    assert "head 2 keeps 0.8618 on 'woodchuck'" in t[8] and "head 1 puts 0.7588 on 'a'" in t[8]
    assert "Head 1 asks 'which thing is being acted on?'" in t[6]
    assert "Head 2 asks 'what else here is about wood?'" in t[6]
    assert "At the last position ('chuck'), the wood column goes from about 1.5 to 3.25" in t[10]
    assert "24 of 32 hidden values are zero" in t[11] and "most of the hidden layer is silent" in t[11]
    assert "the only one that has read every token" in t[13]
    assert "'how' and 'much' tie" in t[14]
    assert "lowers the loss" in t[15]


def test_chapter_mask_off_and_pe_off(chapter):
    off = texts(run(chapter.params, chapter.prompt, chapter.target, Switches(causal_mask=False)))
    assert "1.0000" not in off[8] and "0.0962" in off[8]
    assert (
        "only one that has read every token" not in off[13]
        and "every row has read the whole prompt" in off[13]
    )
    pe = texts(run(chapter.params, chapter.prompt, chapter.target, Switches(positional_encoding=False)))
    assert "1.5 to 3.25" not in pe[10] and "from about 0.5 to 1.24" in pe[10]
    assert "switched off" in pe[3] and "waves" not in pe[3]


def test_random_model_speaks_of_its_own_sizes():
    params, prompt, target = random_model(*RANDOM["random-5d-3heads"])
    t = texts(run(params, prompt, target))
    joined = " ".join(t.values())
    assert "eight" not in t[1] and "vocabulary of seven" in t[1]
    assert "three heads" in t[6] and "two heads" not in joined
    assert "how and much" not in joined and "woodchuck" not in joined
