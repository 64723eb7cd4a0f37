"""tinytui new, tinytui train, tinytui presets and --model NAME, on the command line."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tinytui.cli.main import main
from tinytui.cli.train_command import Progress, curve
from tinytui.model.io.model_file import load
from tinytui.model.io.presets import presets

CORPUS = "a woodchuck would chuck wood .\nhow much wood would a woodchuck chuck .\n\nmuch wood .\n"


def tinytui(*args: str, cwd: Path) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "tinytui", *args], capture_output=True, text=True, cwd=cwd, timeout=120
    )
    return done.returncode, done.stdout, done.stderr


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def call(capsys, *args: str) -> tuple[int, str, str]:
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def refused(capsys, folder: Path, *args: str, why: str) -> None:
    """One line 'tinytui: error: …' matching why, exit 2, and nothing new in the folder."""
    before = sorted(os.listdir(folder))
    rc, _, err = call(capsys, *args)
    assert rc == 2, err
    assert err.startswith("tinytui: error: ") and err.count("\n") == 1, err
    assert re.search(why, err), err
    assert sorted(os.listdir(folder)) == before


# ---- tinytui new ---------------------------------------------------------------------------------


def test_new_writes_a_model_that_opens(here, capsys):
    rc, out, err = call(
        capsys, "new", "--d", "16", "--heads", "4", "--blocks", "2", "--ff", "64", "-o", "m.json"
    )
    assert rc == 0, err
    assert "6,432 parameters" in out
    m = load(here / "m.json")
    assert (m.cfg.d_model, m.cfg.n_heads, m.cfg.d_head, m.cfg.n_blocks, m.cfg.d_ff) == (16, 4, 4, 2, 64)
    assert m.name == "m" and m.prompt == ("a", "woodchuck", "would", "chuck") and m.target == "wood"
    rc, out, _ = call(capsys, "--model", "m.json", "print", "--step", "16", "--plain")
    assert rc == 0 and "6432" in out.replace(",", "")


def test_new_the_same_arguments_give_the_same_bytes(tmp_path):
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    (tmp_path / "words.txt").write_text("the\nwoodchuck\nchucks\nwood\n")
    args = ("new", "--d", "6", "--heads", "2", "--d-head", "5", "--ctx", "8", "--vocab", "../words.txt")
    args += ("--prompt", "the woodchuck chucks", "--target", "wood", "--seed", "7", "-o", "my.model.json")
    for folder in ("one", "two"):
        rc, _, err = tinytui(*args, cwd=tmp_path / folder)
        assert rc == 0, err
    one, two = (tmp_path / f / "my.model.json" for f in ("one", "two"))
    assert one.read_bytes() == two.read_bytes()
    m = load(one)
    assert m.cfg.vocab == ("the", "woodchuck", "chucks", "wood") and m.cfg.n_ctx == 8 and m.cfg.d_head == 5


def test_new_refusals_are_one_line_and_write_nothing(here, capsys):
    (here / "taken.json").write_text("{}")
    os.symlink(here / "nowhere.json", here / "link.json")
    (here / "gaps.txt").write_text("a\nb\n\nc\n")
    (here / "twice.txt").write_text("a\nb\nc\nb\n")
    (here / "xy.txt").write_text("x\ny\n")
    for args, why in [
        (("-o", "taken.json"), "taken.json exists; tinytui never overwrites it"),
        (("-o", "link.json"), "link.json is a symbolic link"),
        (("-o", "no/such/folder.json"), "there is no folder"),
        ((), "-o: name the model file to write"),
        (("--d", "4.5", "-o", "x.json"), "--d: '4.5' is not a whole number"),
        (("--heads", "two", "-o", "x.json"), "--heads: 'two' is not a whole number"),
        (("--d", "5000", "-o", "x.json"), r"--d: 5000 is larger than tinytui allows \(4096\)"),
        (("--blocks", "49", "-o", "x.json"), r"--blocks: 49 is larger than tinytui allows \(48\)"),
        (("--ctx", "0", "-o", "x.json"), "--ctx: 0 is less than 1"),
        (("--d", "6", "--heads", "4", "-o", "x.json"), "--d: 6 is not divisible by 4 heads; give --d-head"),
        (("--vocab", "gaps.txt", "-o", "x.json"), "--vocab: gaps.txt: line 3: blank line"),
        (("--vocab", "twice.txt", "-o", "x.json"), "--vocab: twice.txt: line 4: 'b' repeats line 2"),
        (("--vocab", "missing.txt", "-o", "x.json"), "--vocab: missing.txt: cannot read the file"),
        (("--vocab", "xy.txt", "-o", "x.json"), "--prompt: the vocabulary lacks the chapter's prompt"),
        (
            ("--vocab", "xy.txt", "--prompt", "x z", "--target", "y", "-o", "x.json"),
            "--prompt: 'z' is not in",
        ),
        (("--prompt", "a", "--target", "nope", "-o", "x.json"), "--target: 'nope' is not in the vocabulary"),
        (("--seed", "-1", "-o", "x.json"), "--seed: -1 is less than 0"),
        (("--d", "4096", "--heads", "64", "--ff", "16384", "--blocks", "48", "-o", "x.json"), "more than"),
    ]:
        refused(capsys, here, "new", *args, why=why)
    assert not (here / "nowhere.json").exists()


# ---- tinytui train -------------------------------------------------------------------------------


def test_train_lowers_the_corpus_loss_and_is_reproducible(here, capsys):
    (here / "c.txt").write_text(CORPUS)
    args = ("train", "c.txt", "--steps", "40", "--batch", "2", "--lr", "0.05", "--seed", "3")
    rc, out, err = call(capsys, *args, "-o", "a.json")
    assert rc == 0, err
    found = re.search(r"corpus loss \(next-token cross-entropy per token\): ([0-9.]+) → ([0-9.]+)", out)
    before, after = map(float, found.groups())
    assert after < before
    assert re.search(r"loss curve \(40 steps, batch loss per token\): [▁▂▃▄▅▆▇█]{40} ", out)
    assert "step 40/40  loss " in err and "\r" not in err  # plain lines when stderr is not a terminal
    assert "(loss: next-token cross-entropy per token)" in err
    trained = load(here / "a.json")
    # its own name and numbered dimensions: the chapter's "thing", "action", … no longer mean anything
    assert trained.name == "a" and trained.cfg.dims == ("d0", "d1", "d2", "d3")
    assert "Trained by tinytui train on c.txt" in trained.about and "loss per token" in trained.about
    assert call(capsys, *args, "--name", "a", "-o", "b.json")[0] == 0  # b.json would be named b
    assert (here / "a.json").read_bytes() == (here / "b.json").read_bytes()
    assert call(capsys, *args[:-1], "4", "--name", "a", "-o", "c.json")[0] == 0  # another batch order
    assert (here / "a.json").read_bytes() != (here / "c.json").read_bytes()


def test_train_sgd_from_a_preset_and_new_with_added_words(here, capsys):
    (here / "c.txt").write_text(CORPUS + "a beaver would chew wood .\n")
    rc, _, err = call(capsys, "train", "c.txt", "--model", "chapter17-trained", "-o", "x.json")
    assert rc == 2 and "c.txt: line 5: 'beaver' is not in the model's vocabulary" in err
    assert "--new --add-vocab" in err
    (here / "ok.txt").write_text(CORPUS)
    args = ("--model", "chapter17-trained", "--optimizer", "sgd", "--steps", "5", "-o", "sgd.json")
    assert call(capsys, "train", "ok.txt", *args)[0] == 0
    assert load(here / "sgd.json").name == "sgd"
    rc, _, err = call(
        capsys,
        *("train", "c.txt", "--new", "--add-vocab", "--d", "8", "--heads", "2", "--blocks", "2"),
        *("--steps", "5", "-o", "new.json"),
    )
    assert rc == 0, err
    m = load(here / "new.json")
    assert m.cfg.vocab[-2:] == ("beaver", "chew") and m.cfg.n_blocks == 2 and m.cfg.d_model == 8
    assert (m.prompt, m.target) == (("a", "woodchuck", "would", "chuck", "wood"), ".")  # the first line's


def test_train_refusals_are_one_line_and_write_nothing(here, capsys):
    (here / "c.txt").write_text(CORPUS)
    (here / "one.txt").write_text("a woodchuck\nwood\n")
    (here / "long.txt").write_text(" ".join(["wood"] * 18) + "\n")
    (here / "taken.json").write_text("{}")
    for args, why in [
        (("missing.txt", "-o", "x.json"), "missing.txt: cannot read the corpus"),
        (("one.txt", "-o", "x.json"), "one.txt: line 2: one token has no next token"),
        (("long.txt", "-o", "x.json"), "long.txt: line 1: 18 tokens is longer than the model's context"),
        (("c.txt", "-o", "taken.json"), "taken.json exists"),
        (("c.txt",), "-o: name the model file"),
        (("c.txt", "--steps", "0", "-o", "x.json"), "--steps: 0 is less than 1"),
        (("c.txt", "--steps", "ten", "-o", "x.json"), "--steps: 'ten' is not a whole number"),
        (("c.txt", "--batch", "1.5", "-o", "x.json"), "--batch: '1.5' is not a whole number"),
        (("c.txt", "--lr", "0", "-o", "x.json"), "--lr: the learning rate must be a finite number above 0"),
        (("c.txt", "--d", "8", "-o", "x.json"), "--d: only with --new"),
        (("c.txt", "--add-vocab", "-o", "x.json"), "--add-vocab: only with --new"),
        (
            ("c.txt", "--new", "--model", "chapter17", "-o", "x.json"),
            "--new: give --model or --new, not both",
        ),
        (
            ("c.txt", "--model", "nosuch", "-o", "x.json"),
            "'nosuch': no such file, and no preset of that name",
        ),
        (("c.txt", "--prompt", "a zebra", "-o", "x.json"), "--prompt: 'zebra' is not in the vocabulary"),
    ]:
        refused(capsys, here, "train", *args, why=why)


def test_progress_is_one_bar_on_a_terminal():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    err = Tty()
    show = Progress(err, 3)
    for step, loss in ((1, 2.0), (2, 1.5), (3, 1.0)):
        show(step, loss)
    text = err.getvalue()
    assert text.startswith("\r[") and text.endswith("] step 3/3  loss 1.0000\n") and "\n" not in text[:-1]
    assert curve((3.0, 2.0, 1.0)) == "█▅▁" and curve((1.0,) * 100, 10) == "▄" * 10


# ---- presets and --model NAME --------------------------------------------------------------------


def test_presets_lists_every_preset_by_name(here, capsys):
    rc, out, _ = call(capsys, "presets")
    assert rc == 0
    names = [line.split()[0] for line in out.splitlines()]
    assert names == list(presets()) and {"chapter17", "chapter17-trained", "woodland"} <= set(names)
    assert "d 16, 4 heads, 2 blocks" in out


@pytest.mark.parametrize("name", ["chapter17", "chapter17-trained", "woodland"])
def test_model_takes_a_preset_name(here, capsys, name):
    rc, out, err = call(capsys, "--model", name, "print", "--step", "16", "--plain")
    assert rc == 0, err
    total = load(presets()[name]).params.total()
    assert str(total) in out.replace(",", "")


def test_a_path_that_exists_wins_over_a_preset_name(here, capsys):
    assert call(capsys, "new", "--name", "mine", "--seed", "5", "-o", "chapter17-trained")[0] == 0
    rc, out, _ = call(capsys, "trace", "--model", "chapter17-trained")
    assert rc == 0 and '"model": "mine"' in out


def test_the_corpus_loss_printed_is_per_token(here, capsys):
    """The chapter's model on two lines of 5 and 2 predicted tokens: the printed loss is the mean of the
    7 tokens' cross-entropies, not the mean of the two lines' means."""
    from tinytui.model.io.model_file import load_default
    from tinytui.model.training.corpus import line_loss

    lines = ("a woodchuck would chuck wood .", "much wood .")
    (here / "c.txt").write_text("\n".join(lines) + "\n")
    rc, out, err = call(capsys, "train", "c.txt", "--steps", "1", "--lr", "1e-12", "-o", "t.json")
    assert rc == 0, err
    params = load_default().params
    means = [line_loss(params, line.split()) for line in lines]
    per_token, per_line = (5 * means[0] + 2 * means[1]) / 7, (means[0] + means[1]) / 2
    assert f"{per_token:.4f}" != f"{per_line:.4f}"
    assert f"corpus loss (next-token cross-entropy per token): {per_token:.4f} → " in out, out


def test_step_2_of_a_trained_model_claims_no_named_columns(here, capsys):
    (here / "c.txt").write_text(CORPUS)
    assert call(capsys, "train", "c.txt", "--steps", "2", "-o", "t.json")[0] == 0
    rc, out, _ = call(capsys, "print", "--model", "t.json", "--step", "2")
    assert rc == 0
    flat = " ".join(out.split())
    assert "only numbered (d0, d1, d2 and d3)" in flat and "carry names" not in flat


def test_train_offers_every_optimizer_the_trainer_has_each_with_its_default_rate(here, capsys):
    # the parser reads the optimizers off train's default rates, so the trainer's module loads only
    # when train runs; a trainer's new optimizer must come with a default rate to be offered
    from tinytui.cli.train_command import DEFAULT_LR
    from tinytui.model.training.corpus import OPTIMIZERS

    assert tuple(DEFAULT_LR) == OPTIMIZERS
    for name in OPTIMIZERS:  # taken: the run is refused for its missing -o, not for the optimizer
        refused(capsys, here, "train", "corpus.txt", "--optimizer", name, why="-o: name the model file")
