"""Printed reports of a model too big to print whole (`tinytui print`, --markdown, the transcript, trace):
a big table is a window with a note saying what is left out; small ones, as ever, whole.

The model is GPT-2-like (learned positions, biases, GELU) with a vocabulary of 3,000 tokens, 1,100
positions and a hidden layer of 300 units: each of E, P, the logits and the hidden layer is over the
limits of report_window, as GPT-2 small's are, while the test runs in a fraction of a second.
"""

import io
import json

import numpy as np
import pytest

from tests.random_models import config, weights
from tinytui.cli import trace_command
from tinytui.cli.main import cmd_trace, main
from tinytui.cli.options import build_parser
from tinytui.lesson.stages import STAGE_BY_NUMBER
from tinytui.model.io.document import ModelFile
from tinytui.model.trace import run
from tinytui.recording.transcript import backward_text, step_text
from tinytui.report.print_window import TOP, picks_of
from tinytui.report.render import markdown_report, plain_report, rich_report
from tinytui.report.step_report import stage_report
from tinytui.report.tables import fmt
from tinytui.session.session import Session

PROMPT = ("t5", "t17", "t5", "t2999")
TARGET = "t42"


@pytest.fixture(scope="module")
def big():
    cfg = config(
        24, 2, 12, 300, 3000, blocks=2, n_ctx=1100, positions="learned", norm_affine=True, attn_bias=True
    )
    cfg = type(cfg)(**{**cfg.__dict__, "activation": "gelu"})
    params = weights(np.random.default_rng(7), cfg, 0.3)
    return ModelFile("big", "a GPT-2-like model too big to print whole", params, PROMPT, TARGET)


@pytest.fixture(scope="module")
def big_trace(big):
    return run(big.params, big.prompt, big.target)


def tables(report):
    return {t.title.partition(" — ")[0]: t for t in (*report.tables, *report.weights)}


def test_step_2_shows_the_prompts_rows_of_e_and_says_what_is_left(big, big_trace):
    report = stage_report(big_trace, STAGE_BY_NUMBER[2], big.params)
    e = tables(report)["E (vocab × dims)"]
    assert e.rows == ("t5", "t17", "t2999", "t42")  # the prompt's tokens (each once), then the target
    assert e.cols == tuple(f"d{i}" for i in range(16))
    assert e.cells[1] == tuple(fmt(v) for v in big.params["E"][17, :16])
    assert e.title == (
        "E (vocab × dims) — 4 of 3,000 rows (the prompt's tokens and the target) · columns 0–15 of 24"
    )
    assert (
        e.note
        == "… 2,996 more rows and 8 more columns not shown (all of it, 3,000 × 24: tinytui trace --only E)"
    )
    emb = tables(report)["E[id]"]
    assert emb.rows == ("0:t5", "1:t17", "2:t5", "3:t2999") and len(emb.cols) == 24  # small: whole
    assert emb.note == ""


def test_step_3_shows_the_prompts_positions_of_p(big, big_trace):
    p = tables(stage_report(big_trace, STAGE_BY_NUMBER[3], big.params))["P"]
    assert p.rows == ("pos 0", "pos 1", "pos 2", "pos 3")
    assert p.cells[3][0] == fmt(big.params["P"][3, 0])
    assert "1,096 more rows and 8 more columns" in p.note


def test_step_14_keeps_the_most_likely_tokens_and_the_target(big, big_trace):
    report = stage_report(big_trace, STAGE_BY_NUMBER[14], big.params)
    logits = report.tables[0]
    p = big_trace["probs"]
    best = [f"t{i}" for i in np.argsort(-p, kind="stable")[:TOP]]
    assert logits.cols == (*best, TARGET)
    assert logits.cells[0] == tuple(fmt(big_trace["logits"][int(c[1:])]) for c in logits.cols)
    assert logits.title == "ℓ = z Eᵀ — 11 of 3,000 columns (the 10 most likely and the target)"
    assert logits.note == "… 2,989 more columns not shown (all 3,000: tinytui trace --only logits)"
    e = tables(report)["E (vocab × dims)"]  # the rows step 14 reads: the prompt's, the target's, the top's
    assert e.rows == ("t5", "t17", "t2999", TARGET, *(b for b in best if b not in PROMPT))


