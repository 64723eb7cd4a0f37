"""`tinytui lens` and `tinytui patch`: the JSON is the model functions' output, the text reads the same
numbers, and what cannot be patched is refused in one line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.gpt2.checkpoints import TINY
from tests.llama.checkpoints import LLAMA, QWEN2
from tinytui.cli.main import main
from tinytui.model.analysis.lens import logit_lens
from tinytui.model.analysis.patching import patch
from tinytui.model.io.checkpoint import load_model
from tinytui.model.io.model_file import load
from tinytui.model.io.presets import resolve
from tinytui.model.trace import run


def cli(capsys, *args):
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def test_lens_json_lists_every_point_in_model_order_with_the_prediction_last(capsys):
    rc, out, err = cli(capsys, "lens", "--model", "woodland", "--json")
    assert rc == 0 and err == ""
    doc = json.loads(out)
    woodland = load(resolve("woodland"))
    trace = run(woodland.params, woodland.prompt, woodland.target)
    points = logit_lens(trace, woodland.params)
    assert [(p["block"], p["at"]) for p in doc["points"]] == [(p.block, p.at) for p in points]
    assert [(p["block"], p["at"]) for p in doc["points"]][:3] == [(1, "pre"), (1, "mid"), (1, "post")]
    for got, want in zip(doc["points"], points):
        assert got["probs"] == [float(v) for v in want.probs]
        assert [t["token"] for t in got["top"]] == [tok for tok, _ in want.top(trace.cfg.vocab)]
        assert len(got["top"]) == 5
    assert doc["points"][-1]["probs"] == trace["probs"].tolist()
    assert doc["points"][-1]["top"][0]["token"] == doc["prediction"] == "chuck"


def test_lens_text_names_each_point_and_the_targets_probability(capsys):
    rc, out, _ = cli(capsys, "lens")
    assert rc == 0
    rows = {line.split("  ")[0]: line for line in out.splitlines() if line.startswith(("before", "after"))}
    assert list(rows) == ["before block 1", "after block 1's attention", "after block 1"]
    assert "0.3647" in rows["before block 1"] and rows["after block 1"].split()[3] == "0.3107"
    assert "the model's own prediction, 'wood'" in " ".join(out.split())


def test_patch_json_is_the_patching_function(capsys):
    rc, out, err = cli(
        capsys,
        "patch",
        "--model",
        "woodland",
        "--corrupt",
        "how much wood would a beaver",
        "--foil",
        "build",
        "--json",
    )
    assert rc == 0 and err == ""
    doc = json.loads(out)
    woodland = load(resolve("woodland"))
    bad = ("how", "much", "wood", "would", "a", "beaver")
    want = patch(woodland.params, woodland.prompt, bad, woodland.target, "build")
    assert (doc["clean"], doc["corrupt"]) == (want.clean, want.corrupt)
    assert doc["resid_pre"] == want.resid_pre.tolist() and doc["heads"] == want.heads.tolist()
    assert np.array(doc["resid_pre"]).shape == (2, 6) and np.array(doc["heads"]).shape == (2, 4)
    clean, corrupt = run(woodland.params, woodland.prompt, "chuck"), run(woodland.params, bad, "chuck")
    chuck, build = (woodland.cfg.token_id(t) for t in ("chuck", "build"))
    assert doc["clean"] == clean["logits"][chuck] - clean["logits"][build]
    assert doc["corrupt"] == corrupt["logits"][chuck] - corrupt["logits"][build]
    # the only corrupted position is the last: patching it back into either block's input restores all
    assert doc["resid_pre"][0][5] == doc["resid_pre"][1][5] == doc["clean"]


def test_patch_text_shows_the_share_brought_back(capsys):
    rc, out, _ = cli(capsys, "patch", "--corrupt", "a woodchuck would wood", "--foil", "chuck")
    assert rc == 0
    assert "clean     'a woodchuck would chuck': +0.7120" in out
    assert "corrupted 'a woodchuck would wood': +1.3732" in out
    assert "3:chuck / wood  +0.7120  (1.00)" in out
    assert "-0.00" not in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--corrupt", "a woodchuck would", "--foil", "chuck"], "--corrupt: 3 tokens, and the prompt has 4"),
        (
            ["--corrupt", "a woodchuck would beaver", "--foil", "chuck"],
            "--corrupt: 'beaver' is not in the vocabulary",
        ),
        (
            ["--corrupt", "a woodchuck would wood", "--foil", "beaver"],
            "--foil: 'beaver' is not in the vocabulary",
        ),
        (["--corrupt", "a woodchuck would wood", "--foil", "wood"], "--foil: 'wood' is the target itself"),
    ],
)
def test_what_cannot_be_patched_is_one_line_and_exit_2(capsys, args, message):
    rc, out, err = cli(capsys, "patch", *args)
    assert rc == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err


def test_lens_and_patch_read_a_gpt2_checkpoint(capsys):
    rc, out, _ = cli(capsys, "lens", "--model", str(TINY), "--json")
    assert rc == 0
    doc = json.loads(out)
    assert len(doc["points"]) == 3 * 2 and abs(sum(doc["points"][0]["probs"]) - 1) < 1e-12
    rc, out, err = cli(
        capsys, "patch", "--model", str(TINY), "--prompt", "ab", "--corrupt", "cd", "--foil", "x", "--json"
    )
    assert rc == 0, err
    doc = json.loads(out)
    assert len(doc["resid_pre"][0]) == len(doc["prompt"]) == len(doc["corrupt_prompt"])


@pytest.mark.parametrize("folder", [LLAMA, QWEN2], ids=["llama", "qwen2"])
def test_lens_and_patch_read_a_llama_family_checkpoint(capsys, folder):
    """RMSNorm, rotary positions, shared key/value heads and an untied W_U: the lens's last point is the
    prediction bit for bit, and patching the prompt into itself changes nothing."""
    model = load_model(folder)
    prompt = tuple(model.prompt_pieces("The cat is a"))
    trace = run(model.params, prompt, "Ġthe")
    rc, out, err = cli(capsys, "lens", "--model", str(folder), "--prompt", "The cat is a", "--json")
    assert rc == 0, err
    doc = json.loads(out)
    assert len(doc["points"]) == 3 * model.cfg.n_blocks
    assert doc["points"][-1]["probs"] == trace["probs"].tolist()
    rc, out, err = cli(
        capsys, "patch", "--model", str(folder), "--prompt", "The cat is a", "--target", "Ġthe",
        "--corrupt", "The cat is a", "--foil", "Ġa", "--json",
    )  # fmt: skip
    assert rc == 0, err
    doc = json.loads(out)
    assert np.array(doc["heads"]).shape == (model.cfg.n_blocks, model.cfg.n_heads)  # query heads
    patched = {*np.ravel(doc["resid_pre"]), *np.ravel(doc["heads"])}
    assert patched == {doc["clean"]} == {doc["corrupt"]}


def test_a_checkpoints_foil_of_several_pieces_is_refused_as_the_foil(capsys):
    rc, out, err = cli(
        capsys, "patch", "--model", str(TINY), "--prompt", "ab", "--corrupt", "cd", "--foil", "zzqq"
    )
    assert rc == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "the foil is one piece" in err and "target" not in err
