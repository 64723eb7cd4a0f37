"""`tinytui generate`: the continuation with each token's probability and the five most likely, the JSON
for tools, every run option, the presets, a `tinytui new` model and the tiny GPT-2, and one-line
refusals."""

import json

import numpy as np
import pytest

from tests.gpt2.checkpoints import TINY
from tinytui.cli.main import main
from tinytui.model.generation.sampling import uniform
from tinytui.model.io.checkpoint import load_checkpoint
from tinytui.model.io.model_file import load_default
from tinytui.model.switches import Switches
from tinytui.model.trace import run


def call(capsys, *args):
    rc = main(["generate", *args])
    out, err = capsys.readouterr()
    return rc, out, err


def as_json(capsys, *args) -> dict:
    rc, out, err = call(capsys, *args, "--json")
    assert rc == 0, err
    return json.loads(out)


def test_greedy_text_shows_each_token_its_p_and_the_five_most_likely(capsys):
    rc, out, err = call(capsys, "--tokens", "2")
    assert rc == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "2 new tokens · greedy · chapter17 · mask on · PE on · ReLU · pre-norm · residual on"
    assert lines[1].startswith("KV cache: each new position computes its own row of Q, K and V")
    assert lines[2].endswith("(4 rows of each, per head).")  # position 5 reuses positions 0–3
    assert lines[4:6] == ["prompt  a woodchuck would chuck", "new     wood wood"]
    assert lines[7].split() == ["pos", "token", "p", "five", "most", "likely", "(the", "model's", "p)"]
    assert lines[8].split() == ["4", "wood", "0.3107", "wood", "0.3107", "·", "chuck", "0.1524", "·",
                                "woodchuck", "0.1309", "·", ".", "0.1089", "·", "how", "0.0840"]  # fmt: skip
    assert lines[9].strip() == "how ties much"  # 'much' is left out at 0.0840 too
    assert max(len(line) for line in lines) <= 100


def test_json_has_tokens_and_each_steps_distribution_logits_and_draw(capsys):
    chapter = load_default()
    doc = as_json(capsys, "--tokens", "3", "--temperature", "1", "--top-k", "3", "--seed", "8")
    assert doc["tokens"] == [s["token"] for s in doc["steps"]] and len(doc["tokens"]) == 3
    assert doc["sampling"] == {"temperature": 1.0, "top_k": 3, "top_p": 1.0, "seed": 8}
    assert doc["kv_cache"] is True and doc["stopped"] is None
    seq = list(chapter.prompt)
    for step in doc["steps"]:
        logits = run(chapter.params, seq, chapter.target)["logits"]
        np.testing.assert_allclose(step["logits"], logits, rtol=0, atol=1e-12)
        probs = np.array(step["probs"])
        assert np.count_nonzero(probs) == 3 and abs(probs.sum() - 1) < 1e-12
        assert set(np.flatnonzero(probs)) == set(np.argsort(-logits, kind="stable")[:3])
        assert step["draw"] == uniform(8, step["position"]) and step["position"] == len(seq)
        assert probs[chapter.cfg.vocab.index(step["token"])] > 0
        seq.append(step["token"])


def test_greedy_json_has_no_draw_and_all_of_the_mass_on_one_token(capsys):
    doc = as_json(capsys, "--tokens", "2")
    assert [s["draw"] for s in doc["steps"]] == [None, None]
    assert doc["steps"][0]["probs"] == [0.0] * 4 + [1.0, 0.0, 0.0, 0.0]  # wood is token 4
    assert doc["tokens"] == ["wood", "wood"]


def test_the_same_seed_gives_the_same_output_and_another_seed_another(capsys):
    args = ("--tokens", "8", "--temperature", "1.5", "--seed", "21")
    first, again = as_json(capsys, *args), as_json(capsys, *args)
    assert first == again
    assert (
        as_json(capsys, "--tokens", "8", "--temperature", "1.5", "--seed", "22")["tokens"] != first["tokens"]
    )


def test_every_run_option_applies(capsys):
    doc = as_json(capsys, "--tokens", "1", "--no-mask", "--no-pe", "--prompt", "chuck a", "--target", "wood")
    chapter = load_default()
    trace = run(
        chapter.params, ("chuck", "a"), "wood", Switches(causal_mask=False, positional_encoding=False)
    )
    np.testing.assert_allclose(doc["steps"][0]["logits"], trace["logits"], rtol=0, atol=1e-12)
    assert doc["prompt"] == ["chuck", "a"]
    rc, out, _ = call(capsys, "--tokens", "1", "--no-mask")
    assert rc == 0 and "mask off" in out.splitlines()[0]


