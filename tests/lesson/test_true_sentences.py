"""Every sentence that compares numbers holds for the numbers it quotes: over the chapter's model, the
trained preset, woodland, two random models and the tiny GPT-2 checkpoint, under every switch.

Each test reads a claim off the words ("differently", "every head", "exactly zero", "most", …) and checks
it against the run's tensors, so a sentence that says more than the numbers show fails here.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import cache

import numpy as np
import pytest

from tests.gpt2.checkpoints import TINY
from tests.model.reference_backward import MODERN, random_model
from tests.random_models import random_params
from tinytui.lesson import step_path
from tinytui.lesson.gallery_reading import captions, day
from tinytui.lesson.stages import STAGE_BY_NUMBER, formula_as_run
from tinytui.lesson.texts.change_note import change_note
from tinytui.lesson.texts.wording import at
from tinytui.lesson.walk_stages import backward_stage_for
from tinytui.model.backward.gradients import gradients
from tinytui.model.io.checkpoint import load_checkpoint, load_model
from tinytui.model.io.presets import resolve
from tinytui.model.switches import Switches, defaults
from tinytui.model.trace import run
from tinytui.report.step_report import stage_report
from tinytui.report.tables import title_of

MODELS = ("chapter17", "chapter17-trained", "woodland", "random 2 blocks", "random 4 heads", "tiny GPT-2")
SWITCHES = {
    "default": {},
    "mask off": {"causal_mask": False},
    "PE off": {"positional_encoding": False},
    "other activation": {"activation": "other"},
    "post-norm": {"norm": "post"},
    "residual off": {"residual": False},
    "head 1 ablated": {"ablated_heads": frozenset({1})},
    "every head ablated": {"ablated_heads": "all"},
    "mask and PE off, post-norm, no residual": {
        "causal_mask": False,
        "positional_encoding": False,
        "norm": "post",
        "residual": False,
    },
}


@cache
def model(name: str):
    """(params, prompt, target) of one of MODELS."""
    if name == "tiny GPT-2":
        m = load_checkpoint(TINY)
        return m.params, m.prompt, m.target  # the checkpoint's own target is 'is', a word of English
    if name.startswith("random"):
        rng = np.random.default_rng(7 if "2 blocks" in name else 11)
        if "2 blocks" in name:
            params = random_params(seed=3)
        else:
            params = random_params(seed=5, d=6, heads=4, d_head=2, d_ff=5, vocab=7, blocks=1)
        prompt = tuple(params.cfg.vocab[i] for i in rng.integers(0, params.cfg.n_vocab, 6))
        return params, prompt, params.cfg.vocab[2]
    m = load_model(resolve(name))
    return m.params, m.prompt, m.target


def switches_for(params, which: str) -> Switches:
    kw = dict(SWITCHES[which])
    if kw.get("activation") == "other":
        kw["activation"] = "relu" if params.cfg.activation == "gelu" else "gelu"
    else:
        kw.setdefault("activation", params.cfg.activation)
    if kw.get("ablated_heads") == "all":
        kw["ablated_heads"] = frozenset(range(1, params.cfg.n_heads + 1))
    return Switches(**kw)


@cache
def case(name: str, which: str):
    params, prompt, target = model(name)
    trace = run(params, prompt, target, switches_for(params, which))
    return params, trace, gradients(params, trace)


CASES = [(m, s) for m in MODELS for s in SWITCHES]
IDS = [f"{m}-{s}" for m, s in CASES]


def blocks(trace):
    return range(trace.cfg.n_blocks)


def focused(trace, number: int, block: int):
    return step_path.focus(trace, step_path.at(number, block, trace.cfg.n_blocks))


QUOTED = r"(?:'([^']*)'|\"([^\"]*)\")"  # a token as the prose quotes it: 'a', or "'s"


# ---- step 8: where the heads look --------------------------------------------------------------------


def _largest(row) -> set[int]:
    """Every position whose weight reads as the largest at the tables' 4 decimals (a tie to the reader)."""
    return {j for j, w in enumerate(row) if f"{w:.4f}" == f"{row.max():.4f}"}


