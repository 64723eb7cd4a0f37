"""tinytui why NAME[i,j]: one number explained, as text and as JSON; a bad name or index is one line."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from tinytui.cli.main import main


def why(capsys, *args):
    rc = main(["why", *args])
    out, err = capsys.readouterr()
    return rc, out, err


def test_text_shows_formula_filled_result_and_operands(capsys):
    rc, out, err = why(capsys, "scores.2[1,0]")
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[:4] == [
        "S_2[1,0]   (canonical: scores.2[1,0])",
        "S_2[1,0] = (Q_2[1] · K_2[0]) / √2",
        "  = (−1.3145·0.5773 + 0.7194·0.5773) / 1.4142",
        "  = −0.2429",
    ]
    assert "operands:" in lines
    ops = lines[lines.index("operands:") + 1 :]
    assert len(ops) == 4
    assert ops[0].split() == ["Q_2[1,0]", "q.2[1,0]", "−1.3145", "1:woodchuck,", "k0"]


def test_labels_and_canonical_names_read_the_same_cell(capsys):
    outs = {
        why(capsys, cell)[1]
        for cell in ("attn.2[1,0]", "blocks.0.attn.2[1:woodchuck, 0:a]", "attn.2[woodchuck,a]")
    }
    assert len(outs) == 1


@pytest.mark.parametrize(
    ("screen", "canonical"),
    [
        ("A_2[1,0]", "attn.2[1,0]"),
        ("A_2[1:woodchuck, 0:a]", "attn.2[1,0]"),
        ("W_O[h2.k0, thing]", "W_O[2,0]"),
        ("W_Q[h1: wood, k1]", "W_Q[0,3,1]"),
        ("∂L/∂W_O[h1.k0, thing]", "grad.W_O[0,0]"),
        ("x′[3,3]", "x_mid[3,3]"),
        ("x'[3, wood]", "x_mid[3,3]"),
        ("ℓ[wood]", "logits[4]"),
        ("L", "loss"),
        ("∂L/∂E (lookup share)[a, thing]", "grad.E.lookup[0,0]"),
    ],
)
def test_the_screens_names_read_the_same_cell_as_the_canonical_ones(capsys, screen, canonical):
    """A name as the tables and the inspector write it explains the same cell, and both names are printed."""
    _, by_screen, err = why(capsys, screen)
    _, by_canonical, _ = why(capsys, canonical)
    assert by_screen and by_screen == by_canonical, err
    assert f"(canonical: {canonical})" in by_screen.splitlines()[0]


def test_the_screens_name_is_printed_beside_the_canonical_one(capsys):
    _, out, _ = why(capsys, "grad.W_O[0,0]")
    assert out.splitlines()[0] == "∂L/∂W_O[h1.k0, thing]   (canonical: grad.W_O[0,0])"
    _, out, _ = why(capsys, "W_Q[0,3,1]")
    assert out.splitlines()[0] == "W_Q[h1: wood, k1]   (canonical: W_Q[0,3,1])"
    rc, out, _ = why(capsys, "--json", "A_2[1,0]")
    doc = json.loads(out)
    assert rc == 0 and doc["name"] == "blocks.0.attn.2" and doc["shown"] == "A_2[1,0]"
    assert [o["shown"] for o in doc["operands"]][:2] == ["mask[1,0]", "mask[1,1]"]


def test_screen_names_of_a_later_block(capsys):
    rc, out, err = why(capsys, "--model", "woodland", "A_2[1,0] (block 2)")
    assert rc == 0, err
    assert out.splitlines()[0] == "A_2[1,0] (block 2)   (canonical: attn.2[1,0] (block 2))"
    _, same, _ = why(capsys, "--model", "woodland", "blocks.1.attn.2[1,0]")
    _, weight, _ = why(capsys, "--model", "woodland", "W_O (block 2)[h1.k0, d0]")
    assert same == out and weight.startswith("W_O (block 2)[h1.k0, d0]   (canonical: W_O[0,0] (block 2))")


def test_json(capsys):
    rc, out, _ = why(capsys, "--json", "grad.W_O[h1.k0, thing]")
    assert rc == 0
    doc = json.loads(out)
    assert {"name", "index", "value", "formula", "operands", "result"} <= set(doc)
    assert doc["name"] == "grad.blocks.0.W_O" and doc["index"] == [0, 0]
    assert doc["result"] == "0.1060"
    assert doc["operands"][0] == {
        "name": "blocks.0.head.1",
        "index": [0, 0],
        "value": doc["operands"][0]["value"],
        "shown": "head_1[0,0]",
    }
    assert len(doc["operands"]) == 8


def test_run_options_change_the_explanation(capsys):
    _, base, _ = why(capsys, "attn.2[0,3]")
    assert "masked" in base
    rc = main(["--no-mask", "why", "attn.2[0,3]"])
    nomask = capsys.readouterr().out
    assert rc == 0 and "mask off" in nomask
    rc = main(["why", "--no-pe", "x[1,2]"])
    assert rc == 0 and "no position added" in capsys.readouterr().out
    rc = main(["why", "--prompt", "a woodchuck", "--target", "chuck", "--lr", "1/4", "logits_stepped[1]"])
    out = capsys.readouterr().out
    assert rc == 0 and "lr = 0.25" in out


def test_a_scalar_and_a_token_id(capsys):
    rc, out, _ = why(capsys, "loss")
    assert rc == 0 and out.splitlines()[2:4] == [
        "  = −log 0.3107",
        "  ≈ 1.1690   (these rounded numbers give 1.1689)",  # −log 0.3107 is 1.16893
    ]
    rc, out, _ = why(capsys, "ids[1]")
    assert rc == 0 and out.splitlines()[3] == "  = 5" and "operands: none" in out


@pytest.mark.parametrize(
    ("cell", "needle"),
    [
        ("nope[0,0]", "no tensor named 'nope'; the names are: id, E[id], PE, x, mask, μ, σ², x_n, Q_1"),
        ("attn.2[9,0]", "A_2: '9' is not on axis tokens; tokens 0–3 (0:a, 1:woodchuck, 2:would, 3:chuck)"),
        ("attn.2[0]", "A_2 has 2 axes (tokens, keys): give 2 indices"),
        ("W_O[h9.k0, thing]", "'h9.k0' is not on axis heads"),
        ("A_9[1,0]", "no tensor named 'attn.9'; the names are: id, E[id]"),
    ],
)
def test_a_bad_cell_is_one_line_and_exit_2(capsys, cell, needle):
    rc, out, err = why(capsys, cell)
    assert rc == 2 and out == ""
    assert err.startswith("tinytui: error: ") and needle in err
    assert err.count("\n") == 1


def test_from_the_command_line():
    done = subprocess.run(
        [sys.executable, "-m", "tinytui", "why", "grad.x[3,0]"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == [
        "∂L/∂x[3,0]   (canonical: grad.x[3,0])",
        "∂L/∂x[3,0] = (g_0 − mean(g) − x̂_0·mean(g·x̂)) / √(σ² + ε) + ∂L/∂MHA[3,0],  g = ∂L/∂x_n[3], "
        "x̂ = LN(x[3])",
    ]


@pytest.mark.parametrize("model", ["chapter17", "woodland", "gpt2"])
def test_every_cells_screen_name_reads_back_to_that_cell(model):
    """screen_cell and canonical_cell are inverses over every tensor, gradient and weight of a model:
    the first, a middle and the last cell of each."""
    from tests.gpt2.checkpoints import TINY
    from tinytui.lesson.texts.display_names import canonical_cell, screen_cell
    from tinytui.lesson.why.explain import axes_of, names_of, parse_cell
    from tinytui.model.backward.gradients import gradients
    from tinytui.model.io.checkpoint import load_checkpoint, load_model
    from tinytui.model.io.presets import resolve
    from tinytui.model.trace import run

    m = load_checkpoint(TINY) if model == "gpt2" else load_model(resolve(model))
    trace = run(m.params, m.prompt, m.target)
    grads = gradients(m.params, trace)
    checked = 0
    for name in names_of(trace, m.params, grads):
        shape = tuple(len(a.labels) for a in axes_of(name, trace, grads))
        for flat in {0, int(np.prod(shape)) // 2, int(np.prod(shape)) - 1}:
            index = tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()
            shown = screen_cell(trace.cfg, name, index, shape)
            read = parse_cell(canonical_cell(shown), trace, m.params, grads)
            # one screen name, two names: ∂L/∂ℓ is step 15's table (grad_logits) and the walk's grad.logits
            same = {"grad.logits": "grad_logits"}.get(name, name)
            assert read == (same, index), shown
            if same != name:
                assert np.array_equal(grads[name], trace[same])
            checked += 1
    assert checked > 200


def test_a_filled_formula_is_true_as_written(capsys):
    """The shown operands of x′[1,3] add to 2.0788, not the 2.0787 the unrounded ones give: the line
    says ≈ and what the written numbers give; --json says so too."""
    rc, out, _ = why(capsys, "x′[1,3]")
    assert rc == 0 and out.splitlines()[2:4] == [
        "  = 1.5000 + 0.5788",
        "  ≈ 2.0787   (these rounded numbers give 2.0788)",
    ]
    rc, out, _ = why(capsys, "--json", "S_2[0,0]")
    doc = json.loads(out)
    assert doc["filled"] == "(0.5773·0.5773 + 0.5773·0.5773) / 1.4142"
    assert (doc["equals"], doc["result"], round(doc["gives"], 4)) == ("≈", "0.4714", 0.4713)
    rc, out, _ = why(capsys, "--json", "S_2[1,0]")
    assert (json.loads(out)["equals"], json.loads(out)["gives"]) == ("=", None)
