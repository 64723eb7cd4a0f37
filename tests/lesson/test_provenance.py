"""Why this number, checked by evaluation: every explanation recomputes its value from its operands.

For every cell of every tensor, parameter and gradient (the chapter model under all 128 switch
combinations; small random models, 3 heads and 2 blocks among them, under the backward tests' switches
and more; a d_model 64 model on a sample of cells):
- the value evaluated from the operands' values equals the trace's, to 1e-9 relative;
- every operand names a real cell and carries that cell's value exactly;
- result is the value as displayed (4 decimals, Unicode minus; a token id as an integer).
"""

from __future__ import annotations

import itertools
import math
import os
import re

import numpy as np
import pytest

from tests.model.reference_backward import GPT2, RANDOM, SWITCHES, random_model
from tinytui.lesson.why import (
    attention_cells,
    block_cells,
    grad_block_cells,
    grad_cells,
    grad_param_cells,
    modern_cells,
    stream_cells,
)
from tinytui.lesson.why.explain import RULES, CellError, explain, names_of, parse_cell
from tinytui.lesson.why.why import num
from tinytui.model.backward.gradients import gradients
from tinytui.model.io.model_file import load
from tinytui.model.io.presets import presets
from tinytui.model.names import label
from tinytui.model.switches import Switches
from tinytui.model.trace import run

RTOL, ATOL = 1e-9, 1e-12


def every_switch(n_heads: int) -> list[Switches]:
    heads = range(1, n_heads + 1)
    ablations = [frozenset(c) for r in range(n_heads + 1) for c in itertools.combinations(heads, r)]
    return [
        Switches(
            causal_mask=m, positional_encoding=pe, ablated_heads=ab, activation=act, norm=nm, residual=res
        )
        for m, pe, ab, act, nm, res in itertools.product(
            (True, False), (True, False), ablations, ("relu", "gelu"), ("pre", "post"), (True, False)
        )
    ]


CHAPTER_SWITCHES = every_switch(2)  # 2 × 2 × 4 × 2 × 2 × 2 = 128
MORE = {
    **SWITCHES,
    "head 1 ablated": Switches(ablated_heads={1}),
    "mask off, post-norm, GELU": Switches(causal_mask=False, norm="post", activation="gelu"),
    "PE off, residual off, heads 1 3 ablated": Switches(
        positional_encoding=False, residual=False, ablated_heads={1, 3}
    ),
    "post-norm, residual off": Switches(norm="post", residual=False),
}


def arrays_of(trace, params, grads) -> dict[str, np.ndarray]:
    """Every name's array, looked up apart from the provenance module: trace, gradients, parameters."""
    return {**{n: params[n] for n in params}, **dict(grads.items()), **dict(trace.items())}


def check_cell(trace, params, grads, arrays, name, index) -> None:
    why = explain(trace, params, name, index, grads)
    want = float(arrays[name][index])
    where = f"{name}{list(index)} under {trace.switches.describe()}"
    assert why.name == name and why.index == index, where
    assert why.value == want, where
    looked_up = []
    for op in why.operands:
        arr = arrays[op.name]
        assert len(op.index) == arr.ndim, f"{where}: operand {op.name}{list(op.index)} is not a full index"
        looked_up.append(float(arr[op.index]))
        assert op.value == looked_up[-1], f"{where}: operand {op.name}{list(op.index)}"
    got = why.evaluate(looked_up)
    assert abs(got - want) <= RTOL * abs(want) + ATOL, f"{where}: evaluated {got!r}, the trace has {want!r}"
    assert why.result == (str(int(want)) if name == "ids" else num(want)), where
    assert why.formula.startswith(label(name, trace.cfg.n_blocks).split(" (block")[0]), where
    assert why.filled and "-" not in why.filled.replace("e-0", ""), where  # the Unicode minus only


def walk(params, prompt, target, sw, sample: int | None = None, seed: int = 0) -> int:
    """Check every cell (or `sample` random cells of each tensor); returns how many were checked."""
    trace = run(params, prompt, target, sw)
    grads = gradients(params, trace)
    arrays = arrays_of(trace, params, grads)
    assert set(arrays) == set(names_of(trace, params, grads))
    rng = np.random.default_rng(seed)
    n = 0
    for name, arr in arrays.items():
        if sample is not None and arr.size > sample:
            cells = [np.unravel_index(i, arr.shape) for i in rng.choice(arr.size, sample, replace=False)]
        else:
            cells = list(np.ndindex(arr.shape))
        for index in cells:
            check_cell(trace, params, grads, arrays, name, tuple(int(i) for i in index))
            n += 1
    return n