@pytest.mark.parametrize(("name", "which"), CASES, ids=IDS)
def test_where_the_heads_look_is_what_the_weights_show(name, which):
    _, trace, _ = case(name, which)
    prompt, heads = trace.prompt, range(1, trace.cfg.n_heads + 1)
    for b in blocks(trace):
        seen = focused(trace, 8, b)
        text = STAGE_BY_NUMBER[8].explain(seen)
        attn = {h: seen[f"blocks.0.attn.{h}"] for h in heads}
        if len(prompt) < 2:
            continue
        tops = {h: _largest(attn[h][1]) for h in heads}
        if "spread their weight differently" in text:
            assert all(len(t) == 1 for t in tops.values()), text
            assert len({min(t) for t in tops.values()}) == len(tops), text  # no two heads on one position
        m = re.search(
            r"every head puts its largest weight on " + QUOTED + r"( itself)?: (.*?)\.(?: |$)", text
        )
        if m:
            (j,) = tops[1]
            assert all(t == {j} for t in tops.values()), text
            assert (m.group(1) or m.group(2)) == prompt[j] and (m.group(3) is not None) == (j == 1)
            for h, w in re.findall(r"head (\d+) (-?\d\.\d{4})", m.group(4)):
                assert w == f"{attn[int(h)][1, j]:.4f}"
        for h, verb, w, single, double in re.findall(
            r"head (\d+) (puts|keeps) (-?\d\.\d{4}) on " + QUOTED, text
        ):
            row, tok = attn[int(h)][1], single or double
            at = [j for j in tops[int(h)] if prompt[j] == tok and f"{row[j]:.4f}" == w]
            assert at, (text, h, w, tok)
            assert (verb == "keeps") == (at == [1])
        if "In the last row" in text:
            for h in heads:
                assert _largest(attn[h][-1]) == {len(prompt) - 1}, text


# ---- the backward walk's step 8: what the zeros of ∂L/∂A and ∂L/∂S are owed to ----------------------------


@pytest.mark.parametrize(("name", "which"), CASES, ids=IDS)
def test_the_walks_mask_sentence_is_what_the_gradients_show(name, which):
    params, trace, grads = case(name, which)
    cfg = params.cfg
    text = backward_stage_for(8, trace.switches, cfg).explain
    last = cfg.n_blocks - 1
    mask = trace["mask"]
    heads = range(1, cfg.n_heads + 1)

    def of(b: int, what: str, h: int):
        return grads[f"grad.blocks.{b}.{what}.{h}"]

    if "every row of ∂L/∂A but the last is exactly zero" in text:
        for h in heads:
            assert not of(last, "attn", h)[:-1].any() and not of(last, "scores", h)[:-1].any()
    if "the mask holds none of its weights at zero" in text:
        assert mask[-1].all()
    if "a masked weight is held at zero" in text:
        assert cfg.n_blocks > 1 and not mask.all()
        for b in range(last):
            for h in heads:
                held = mask == 0
                assert not trace[f"blocks.{b}.attn.{h}"][held].any() and not of(b, "scores", h)[held].any()
    if "no weight is held at zero" in text:
        assert mask.all()
    # the sentence this replaced: the loss "would care" about weights above the diagonal in every block
    if "would care about the weights" in text:
        above = np.triu(np.ones_like(mask), 1) > 0
        assert all(of(b, "attn", h)[above].any() for b in blocks(trace) for h in heads), text


# ---- the tables' titles say what the step computed ------------------------------------------------------


@pytest.mark.parametrize(("name", "which"), CASES, ids=IDS)
def test_table_titles_follow_the_switches(name, which):
    params, trace, _ = case(name, which)
    sw = trace.switches
    titles = {
        n: [t.title for t in stage_report(trace, STAGE_BY_NUMBER[n], params).tables] for n in (8, 10, 12)
    }
    attn = [t for t in titles[8] if t.startswith("head ")]
    assert attn and all(("S + M" in t) == sw.causal_mask for t in attn)
    (x_mid,) = [t for t in titles[10] if t.startswith("x′ =")]
    (y,) = [t for t in titles[12] if t.startswith("y =")]
    assert ("x + " in x_mid) == sw.residual and ("x′ + " in y) == sw.residual
    pre = "MHA(LN(x))" in x_mid or "MHA(g₁ ⊙ LN(x) + b₁)" in x_mid  # GPT-2's norm has a gain and a bias
    post = y.startswith(("y = LN(", "y = g₂ ⊙ LN("))  # post-norm wraps the sum, with the gain it has
    assert pre == (sw.norm == "pre") and post == (sw.norm == "post")


