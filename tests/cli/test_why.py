"""tinytui why NAME[i,j]: one number explained, as text and as JSON; a bad name or index is one line."""

from __future__ import annotations

import json
import subprocess
import sys

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
    assert lines[:3] == [
        "scores.2[1,0] = (q.2[1] · k.2[0]) / √2",
        "  = (−1.3145·0.5773 + 0.7194·0.5773) / 1.4142",
        "  = −0.2429",
    ]
    assert "operands:" in lines
    ops = lines[lines.index("operands:") + 1 :]
    assert len(ops) == 4
    assert ops[0].split() == ["q.2[1,0]", "−1.3145", "1:woodchuck,", "k0"]


def test_labels_and_canonical_names_read_the_same_cell(capsys):
    outs = {
        why(capsys, cell)[1]
        for cell in ("attn.2[1,0]", "blocks.0.attn.2[1:woodchuck, 0:a]", "attn.2[woodchuck,a]")
    }
    assert len(outs) == 1


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
    assert rc == 0 and out.splitlines()[2] == "  = 1.1690"
    rc, out, _ = why(capsys, "ids[1]")
    assert rc == 0 and out.splitlines()[2] == "  = 5" and "operands: none" in out


@pytest.mark.parametrize(
    ("cell", "needle"),
    [
        ("nope[0,0]", "no tensor named 'nope'; the names are: ids, emb, pe, x"),
        ("attn.2[9,0]", "attn.2: '9' is not on axis tokens; tokens 0–3 (0:a, 1:woodchuck, 2:would, 3:chuck)"),
        ("attn.2[0]", "attn.2 has 2 axes (tokens, keys): give 2 indices"),
        ("W_O[h9.k0, thing]", "'h9.k0' is not on axis heads"),
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
    assert done.stdout.startswith("grad.x[3,0] = (g_0 − mean(g) − x̂_0·mean(g·x̂)) / √(σ² + ε) + grad.mha[3,0]")