@pytest.mark.parametrize("sw", CHAPTER_SWITCHES, ids=lambda sw: sw.describe())
def test_every_cell_of_the_chapter_model_under_every_switch(chapter, sw):
    n = walk(chapter.params, chapter.prompt, chapter.target, sw)
    trace = run(chapter.params, chapter.prompt, chapter.target, sw)
    grads = gradients(chapter.params, trace)
    assert n == sum(a.size for a in arrays_of(trace, chapter.params, grads).values()) > 900


def test_the_walk_covers_every_tensor_and_gradient(chapter, trace):
    grads = gradients(chapter.params, trace)
    names = set(names_of(trace, chapter.params, grads))
    assert set(trace) | set(chapter.params) | set(grads) == names
    for must in ("grad.E", "grad.E.lookup", "grad.E.unembed", "grad.blocks.0.W_Q", "grad.blocks.0.scores.2"):
        assert must in names


def test_the_rule_tables_are_disjoint():
    tables = [m.RULES for m in (stream_cells, attention_cells, block_cells)]
    tables += [grad_cells.RULES, grad_block_cells.RULES, grad_param_cells.RULES, modern_cells.RULES]
    assert sum(len(t) for t in tables) == len(RULES)


@pytest.mark.parametrize("shape", list(RANDOM))
@pytest.mark.parametrize("sw_name", list(MORE))
def test_every_cell_of_random_models(shape, sw_name):
    params, prompt, target = random_model(*RANDOM[shape])
    sw = MORE[sw_name]
    if any(h > params.cfg.n_heads for h in sw.ablated_heads):
        sw = Switches(**{**sw.to_dict(), "ablated_heads": {1}})
    assert walk(params, prompt, target, sw) > 0


@pytest.mark.parametrize("shape", list(GPT2))
@pytest.mark.parametrize("sw_name", list(MORE))
def test_every_cell_of_random_gpt2_models(shape, sw_name):
    """GPT-2's terms on (all of them, and mixed): P, the norms' gains and biases, the attention biases."""
    dims, switches = GPT2[shape]
    params, prompt, target = random_model(*dims, **switches)
    sw = MORE[sw_name]
    if any(h > params.cfg.n_heads for h in sw.ablated_heads):
        sw = Switches(**{**sw.to_dict(), "ablated_heads": {1}})
    assert walk(params, prompt, target, sw) > 0


@pytest.mark.parametrize("sw_name", ["default", "all changed", "post-norm", "mask off, post-norm, GELU"])
def test_a_wide_model_on_a_sample_of_cells(sw_name):
    # d_model 64, 3 heads of 8, 2 blocks, 9 tokens: the long rows that are shown as "… + N more"
    params, prompt, target = random_model(21, 64, 3, 8, 96, 11, 2, 9)
    assert walk(params, prompt, target, MORE[sw_name], sample=12, seed=3) > 0


# ---- what it says -----------------------------------------------------------------------------------------


def test_the_briefs_example(chapter, trace):
    why = explain(trace, chapter.params, "scores.2", (1, 0))
    assert why.formula == "scores.2[1,0] = (q.2[1] · k.2[0]) / √2"
    assert why.filled == "(−1.3145·0.5773 + 0.7194·0.5773) / 1.4142"
    assert why.result == "−0.2429"
    assert [(o.name, o.index) for o in why.operands] == [
        ("blocks.0.q.2", (1, 0)),
        ("blocks.0.k.2", (0, 0)),
        ("blocks.0.q.2", (1, 1)),
        ("blocks.0.k.2", (0, 1)),
    ]


def test_masked_ablated_and_dead_cells_say_so(chapter):
    p = chapter.params
    t = run(p, chapter.prompt, chapter.target, Switches(ablated_heads={1}))
    assert "masked" in explain(t, p, "attn.2", (0, 3)).formula
    assert explain(t, p, "attn.2", (0, 3)).operands[0].name == "mask"
    assert "stored before the mask" in explain(t, p, "scores.2", (0, 3)).formula
    head = explain(t, p, "head.1", (2, 0))
    assert "ablated" in head.formula and head.operands == () and head.value == 0
    assert "ablated" in explain(t, p, "grad.attn.1", (2, 0)).formula
    dead = explain(t, p, "grad.hidden_pre", (3, 1))
    assert "dead unit" in dead.filled and dead.value == 0
    off = run(p, chapter.prompt, chapter.target, Switches(causal_mask=False))
    assert "mask off" in explain(off, p, "attn.2", (0, 3)).formula