def test_step_3_heads_each_column_by_its_wave_not_by_a_meaning(chapter):
    trace = run(chapter.params, chapter.prompt, chapter.target)
    (pe,) = stage_report(trace, STAGE_BY_NUMBER[3], chapter.params).tables
    assert pe.cols == ("sin p/1", "cos p/1", "sin p/100", "cos p/100")
    assert not set(pe.cols) & set(chapter.params.cfg.dims)
    for j, col in enumerate(pe.cols):  # each heading is the wave its column holds
        wave, period = col.split(" p/")
        f = np.sin if wave == "sin" else np.cos
        for p, row in enumerate(pe.cells):
            assert float(row[j]) == pytest.approx(f(p / float(period)), abs=5e-5)
    assert "the waves say nothing about what those dimensions mean" in STAGE_BY_NUMBER[3].explain(trace)


# ---- tokens are quoted where prose names them --------------------------------------------------------------


@pytest.mark.parametrize("name", MODELS)
def test_prose_quotes_the_tokens_it_names(name):
    params, trace, _ = case(name, "default")
    facts = STAGE_BY_NUMBER[14].facts(trace)
    p, t = trace["probs"], trace.cfg.token_id(trace.target)
    assert (
        f"prediction: '{trace.prediction}' at {p.max():.4f}; target '{trace.target}' at {p[t]:.4f}"
        in facts[0]
    )
    assert f"target '{trace.target}' is id {t}" in STAGE_BY_NUMBER[1].facts(trace)[0]
    if len(trace.prompt) > 1:
        assert f"Looking from {at(trace.prompt, 1)}," in STAGE_BY_NUMBER[8].explain(trace)
    note = change_note(
        trace, run(params, trace.prompt, trace.target, Switches(residual=False)), "residual off"
    )
    assert re.search(r"the prediction (\(|stays |moves from )'", note), note


def test_the_gpt2_target_is_is_quoted():
    _, trace, _ = case("tiny GPT-2", "default")
    assert trace.target == "is"
    assert "target 'is' at " in STAGE_BY_NUMBER[14].facts(trace)[0]


# ---- the gallery: "most" only among several, and only for the largest -----------------------------------


@pytest.mark.parametrize(("name", "which"), CASES, ids=IDS)
def test_gallery_captions_say_most_only_of_the_largest(name, which):
    params, trace, _ = case(name, which)
    gallery = day(params, trace)
    for c in captions(gallery):
        if c.position is None:
            continue
        pt = gallery.paintings[c.position]
        if c.kind == "filter":
            ratios = [np.linalg.norm(d.filter_change) / np.linalg.norm(d.canvas) for d in pt.days]
            m = re.search(r"most on the evening of day (\d+)", c.text)
            assert (m is not None) <= (len(pt.days) > 1), c.text
            if m:
                k = int(m.group(1)) - 1
                assert all(ratios[k] > r for i, r in enumerate(ratios) if i != k), c.text
            assert "evening of day" not in c.text or len(pt.days) > 1, c.text
        if c.kind == "artist" and "painted the most" in c.text:
            sizes = [np.linalg.norm(s) for d in pt.days for s in d.strokes]
            shown = [f"{s:.2f}" for s in sizes]  # as quoted: a tie at two decimals is a tie to the reader
            assert len(sizes) > 1 and shown.count(f"{max(sizes):.2f}") == 1, c.text
            assert f"strokes of size {max(sizes):.2f}" in c.text


@pytest.mark.parametrize(("name", "which"), CASES, ids=IDS)
def test_the_strongest_key_of_each_row_is_every_key_that_holds_the_largest_weight(name, which):
    _, trace, _ = case(name, which)
    for b in blocks(trace):
        seen = focused(trace, 8, b)
        for fact in STAGE_BY_NUMBER[8].facts(seen)[1:]:
            h = int(fact.split()[1].rstrip(":"))
            said = fact.split("strongest key per row: ", 1)[1].split(", … (")[0]
            # a token that repeats in the prompt is named with its place: 'a' at 0
            shown = [m.group(0) for m in re.finditer(r"(?:" + QUOTED + r"(?: at \d+)?/?)+", said)]
            assert len(shown) == min(len(seen.prompt), 8), fact
            for row, text in zip(seen[f"blocks.0.attn.{h}"], shown):
                tokens = {a or b for a, b in re.findall(QUOTED, text)}
                assert tokens == {seen.prompt[j] for j in _largest(row)}, fact
                places = {int(j) for j in re.findall(r"at (\d+)", text)}
                assert places <= set(_largest(row)), fact


