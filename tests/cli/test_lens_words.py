"""`tinytui lens` names what it applies to every point: the run's final norm and the matrix the model
unembeds with (Eᵀ tied, W_U untied); and the lens table's likeliest tokens keep the lower id in a tie."""

from types import SimpleNamespace

import numpy as np

from tests.llama.checkpoints import LLAMA
from tinytui.cli.main import main
from tinytui.present.lens_tables import top_tokens


def words(capsys, *args) -> str:
    assert main(["lens", *args]) == 0
    return " ".join(capsys.readouterr().out.split())


def test_the_lens_text_names_the_norm_and_the_unembedding_it_applies(capsys):
    assert "(the final LayerNorm and the tied unembedding Eᵀ applied to it" in words(capsys)
    assert "(the final RMSNorm and the tied unembedding Eᵀ applied to it" in words(capsys, "--norm", "rms")
    untied = words(capsys, "--model", str(LLAMA), "--prompt", "The cat is a")
    assert "(the final RMSNorm and the model's own unembedding W_U applied to it" in untied


def test_the_lens_tables_likeliest_tokens_keep_the_lower_id_in_a_tie():
    probs = np.full(40, 0.024)
    probs[7] = 0.04
    vocab = tuple(f"t{i}" for i in range(40))
    listed = top_tokens(SimpleNamespace(probs=probs))
    assert [vocab[i] for i in listed.ids] == ["t7", "t0", "t1"]
    assert listed.mark(vocab) == "ties t2, t3, t4 +34"  # the 37 left out as likely as t1 are said


def test_patch_text_says_a_query_heads_key_value_head_is_not_patched(capsys):
    args = ["patch", "--model", "chapter17-llama", "--corrupt", "a much would chuck", "--foil", "how"]
    assert main(args) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "4 query heads read 2 key/value heads: one query head's output is patched, and the others" in out
    assert main(["patch", "--corrupt", "a much would chuck", "--foil", "how"]) == 0
    assert "key/value" not in capsys.readouterr().out  # the chapter's heads each have their own