def test_the_formula_is_the_one_that_ran(chapter):
    p, prompt, target = chapter.params, chapter.prompt, chapter.target
    post = run(p, prompt, target, Switches(norm="post"))
    assert "LN(x[1] + mha[1])" in explain(post, p, "x_mid", (1, 2)).formula
    assert "post-norm" in explain(post, p, "x_norm", (1, 2)).formula
    bare = run(p, prompt, target, Switches(residual=False))
    assert explain(bare, p, "y", (1, 2)).formula == "y[1,2] = ffn[1,2]   (residual off: no skip)"
    assert "residual off" in explain(bare, p, "grad.x", (1, 2)).formula
    gelu = run(p, prompt, target, Switches(activation="gelu"))
    assert "tanh" in explain(gelu, p, "hidden", (1, 1)).formula
    assert "GELU′" in explain(gelu, p, "grad.hidden_pre", (1, 1)).formula
    nope = run(p, prompt, target, Switches(positional_encoding=False))
    assert "switched off" in explain(nope, p, "pe", (1, 2)).formula
    assert [o.name for o in explain(nope, p, "x", (1, 2)).operands] == ["emb"]


def test_long_rows_show_a_few_terms_but_keep_every_operand():
    params, prompt, target = random_model(21, 64, 3, 8, 96, 11, 2, 9)
    trace = run(params, prompt, target)
    why = explain(trace, params, "blocks.1.hidden_pre", (2, 5))
    assert "… + 60 more" in why.filled
    assert len(why.operands) == 2 * 64 + 1
    assert why.formula.startswith("hidden_pre[2,5] (block 2) = x_mid_norm[2] (block 2)")
    wide = explain(trace, params, "grad.blocks.0.x_norm", (1, 3))
    assert "more" in wide.filled and len(wide.operands) == 2 * 3 * 3 * 8


def test_operands_are_what_the_value_depends_on(chapter, trace):
    # nudging one operand moves the evaluated value; the value of a masked cell ignores the scores
    why = explain(trace, chapter.params, "logits", (4,))
    vals = [o.value for o in why.operands]
    vals[0] += 1.0  # z[0] times E[4, 0] = 1
    assert why.evaluate(vals) == pytest.approx(why.value + 1.0)


# ---- reading what a person types ------------------------------------------------------------------


def test_parse_cell_reads_names_and_labels(chapter, trace):
    p = chapter.params
    assert parse_cell("attn.2[1,0]", trace, p) == ("blocks.0.attn.2", (1, 0))
    assert parse_cell("blocks.0.attn.2[1:woodchuck, 0:a]", trace, p) == ("blocks.0.attn.2", (1, 0))
    assert parse_cell("attn.2[woodchuck, a]", trace, p) == ("blocks.0.attn.2", (1, 0))
    assert parse_cell("W_O[h1.k1, wood]", trace, p) == ("blocks.0.W_O", (1, 3))
    assert parse_cell("grad.W_Q[head 2, thing, k1]", trace, p) == ("grad.blocks.0.W_Q", (1, 0, 1))
    assert parse_cell("loss", trace, p) == ("loss", ())
    assert parse_cell("logits[wood]", trace, p) == ("logits", (4,))


def test_parse_cell_reads_block_labels():
    params, prompt, target = random_model(13, 3, 2, 3, 4, 5, 2, 6)
    trace = run(params, prompt, target)
    assert parse_cell("attn.2 (block 2)[1,0]", trace, params) == ("blocks.1.attn.2", (1, 0))
    assert parse_cell("W_1@1[0,0]", trace, params) == ("blocks.1.W_1", (0, 0))


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("nope[0]", "no tensor named 'nope'; the names are: id, E[id], PE"),  # as the screen names them
        ("attn.3[0,0]", "no tensor named 'attn.3'"),
        ("attn.2[4,0]", "'4' is not on axis tokens; tokens 0–3 (0:a, 1:woodchuck, 2:would, 3:chuck)"),
        ("attn.2[1]", "A_2 has 2 axes (tokens, keys): give 2 indices"),
        ("loss[0]", "L is a single number: give no index"),
        ("logits[banana]", "'banana' is not on axis vocab"),
    ],
)
def test_parse_cell_errors_say_what_exists(chapter, trace, text, needle):
    with pytest.raises(CellError) as err:
        parse_cell(text, trace, chapter.params)
    assert needle in str(err.value)
    assert "\n" not in str(err.value)


def test_explain_refuses_a_cell_that_does_not_exist(chapter, trace):
    with pytest.raises(CellError, match="not on axis"):
        explain(trace, chapter.params, "attn.2", (0, 9))
    with pytest.raises(CellError, match="no tensor named"):
        explain(trace, chapter.params, "attention", (0, 0))