def test_a_preset_and_the_context_line(capsys):
    rc, out, err = call(capsys, "--model", "woodland", "--tokens", "40")
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[-1] == "stopped after 10 new tokens: the sequence fills the model's context of 16 positions"
    assert len([line for line in lines if line[:4].strip().isdigit()]) == 10


def test_a_new_model_of_several_blocks_without_the_mask_recomputes(capsys, tmp_path):
    path = tmp_path / "m.json"
    assert main(["new", "--d", "8", "--heads", "2", "--blocks", "2", "--ff", "16", "-o", str(path)]) == 0
    capsys.readouterr()
    doc = as_json(capsys, "--model", str(path), "--tokens", "3", "--no-mask")
    assert doc["kv_cache"] is False
    _, out, _ = call(capsys, "--model", str(path), "--tokens", "3", "--no-mask")
    assert out.splitlines()[1] == "KV cache: not used;"
    assert as_json(capsys, "--model", str(path), "--tokens", "3")["kv_cache"] is True


def test_the_tiny_gpt2_continues_text_through_its_bpe(capsys):
    tiny = load_checkpoint(TINY)
    doc = as_json(capsys, "--model", str(TINY), "--prompt", "The river runs", "--tokens", "4")
    assert doc["prompt"] == ["The", "Ġriver", "Ġruns"]
    seq = list(doc["prompt"])
    for _ in doc["tokens"]:  # greedy: the argmax of a full recompute, every step
        seq.append(tiny.cfg.vocab[int(np.argmax(run(tiny.params, seq, tiny.target)["logits"]))])
    assert doc["tokens"] == seq[3:]
    assert doc["text"] == tiny.tokenizer.text(doc["tokens"])
    _, out, _ = call(capsys, "--model", str(TINY), "--prompt", "The river runs", "--tokens", "4")
    assert out.splitlines()[4] == "prompt  The river runs"


SAMPLED = ("--tokens", "2", "--temperature", "1")
OUTSIDE_P = "is outside (0, 1]: 0.9 keeps the likeliest tokens up to 90%"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--tokens", "0"), "--tokens '0': ask for a whole number of tokens from 1 to 1024"),
        (("--tokens", "many"), "--tokens 'many': ask for a whole number of tokens from 1 to 1024"),
        (
            ("--tokens", "2", "--temperature", "-0.5"),
            "temperature -0.5 is below 0 (0 is greedy; 0.7, 1 or 1.5 sample)",
        ),
        ((*SAMPLED, "--top-k", "0"), "top-k 0 is outside 1–8 (the vocabulary has 8 tokens)"),
        ((*SAMPLED, "--top-k", "9"), "top-k 9 is outside 1–8 (the vocabulary has 8 tokens)"),
        ((*SAMPLED, "--top-p", "0"), f"top-p 0 {OUTSIDE_P}"),
        ((*SAMPLED, "--top-p", "2"), f"top-p 2 {OUTSIDE_P}"),
        (
            ("--tokens", "2", "--top-k", "3"),
            "--top-k and --top-p shape a random draw: give a --temperature above 0 with them "
            "(0, the default, is greedy)",
        ),
    ],
)
def test_refusals_are_one_line_and_exit_2(capsys, args, message):
    rc, out, err = call(capsys, *args)
    assert (rc, out, err) == (2, "", f"tinytui: error: {message}\n")


def test_no_pass_after_the_prompt_says_the_cache_was_not_needed(capsys):
    rc, out, _ = call(capsys, "--tokens", "1")
    assert rc == 0
    assert out.splitlines()[1] == "KV cache: not needed: the one new token is read off the prompt's own run."
    full = "a woodchuck would chuck how much wood a woodchuck would chuck how much wood . a"
    rc, out, _ = call(capsys, "--tokens", "2", "--prompt", full)
    lines = out.splitlines()
    assert rc == 0 and lines[0].startswith("0 new tokens")
    assert lines[1] == "KV cache: not needed: no new token fits in the context."
    assert "reuses" not in out
    assert as_json(capsys, "--tokens", "1")["kv_cache"] is False  # the JSON says the same
    assert as_json(capsys, "--tokens", "2")["kv_cache"] is True


def test_a_vocabulary_of_three_shows_three_most_likely_not_five(capsys, tmp_path):
    vocab = tmp_path / "v.txt"
    vocab.write_text("a\nb\nc\n")
    path = tmp_path / "m.json"
    args = ["new", "--vocab", str(vocab), "--prompt", "a b", "--target", "c", "-o", str(path)]
    assert main(args) == 0
    capsys.readouterr()
    rc, out, _ = call(capsys, "--model", str(path), "--tokens", "1")
    header = next(line for line in out.splitlines() if line.lstrip().startswith("pos"))
    assert rc == 0 and header.endswith("  three most likely (the model's p)")
    assert len(out.splitlines()[-1].split(" · ")) == 3