# ---- sentences found false on one configuration (the switches' audit): each asserted where it was false


def _run(name: str, **switches):
    params, prompt, target = model(name)
    return params, run(params, prompt, target, replace(defaults(params.cfg), **switches))


def _words(trace, number: int, block: int = 0) -> str:
    return STAGE_BY_NUMBER[number].explain(focused(trace, number, block))


def _facts(trace, number: int, block: int = 0) -> list[str]:
    return STAGE_BY_NUMBER[number].facts(focused(trace, number, block))


@pytest.mark.parametrize("own", [False, True], ids=["chapter17 O+o", "chapter17-llama o"])
def test_rope_switched_off_turns_nothing_and_no_sentence_says_it_does(own):
    """RoPE with the positional encoding off: Q is Q_pre, and no step, fact, formula or table title may
    say that q and k are turned (they said 'step 6 turns q and k by position')."""
    name, kw = ("chapter17-llama", {}) if own else ("chapter17", {"positions": "rope"})
    _, trace = _run(name, positional_encoding=False, **kw)
    assert trace.cfg.positions == "rope"
    assert np.array_equal(trace["blocks.0.q.1"], trace["blocks.0.q_pre.1"])  # nothing turned
    said = [_words(trace, 3), _words(trace, 4), _words(trace, 6), *_facts(trace, 3)]
    said += [formula_as_run(STAGE_BY_NUMBER[3], trace.switches, trace.cfg)]
    said += [title_of("pe", trace.cfg, trace.switches) or ""]
    said += [backward_stage_for(n, trace.switches, trace.cfg).explain for n in (3, 4)]
    for s in said:
        assert not re.search(r"\b(turns|turned|turning) (q|Q|queries)|q and k turned", s), s
    blocks = "the block" if trace.cfg.n_blocks == 1 else "the blocks"
    unturned = f"step 6 leaves every query and key unturned, so word order reaches {blocks} only through"
    assert unturned in _words(trace, 3)
    assert _facts(trace, 3) == [
        "every PE row is zero, and RoPE is switched off: step 6 leaves Q and K unturned"
    ]
    assert title_of("pe", trace.cfg, trace.switches) == "PE = 0   (RoPE off)"


def test_step_3_under_the_switch_says_this_run_not_this_model():
    _, trace = _run("chapter17", positions="rope")
    text = _words(trace, 3)
    assert "This run adds nothing here: PE is all zeros." in text and "This model adds" not in text
    assert "This run marks position later" in _words(trace, 4)


def test_step_12_names_the_block_its_tables_show():
    _, trace = _run("woodland")
    assert "(these tables are block 2's)." in _words(trace, 12, 1)
    assert "(these tables are block 1's)." in _words(trace, 12, 0)


def test_a_tie_between_different_rows_is_not_put_down_to_identical_rows():
    """RMSNorm and RoPE on the chapter's model: z's quantifier entry is 0, so 'a', 'how', 'much' and '.'
    tie although only how's and much's rows are the same."""
    params, trace = _run("chapter17", norm_kind="rms", positions="rope")
    ids = [trace.cfg.vocab.index(t) for t in ("a", "how", "much", ".")]
    assert len({float(trace["logits"][i]) for i in ids}) == 1
    assert not (params["E"][ids] == params["E"][ids[0]]).all()
    text = _words(trace, 14)
    assert "Tokens with identical rows always tie" not in text
    differ = "'a', 'how', 'much' and '.' tie, although not all their rows are the same: z's dot products with"
    assert differ in text
    _, default = _run("chapter17")
    same = "Tokens with identical rows always tie; here 'how' and 'much' tie, with exactly the same logit."
    assert same in _words(default, 14)
    _, no_residual = _run("chapter17", residual=False)  # z = (-0.5773, -0.5773, -0.5773, 1.7320)
    two = "'a' and 'would' tie; 'chuck' and 'woodchuck' tie too, although the rows within each group are not"
    assert two in _words(no_residual, 14)


