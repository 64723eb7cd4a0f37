"""`tinytui new`'s one line against the file it wrote: every size it names is the loaded model's,
and a model whose query heads share key/value heads says how many there are."""

import re

import pytest

from tinytui.cli.main import main
from tinytui.model.io.model_file import load


@pytest.mark.parametrize("arch", ["chapter", "gpt2", "llama"])
def test_the_line_names_the_files_sizes(tmp_path, capsys, arch):
    path = tmp_path / "m.json"
    args = ["new", "--arch", arch, "--d", "8", "--heads", "4", "--blocks", "2", "--ff", "12", "-o", str(path)]
    assert main(args) == 0
    said = capsys.readouterr().out.strip()
    cfg, total = load(path).cfg, load(path).params.total()
    shared = f" over {cfg.n_kv_heads} key/value heads" if cfg.n_kv_heads != cfg.n_heads else ""
    assert said == (
        f"wrote {path}: {total:,} parameters (d {cfg.d_model}, {cfg.n_heads} heads of {cfg.d_head}{shared}, "
        f"ff {cfg.d_ff}, {cfg.n_blocks} blocks, {cfg.n_vocab} tokens, n_ctx {cfg.n_ctx})"
    )
    assert (arch == "llama") == ("over 2 key/value heads" in said)
    assert re.search(r"\(d 8, 4 heads of 2", said)


def test_a_model_with_its_weights_beside_it_names_that_file(tmp_path, capsys):
    path = tmp_path / "big.json"
    assert main(["new", "--d", "128", "--heads", "4", "--ff", "512", "-o", str(path)]) == 0
    said = capsys.readouterr().out
    (weights,) = [p for p in tmp_path.iterdir() if p.suffix == ".safetensors"]
    assert said.startswith(f"wrote {path} and its weights, {weights.name}, beside it: 198,272 parameters")
    assert load(path).params.total() == 198_272


def test_one_head_and_one_block_are_said_in_the_singular(tmp_path, capsys):
    path = tmp_path / "one.json"
    assert main(["new", "--d", "2", "--heads", "1", "--blocks", "1", "-o", str(path)]) == 0
    said = capsys.readouterr().out
    assert load(path).cfg.n_heads == 1 and load(path).cfg.d_head == 2
    assert "(d 2, 1 head of 2, ff 8, 1 block, 8 tokens," in said