# ---- a filled formula is true as written ------------------------------------------------------------------

_FUNCTIONS = {"sqrt": math.sqrt, "exp": math.exp, "log": math.log, "sin": math.sin, "cos": math.cos}
_FUNCTIONS |= {"tanh": math.tanh, "max": max, "__builtins__": {}}


def read_as_written(piece: str) -> float | None:
    """A piece of a filled formula worked out as a reader would, apart from lesson/why/written.py: None
    when it is not all written out ("… + 4 more", words, an index)."""
    if any(c in piece for c in "…∞[≤>:\"'") or re.search(
        r"\b[A-Za-z]{2,}\b(?!\()", piece.replace("log ", "")
    ):
        return None
    py = piece.replace("−", "-").replace("·", "*").replace("²", "**2").replace("³", "**3")
    py = re.sub(r"log (\S+)", r"log(\1)", re.sub(r"√(\d[\d.]*)", r"sqrt(\1)", py)).replace("√(", "sqrt(")
    try:
        return float(eval(py, _FUNCTIONS))  # only arithmetic reaches here, and only the app's own text
    except (SyntaxError, NameError, TypeError, ValueError, ZeroDivisionError):
        return None


def check_true_as_written(why) -> None:
    doc = why.to_json()
    where = f"{why.name}{list(why.index)}: {doc['filled']} {why.ending}"
    say = (lambda v: str(int(v))) if why.name == "ids" else num
    chain = doc["filled"].split("   (", 1)[0].rsplit(":  ", 1)[-1]
    pieces = re.split(r" (=|≈) ", chain)
    values = [read_as_written(p) for p in pieces[0::2]]
    for (a, b), mark in zip(itertools.pairwise(values), pieces[1::2]):
        if a is not None and b is not None:
            assert (num(a) == num(b)) == (mark == "="), where
    last = values[-1]
    if last is None and why.operands:  # not all written: the operands as the tables show them
        last = why.evaluate(
            [o.value if o.name in ("ids", "mask") else round(o.value, 4) for o in why.operands]
        )
    if doc["equals"] == "=":
        assert doc["gives"] is None and why.ending == f"= {doc['result']}", where
        assert last is None or not math.isfinite(last) or say(last) == doc["result"], where
    else:
        assert doc["equals"] == "≈" and why.ending.startswith(f"≈ {doc['result']}   ("), where
        assert last is not None and say(last) == say(doc["gives"]) != doc["result"], where
        assert say(doc["gives"]) in why.ending, where


# woodland has 25,000 cells: the suite checks a seeded sample of each tensor's (every cell with
# TINYTUI_EVERY_CELL=1); the chapter model's every cell
SAMPLE = {"chapter17": None, "woodland": None if os.environ.get("TINYTUI_EVERY_CELL") else 12}


@pytest.mark.parametrize("preset", list(SAMPLE))
def test_every_filled_formula_is_true_as_written_or_marked(preset):
    model = load(presets()[preset])
    trace = run(model.params, model.prompt, model.target)
    grads = gradients(model.params, trace)
    rng = np.random.default_rng(0)
    marked = 0
    for name, arr in arrays_of(trace, model.params, grads).items():
        cells = list(np.ndindex(arr.shape))
        if SAMPLE[preset] is not None and len(cells) > SAMPLE[preset]:
            cells = [cells[i] for i in rng.choice(len(cells), SAMPLE[preset], replace=False)]
        for index in cells:
            why = explain(trace, model.params, name, tuple(int(i) for i in index), grads)
            check_true_as_written(why)
            marked += why.gives is not None
    assert marked > 20  # 4 decimals of each operand often move the 4th of the result


def test_the_issues_three_lines(chapter, trace):
    mid = explain(trace, chapter.params, "x_mid", (1, 3))
    assert (mid.filled, mid.ending) == ("1.5000 + 0.5788", "≈ 2.0787   (these rounded numbers give 2.0788)")
    loss = explain(trace, chapter.params, "loss")
    assert (loss.filled, loss.ending) == ("−log 0.3107", "≈ 1.1690   (these rounded numbers give 1.1689)")
    s = explain(trace, chapter.params, "scores.2", (0, 0))
    assert s.filled == "(0.5773·0.5773 + 0.5773·0.5773) / 1.4142"
    assert s.ending == "≈ 0.4714   (these rounded numbers give 0.4713)"
    sure = explain(trace, chapter.params, "scores.2", (1, 0))
    assert sure.ending == "= −0.2429" and sure.to_json()["equals"] == "="