def test_a_loss_lowered_by_less_than_the_shown_decimals_says_so():
    _, trace = _run("woodland")
    before, after = trace.loss, float(trace["loss_stepped"])
    assert after < before and f"{before:.4f}" == f"{after:.4f}"
    said = "lowers the loss by less than 0.0001, too little to show at four decimals: the target already has "
    assert said + "0.9969 of the probability." in _words(trace, 15)


def test_the_left_out_parts_count_gpt2_as_gpt2_whatever_the_norm_switch():
    """Under `l` step 16 gave GPT-2 small 124,420,608 parameters with the left-out parts (RMSNorm's gains
    only); it has 124,439,808, and the chapter's model keeps its own weights under the switch."""
    _, trace = _run("chapter17", norm_kind="rms")
    (left_out,) = [f for f in _facts(trace, 16) if f.startswith("The formula leaves out")]
    assert "861,696 to GPT-2 small (0.69% of 124,439,808)" in left_out
    assert "104 to this model (38% of 276, n_ctx 16)" in left_out


def test_all_heads_ablated_leave_the_column_exactly_as_it_was():
    _, trace = _run("chapter17", ablated_heads=frozenset({1, 2}))
    assert not trace["blocks.0.mha"].any()
    assert "the wood column goes from about 1.5 to 1.5: attention added exactly 0 to it." in _words(trace, 10)


def test_a_feed_forward_as_wide_as_the_stream_is_not_widened():
    _, trace = _run("chapter17-llama")
    assert trace.cfg.d_ff == trace.cfg.d_model
    assert "normalised and mapped from 4 to 4 feature detectors" in _words(trace, 11)
    assert "W_down maps the 4 detectors back to 4 dimensions" in _words(trace, 12)
    _, chapter = _run("chapter17")
    assert "widened from 4 to 8" in _words(chapter, 11) and "W_2 narrows the 8" in _words(chapter, 12)


def test_no_gate_near_zero_is_said_as_none():
    _, trace = _run("chapter17-llama")
    gate = focused(trace, 11, 1)["blocks.0.gate"]
    assert not (np.abs(gate) < 0.05).any()
    assert "Here none of the 16 gate values is within 0.05 of zero." in _words(trace, 11, 1)
    (fact,) = _facts(trace, 11, 1)
    assert fact.startswith("none of the 16 gate values is within 0.05 of zero, so no unit is shut")


# ---- the backward walk's words under the switches -----------------------------------------------------


def test_the_walk_has_no_skip_path_with_the_residual_off():
    _, trace = _run("chapter17", residual=False)
    said = {n: backward_stage_for(n, trace.switches, trace.cfg).explain for n in (5, 10, 12)}
    assert "skip connection hands the gradient straight back" not in said[10]
    assert said[10].startswith("With the residual off there is no skip connection")
    assert said[5].startswith("With the residual off there is no skip path")
    assert said[12].startswith("With the residual off, y was made from the feed-forward's output alone")


def test_the_walk_under_post_norm_puts_the_norm_on_the_skip_path():
    _, trace = _run("chapter17", norm="post")
    text = backward_stage_for(10, trace.switches, trace.cfg).explain
    assert "unobstructed" not in text and "under post-norm that norm sits on the skip path" in text


@pytest.mark.parametrize("name", ["chapter17", "tiny GPT-2"])
def test_the_walk_under_gelu_says_every_unit_passes_some_gradient(name):
    """'A unit that did not fire passes no gradient back' was said under GELU too (GPT-2's own), where
    no column of dL/dW_1 is zero."""
    params, trace = _run(name, activation="gelu")
    grads = gradients(params, trace)
    assert (np.abs(grads["grad.blocks.0.W_1"]).sum(axis=0) > 0).all()  # every column learns
    text = backward_stage_for(11, trace.switches, trace.cfg).explain
    assert "passes no gradient back" not in text
    assert text.startswith("GELU has a slope below zero too")
    _, relu = _run("chapter17")
    assert "passes no gradient back" in backward_stage_for(11, relu.switches, relu.cfg).explain


