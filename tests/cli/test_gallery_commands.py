"""`tinytui circuits` and `tinytui attribution`: the JSON is the model functions' output, the plain text
is readable, and bad options are one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.model.reference_backward import random_model
from tinytui.cli.main import main
from tinytui.model.analysis.attribution import attribution
from tinytui.model.analysis.circuits import circuits
from tinytui.model.io.document import ModelFile
from tinytui.model.io.model_file import save
from tinytui.model.switches import Switches
from tinytui.model.trace import run

FIXTURES = Path(__file__).parents[1] / "llama" / "fixtures"


def cli(capsys, *args):
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture(scope="module")
def two_blocks(tmp_path_factory):
    """A model file with 2 blocks, 3 heads and d_model 6."""
    params, prompt, target = random_model(41, 6, 3, 2, 5, 9, 2, 5)
    path = tmp_path_factory.mktemp("gallery") / "two-blocks.json"
    save(ModelFile("two-blocks", "a random model for the tests", params, prompt, target), path)
    return path, params, prompt, target


def test_circuits_json_is_the_functions(capsys, chapter):
    rc, out, err = cli(capsys, "circuits", "--json")
    assert rc == 0 and err == ""
    doc = json.loads(out)
    assert doc["vocab"] == list(chapter.params.cfg.vocab)
    found = circuits(chapter.params)
    assert [(h["block"], h["head"]) for h in doc["heads"]] == [(c.block, c.head) for c in found]
    for h, c in zip(doc["heads"], found):
        assert np.array_equal(h["qk"], c.qk.values) and np.array_equal(h["ov"], c.ov.values)
    assert set(doc["ignores"]) == {"qk", "ov"}


def test_circuits_of_a_two_block_model(capsys, two_blocks):
    path, params, _, _ = two_blocks
    rc, out, _ = cli(capsys, "circuits", "--json", "--model", str(path))
    assert rc == 0
    doc = json.loads(out)
    assert [(h["block"], h["head"]) for h in doc["heads"]] == [(b, h) for b in (0, 1) for h in (1, 2, 3)]
    assert np.array_equal(doc["heads"][4]["ov"], circuits(params)[4].ov.values)
    rc, out, _ = cli(capsys, "circuits", "--model", str(path))
    assert rc == 0 and "head 3 of block 2, OV" in out


def test_circuits_plain_text(capsys):
    rc, out, _ = cli(capsys, "circuits")
    assert rc == 0 and "{" not in out
    assert "head 1, QK (rows: attending token, columns: attended token)" in out
    assert "head 2, OV (rows: attended token, columns: output token)" in out
    assert "It ignores position" in out
    # head 1's QK: chuck attends to wood with a raw score of 1.0607 (= 1.5/√2)
    row = next(line for line in out.splitlines() if line.startswith("chuck "))
    assert "1.0607" in row.split()


def test_circuits_text_names_a_modern_model_s_parts(capsys):
    """Llama's RMSNorm, rotary positions, untied W_U and shared key/value heads; the chapter's model under
    the RMSNorm and RoPE switches; Qwen2's b_V without b_O. None of them reads "layer norm"."""
    rc, out, _ = cli(capsys, "circuits", "--model", str(FIXTURES / "tiny-llama"))
    assert rc == 0 and "layer norm" not in out and "no positional encoding" not in out
    assert "the rotary turn of queries and keys" in out and "the RMSNorm before the head" in out
    assert "OV = E W_V W_O^(h) W_U:" in out
    assert "The 4 query heads share 2 key/value heads" in out
    rc, out, _ = cli(capsys, "circuits", "--norm", "rms", "--positions", "rope")
    assert rc == 0 and "layer norm" not in out and "OV = E W_V W_O^(h) Eᵀ:" in out
    rc, out, _ = cli(capsys, "circuits", "--json", "--positions", "rope")
    assert "rotary turn" in json.loads(out)["ignores"]["qk"]
    rc, out, _ = cli(capsys, "circuits", "--model", str(FIXTURES / "tiny-qwen2"))
    assert rc == 0 and "the biases b_Q and b_K" in out and "the bias b_V," in out and "b_O" not in out


def test_attribution_json_is_the_function(capsys, chapter):
    rc, out, err = cli(capsys, "attribution", "--json", "--target", "chuck")
    assert rc == 0 and err == ""
    doc = json.loads(out)
    trace = run(chapter.params, chapter.prompt, "chuck")
    assert doc == json.loads(json.dumps(attribution(chapter.params, trace).to_json()))
    assert doc["position"] == 3 and list(doc["tokens"]) == ["wood", "chuck"]
    for tok in doc["tokens"].values():
        assert abs(sum(tok["parts"].values()) - tok["logit"]) < 1e-12


def test_attribution_takes_the_run_options(capsys, two_blocks):
    path, params, _, _ = two_blocks
    args = ["--model", str(path), "--prompt", "t1 t2 t3", "--target", "t4", "--no-pe", "--no-mask"]
    rc, out, _ = cli(capsys, "attribution", "--json", *args)
    assert rc == 0
    doc = json.loads(out)
    trace = run(params, ("t1", "t2", "t3"), "t4", Switches(causal_mask=False, positional_encoding=False))
    assert doc == json.loads(json.dumps(attribution(params, trace).to_json()))
    assert doc["position"] == 2 and "blocks.1.head.3" in doc["tokens"]["t4"]["parts"]
    assert all(v == 0.0 for t in doc["tokens"].values() for k, v in t["parts"].items() if k == "pe")


def test_attribution_plain_text(capsys):
    rc, out, _ = cli(capsys, "attribution")
    assert rc == 0
    assert "σ = 2.3599" in out and "logit of 'wood' (the prediction and the target): 1.0480" in out
    lines = out.splitlines()
    assert any(line.split() == ["head", "2", "·W_O", "0.2647"] for line in lines)
    assert any(line.split() == ["sum", "1.0480"] for line in lines)


def test_attribution_says_the_switched_off_encodings_zero_is_the_switch(capsys):
    rc, out, _ = cli(capsys, "attribution", "--no-pe")
    assert rc == 0
    lines = out.splitlines()
    assert any(line.split() == ["PE", "(switched", "off)", "0.0000"] for line in lines)
    rc, out, _ = cli(capsys, "attribution")
    assert any(line.split()[:2] == ["positional", "encoding"] for line in out.splitlines())
    assert "switched off" not in out


def test_attribution_names_the_rms_norms_divisor(capsys):
    rc, out, _ = cli(capsys, "attribution", "--model", "chapter17-llama")
    assert rc == 0 and "the final RMSNorm's root mean square 0.9305 is held" in out and "σ" not in out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["circuits", "--prompt", "a beaver"], "--prompt: 'beaver' is not in the vocabulary"),
        (["attribution", "--target", "beaver"], "--target: 'beaver'"),
        (["attribution", "--lr", "0"], "--lr:"),
        (["circuits", "--json", "--model", "/nonexistent.json"], "/nonexistent.json: cannot read"),
    ],
)
def test_bad_options_are_one_line(args, needle):
    done = subprocess.run([sys.executable, "-m", "tinytui", *args], capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert needle in done.stderr and done.stderr.count("\n") == 1
