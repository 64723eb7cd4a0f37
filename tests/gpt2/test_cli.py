"""--model FOLDER for the commands: text prompts split by the checkpoint's BPE, --target as a piece or a
one-piece word, trace --json --only, one-line errors."""

import io
import json

import numpy as np
import pytest

from tests.gpt2.checkpoints import TINY, reference
from tinytui.cli.main import cmd_trace, main
from tinytui.cli.options import build_parser


def trace_json(*args) -> dict:
    out = io.StringIO()
    assert cmd_trace(build_parser().parse_args(["--model", str(TINY), "trace", "--json", *args]), out) == 0
    return json.loads(out.getvalue())


def test_trace_only_gives_the_asked_tensors_in_order():
    case = reference()["prompts"][0]
    doc = trace_json("--prompt", case["text"], "--target", "to", "--only", "logits, blocks.1.attn.2,loss,E")
    assert list(doc["tensors"]) == ["logits", "blocks.1.attn.2", "loss"]
    assert list(doc["weights"]) == ["E"] and doc["weights"]["E"]["shape"] == [360, 16]
    assert doc["prompt"] == case["pieces"] and doc["target"] == "Ġto" == case["target"]
    assert doc["switches"]["activation"] == "gelu"
    assert doc["tensors"]["loss"]["values"] == pytest.approx(case["loss"], abs=1e-9)
    assert doc["tensors"]["logits"]["values"] == pytest.approx(case["tensors"]["logits"], abs=1e-9)
    assert doc["tensors"]["blocks.1.attn.2"]["axes"][0]["labels"] == ["0:The", "1:Ġriver", "2:Ġruns"]


def test_trace_only_gradients_and_short_names():
    doc = trace_json("--only", "grad.blocks.0.b_Q,grad.lnf_g,attn.1,P")
    assert list(doc["tensors"]) == ["grad.blocks.0.b_Q", "grad.lnf_g", "blocks.0.attn.1"]
    assert len(doc["tensors"]["grad.blocks.0.b_Q"]["values"]) == 4  # one row per head
    assert list(doc["weights"]) == ["P"]


def test_trace_of_the_whole_checkpoint_has_every_weight_and_gradient():
    doc = trace_json()
    assert "blocks.1.ln2_g" in doc["weights"] and "grad.blocks.1.b_O" in doc["tensors"]
    assert "blocks.0.x_mid" in doc["tensors"] and doc["model"] == "tiny-gpt2"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["trace", "--only", "nope"], "--only: 'nope' is not a tensor, gradient or weight of this model"),
        (["trace", "--only", ","], "--only: name at least one tensor"),
        (["--prompt", "", "print"], "--prompt: empty: the prompt needs at least one token"),
        (["--prompt", "river " * 40, "print"],
         "--prompt: 43 tokens is longer than the context: it holds at most 32"),
        (["--target", "zebras", "print"],
         "--target: 'zebras' is 6 pieces here (Ġ·z·e·b·r·as); the target is one"),
    ],
)  # fmt: skip
def test_bad_options_are_one_line(capsys, args, says):
    assert main(["--model", str(TINY), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tinytui: error: {says}") and err.count("\n") == 1


def test_print_and_why_on_the_checkpoint(capsys):
    assert (
        main(["--model", str(TINY), "--prompt", "The river runs", "--target", "Ġto", "print", "--step", "1"])
        == 0
    )
    out = capsys.readouterr().out
    assert "Ġriver" in out and "282" in out  # the pieces and their ids in vocab.json
    assert main(["--model", str(TINY), "--prompt", "The river runs", "why", "logits[316]"]) == 0
    out = capsys.readouterr().out
    expected = reference()["prompts"][0]["tensors"]["logits"][316]
    result = f"{expected:.4f}".replace("-", "−")  # in the app's minus sign
    # the result line: "≈" where the operands, rounded as shown, give another 4th decimal (a sum cut
    # to "… + N more" says its note counts the terms not printed)
    notes = ("   (these rounded numbers give ", "   (these terms and the ")
    assert f"  = {result}\n" in out or any(f"  ≈ {result}{note}" in out for note in notes)


def test_a_missing_checkpoint_file_is_one_line(tmp_path, capsys):
    (tmp_path / "config.json").write_text("{}")
    assert main(["--model", str(tmp_path), "print"]) == 2
    err = capsys.readouterr().err
    assert (
        err == f"tinytui: error: {tmp_path / 'model.safetensors'}: missing (a GPT-2 checkpoint folder has "
        "config.json, model.safetensors, vocab.json and merges.txt)\n"
    )


def test_circuits_of_a_large_vocabulary_are_read_at_the_prompts_tokens(capsys, monkeypatch):
    """GPT-2's whole tables would be 144 heads × 2 × 50,257²: a vocabulary over the limit gets its
    circuits at the prompt's tokens and the target, each cell the whole table's."""
    from tinytui.cli import analysis_commands
    from tinytui.model.analysis.circuits import head_circuits
    from tinytui.model.io.checkpoint import load_checkpoint

    assert main(["--model", str(TINY), "circuits", "--json"]) == 0  # 8 heads × 2 × 360²: computed whole
    whole = json.loads(capsys.readouterr().out)
    assert len(whole["vocab"]) == 360 and "ids" not in whole
    monkeypatch.setattr(analysis_commands, "MAX_CIRCUIT_CELLS", 2 * 8 * 360**2 - 1)
    args = ["--model", str(TINY), "--prompt", "The river runs to the river", "--target", "runs", "circuits"]
    assert main([*args, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    model = load_checkpoint(TINY)
    pieces = ["The", "Ġriver", "Ġruns", "Ġto", "Ġthe"]  # each once, in order (the target Ġruns among them)
    assert doc["vocab"] == pieces and doc["ids"] == [model.cfg.token_id(p) for p in pieces]
    assert doc["n_vocab"] == 360 and len(doc["heads"]) == 8
    full = head_circuits(model.params, 1, 3)
    ids = doc["ids"]
    head = next(h for h in doc["heads"] if (h["block"], h["head"]) == (1, 3))
    np.testing.assert_allclose(head["qk"], full.qk.values[np.ix_(ids, ids)], rtol=0, atol=1e-12)
    np.testing.assert_allclose(head["ov"], full.ov.values[np.ix_(ids, ids)], rtol=0, atol=1e-12)
    assert main(args) == 0
    text = capsys.readouterr().out
    assert text.startswith(
        "Circuits of tiny-gpt2, only at the prompt's tokens and the target (5 of 360 tokens;"
    )
    assert "the biases b_Q and b_K" in text and "the biases b_V and b_O" in text  # GPT-2 has all four
    assert "head 3 of block 2, QK (rows: attending token, columns: attended token)" in text


def test_train_says_a_checkpoint_is_not_trained_on_a_corpus(tmp_path, capsys):
    (tmp_path / "c.txt").write_text("the river runs\n")
    assert main(["train", str(tmp_path / "c.txt"), "-o", str(tmp_path / "o.json"), "--model", str(TINY)]) == 2
    err = capsys.readouterr().err
    assert f"--model: {TINY} is a GPT-2 checkpoint; tinytui train reads corpora of space-separated" in err
    assert err.count("\n") == 1 and not (tmp_path / "o.json").exists()