def test_the_walk_names_the_ablated_heads():
    params, trace = _run("chapter17", ablated_heads=frozenset({1, 2}))
    grads = gradients(params, trace)
    assert not grads["grad.blocks.0.W_O"].any()
    assert all(not grads[f"grad.blocks.0.attn.{h}"].any() for h in (1, 2))
    text = backward_stage_for(9, trace.switches, trace.cfg).explain
    assert text.startswith("Every head is ablated: each outputs a constant 0, so W_O and every head's")
    _, one = _run("chapter17", ablated_heads=frozenset({1}))
    said = backward_stage_for(9, one.switches, one.cfg).explain
    assert "Head 1 is ablated: an output held at 0 passes nothing back" in said


def test_the_change_note_says_again_only_for_the_models_own():
    _, before = _run("chapter17-llama")
    _, after = _run("chapter17-llama", positions="sinusoid")
    assert "step 4 adds the sinusoids to x; q and k are no longer turned" in change_note(before, after, "O")
    _, chapter_rope = _run("chapter17", positions="rope")
    _, chapter = _run("chapter17")
    assert "step 4 adds the sinusoids to x again;" in change_note(chapter_rope, chapter, "O")


def test_the_change_note_turns_nothing_with_the_encoding_off():
    _, before = _run("chapter17", positional_encoding=False)
    _, after = _run("chapter17", positional_encoding=False, positions="rope")
    note = change_note(before, after, "O")
    assert "step 6 turns q and k" not in note
    assert note.startswith("O: the positions are RoPE now, but with the positional encoding off none is")


def test_gelu_keeps_the_exact_zeros_of_the_pre_activations():
    """Under `l` RMSNorm takes no mean away, so a pre-activation can be exactly 0 and GELU(0) = 0: the ReLU
    fact said 'GELU would leave none exactly zero'."""
    _, trace = _run("chapter17", norm_kind="rms")
    assert int((trace["blocks.0.hidden_pre"] == 0).sum()) == 1
    (fact,) = _facts(trace, 11)
    assert fact.endswith("(GELU would leave only the 1 whose pre-activation is exactly 0 at zero)")
    _, gelu = _run("chapter17", norm_kind="rms", activation="gelu")
    assert int((gelu["blocks.0.hidden"] == 0).sum()) == 1
    _, chapter = _run("chapter17")
    assert _facts(chapter, 11)[0].endswith("(GELU would leave none exactly zero)")


def test_layer_norm_says_where_eps_keeps_a_variance_below_one():
    """chapter17-trained: row 'a' has variance 0.0007, so its normalised row has variance 0.9864, while
    step 5 said only 'rescaled ... to mean 0 and variance 1'."""
    _, trace = _run("chapter17-trained")
    row = trace["blocks.0.x_norm"][0]
    assert f"{row.var():.4f}" == "0.9864"
    said = "But beside a variance as small as 0.0007 (row 'a') ε is not negligible: that row comes out with "
    assert said + "variance 0.9864, not 1." in _words(trace, 5)
    _, chapter = _run("chapter17")
    assert "ε is not negligible" not in _words(chapter, 5)


def test_one_gate_near_zero_is_said_in_the_singular():
    _, trace = _run("chapter17-llama", positional_encoding=False)  # block 1: one gate within 0.05
    assert int((np.abs(focused(trace, 11, 0)["blocks.0.gate"]) < 0.05).sum()) == 1
    assert "Here 1 of 16 gate values is within 0.05 of zero." in _words(trace, 11, 0)
    (fact,) = _facts(trace, 11, 0)
    assert fact.startswith(
        "1 of 16 gate values is within 0.05 of zero, so that unit passes almost none of up"
    )


def test_the_walk_names_a_head_ablated_in_one_block():
    params, trace = _run("woodland", ablated=frozenset({(1, 2)}))
    assert not gradients(params, trace)["grad.blocks.1.attn.2"].any()
    said = backward_stage_for(9, trace.switches, trace.cfg).explain
    assert "Head 2 of block 2 is ablated: an output held at 0 passes nothing back" in said