def test_a_wide_hidden_layer_shows_its_first_columns(big, big_trace):
    report = stage_report(big_trace, STAGE_BY_NUMBER[11], big.params, block=1)
    hidden = tables(report)["hidden = activation(h_pre)"]
    assert len(hidden.rows) == 4 and len(hidden.cols) == 16
    assert hidden.cells[2][15] == fmt(big_trace["blocks.1.hidden"][2, 15])
    assert hidden.note == (
        "… 284 more columns not shown (all of it, 4 × 300: tinytui trace --only blocks.1.hidden)"
    )
    w_1 = tables(report)["W_1 (block 2)"]
    assert (len(w_1.rows), len(w_1.cols)) == (16, 16) and "all of it, 24 × 300" in w_1.note
    small = tables(report)["b_1 (block 2)"]  # 300 columns: over the limit of columns too
    assert len(small.cols) == 16 and "284 more columns" in small.note


def test_every_renderer_prints_the_note(big, big_trace):
    report = stage_report(big_trace, STAGE_BY_NUMBER[2], big.params)
    note = "… 2,996 more rows and 8 more columns not shown"
    assert note in plain_report(report)
    assert f"*{note}" in markdown_report(report)
    from rich.console import Console

    console = Console(file=io.StringIO(), width=200, color_system=None)
    console.print(rich_report(report))
    assert note in console.file.getvalue()


def test_the_chapters_tables_are_whole_with_no_note(chapter, trace):
    for number in range(1, 17):
        report = stage_report(trace, STAGE_BY_NUMBER[number], chapter.params)
        assert all(t.note == "" for t in (*report.tables, *report.weights))
    e = tables(stage_report(trace, STAGE_BY_NUMBER[2], chapter.params))["E (vocab × dims)"]
    assert e.rows == chapter.cfg.vocab and len(e.cols) == chapter.cfg.d_model


def test_the_transcript_prints_windows_forward_and_backward(big):
    session = Session(big)
    text = step_text(session.trace, 14, session.params)
    assert "… 2,989 more columns not shown (all 3,000: tinytui trace --only probs)" in text
    assert max(len(line) for line in text.splitlines()) <= 100
    back = backward_text(session, 2)
    assert "(all of it, 3,000 × 24: tinytui trace --only grad.E)" in back
    assert len(back.splitlines()) < 200


def test_picks_are_the_prompt_then_the_target_and_the_top(big_trace):
    picks = picks_of(big_trace)
    assert picks.rows == (5, 17, 2999, 42) and picks.n_tokens == 4
    assert picks.top[:TOP] == tuple(int(i) for i in np.argsort(-big_trace["probs"], kind="stable")[:TOP])


def test_a_whole_trace_too_big_is_refused_in_one_line(capsys, monkeypatch):
    monkeypatch.setattr(trace_command, "MAX_NUMBERS", 100)
    assert main(["trace", "--json"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tinytui: error: the model: a whole trace of it is about 0 million numbers")
    assert "--only NAME,…" in err and err.count("\n") == 1
    out = io.StringIO()  # --only still answers at any size
    args = build_parser().parse_args(["trace", "--only", "logits"])
    assert cmd_trace(args, out) == 0 and list(json.loads(out.getvalue())["tensors"]) == ["logits"]


def test_trace_only_takes_the_names_the_screen_shows(capsys):
    assert main(["trace", "--only", "A_2, x′, ∂L/∂W_O, ℓ, W_O"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert list(doc["tensors"]) == ["blocks.0.attn.2", "blocks.0.x_mid", "grad.blocks.0.W_O", "logits"]
    assert list(doc["weights"]) == ["blocks.0.W_O"]
    assert main(["trace", "--only", "A_9"]) == 2
    assert "'A_9' is not a tensor, gradient or weight" in capsys.readouterr().err


def test_trace_list_names_every_tensor_gradient_and_weight(capsys):
    assert main(["trace", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = {line.split()[0]: line.split(None, 1)[1] for line in lines}
    assert rows["blocks.0.W_O"].split() == ["4", "×", "4", "weight", "W_O"]
    assert rows["grad.E.lookup"].split() == ["8", "×", "4", "gradient", "∂L/∂E", "(lookup", "share)"]
    assert rows["loss"].split() == ["scalar", "tensor", "L"]
    assert rows["blocks.0.attn.2"].split() == ["4", "×", "4", "tensor", "A_2"]  # the screen's name last
    assert len(lines) == len(set(rows))