def test_the_walk_gives_an_untied_e_no_unembedding_share():
    """An untied model: step 2 back said 'every row already got an unembedding share at step 14'; W_U,
    not E, made the logits, so E's rows of tokens not in the prompt get exactly 0."""
    shape, arch = MODERN["random-mqa-gelu-untied"]
    params, prompt, target = random_model(*shape, **arch)
    trace = run(params, prompt, target, defaults(params.cfg))
    grads = gradients(params, trace)
    unused = [v for v in range(params.cfg.n_vocab) if params.cfg.vocab[v] not in prompt]
    assert unused and not grads["grad.E"][unused].any()
    said = backward_stage_for(2, trace.switches, trace.cfg).explain
    assert "already got an unembedding share" not in said
    assert "W_U, not E, scored the tokens at step 14, so this share is E's whole gradient" in said


def test_one_dead_unit_is_said_in_the_singular():
    shape, arch = MODERN["random-mqa-gelu-untied"]
    params, prompt, target = random_model(*shape, **arch)
    trace = run(params, prompt, target, defaults(params.cfg))
    assert int((trace["blocks.0.hidden"] == 0).all(axis=0).sum()) == 1
    said = "1 of the 4 units is zero at every position, so its row of W_2 contributes nothing here."
    assert said in _words(trace, 12)


def test_a_gated_model_with_layer_norms_counts_their_biases_in_words():
    """A gated model whose norms are LayerNorms with gain and bias: step 16 said 'one gain per norm'
    while its count holds a bias per norm too."""
    shape, arch = MODERN["random-gpt2-rope-swiglu"]
    params, prompt, target = random_model(*shape, **arch)
    assert "lnf_b" in params and params.cfg.norm == "layer"
    trace = run(params, prompt, target, defaults(params.cfg))
    (said,) = [f for f in _facts(trace, 16) if f.startswith("Every parameter")]
    assert "a gain and a bias per norm" in said and "one gain per norm" not in said


def test_every_head_ablated_leaves_gpt2s_bias_in_attentions_output():
    """The tiny GPT-2 with every head ablated: attention's output is b_O at every position, not zero (step
    9 said 'attention's update is zero'), and step 10's change is that bias, not brought from elsewhere."""
    params, trace = _run("tiny GPT-2", ablated_heads=frozenset(range(1, 5)))
    mha = trace["blocks.0.mha"]
    assert mha.any() and np.array_equal(mha[0], params["blocks.0.b_O"]) and (mha == mha[0]).all()
    assert "Every head is ablated, so attention adds only its bias b_O, the same at every position." in (
        _words(trace, 9)
    )
    said = _words(trace, 10)
    assert ": all of it attention's bias b_O, since every head is ablated" in said
    assert "brought" not in said and "took" not in said


def test_the_walk_with_every_head_ablated_still_teaches_b_o():
    params, trace = _run("tiny GPT-2", ablated_heads=frozenset(range(1, 5)))
    grads = gradients(params, trace)
    assert grads["grad.blocks.0.b_O"].any() and not grads["grad.blocks.0.W_O"].any()
    said = backward_stage_for(9, trace.switches, trace.cfg).explain
    assert said.endswith(
        "nothing goes back through attention (only b_O, added whatever the heads give, still learns)."
    )


def test_step_9_says_b_o_only_where_the_model_has_it_and_adds_only_with_the_residual():
    """A Qwen2-like model has biases on Q, K and V but none on W_O: step 9 said 'A learned bias b_O is
    added'. With the residual off, attention's numbers become x′ rather than being added."""
    shape, arch = MODERN["random-qwen2"]
    params, prompt, target = random_model(*shape, **arch)
    assert params.cfg.attn_bias and not params.cfg.out_bias and "blocks.0.b_O" not in params
    trace = run(params, prompt, target, defaults(params.cfg))
    assert "b_O" not in _words(trace, 9)
    _, off = _run("chapter17", residual=False)
    assert (
        "the 4 numbers attention hands on (with the residual off they replace the stream rather than add"
        in _words(off, 9)
    )
    _, on = _run("chapter17")
    assert "the 4 numbers attention adds at each position." in _words(on, 9)


def test_post_norm_without_the_residual_still_normalises():
    _, trace = _run("chapter17", residual=False, norm="post")
    assert "(already normalised at the end of step 10) is widened" in _words(trace, 11)
    said = "the result replaces the stream (residual off); then it is normalised (post-norm)."
    assert said in _words(trace, 12)
    assert np.allclose(trace["blocks.0.y"].mean(axis=1), 0, atol=1e-12)  # y is LN's output
