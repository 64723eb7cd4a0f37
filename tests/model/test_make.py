"""model/training/seeded_model.py (new models of any size), model/io/presets.py (presets by name) and the
trained presets."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest

from tinytui.model import checks
from tinytui.model.io.field_checks import LIMITS, ModelFileError
from tinytui.model.io.model_file import load, save
from tinytui.model.io.presets import presets, resolve
from tinytui.model.training import corpus, seeded_model

PRESETS = Path(__file__).resolve().parents[2] / "model" / "presets"


# ---- sizes ---------------------------------------------------------------------------------------


def test_sizes_defaults_and_d_head():
    s = seeded_model.sizes(16, 4, 64, 2)
    assert (s.d_model, s.n_heads, s.d_head, s.d_ff, s.n_blocks, s.n_ctx) == (16, 4, 4, 64, 2, 16)
    assert seeded_model.sizes("5", "2", "8", "1", d_head="3", n_ctx="32").d_head == 3
    with pytest.raises(checks.Invalid, match="not divisible by 2 heads") as exc:
        seeded_model.sizes(5, 2, 8, 1)
    assert exc.value.where == "divisible"


@pytest.mark.parametrize(
    "field, limit",
    [
        ("d_model", "d_model"),
        ("n_heads", "n_heads"),
        ("d_ff", "d_ff"),
        ("n_blocks", "weights.blocks"),
        ("n_ctx", "n_ctx"),
        ("d_head", "d_head"),
    ],
)
def test_sizes_keep_the_model_file_bounds(field, limit):
    args = {"d_model": 4, "n_heads": 1, "d_ff": 4, "n_blocks": 1, "d_head": 2, "n_ctx": 4}
    seeded_model.sizes(**{**args, field: LIMITS[limit]})  # at the bound: fine
    with pytest.raises(checks.Invalid, match=f"larger than tinytui allows \\({LIMITS[limit]}\\)") as exc:
        seeded_model.sizes(**{**args, field: LIMITS[limit] + 1})
    assert exc.value.where == field


@pytest.mark.parametrize("bad", ["4.5", "x", "", "1e3", "٤", True, 4.0, "0", "-3", "+-4", "9" * 30])
def test_sizes_refuse_what_is_not_a_positive_whole_number(bad):
    with pytest.raises(checks.Invalid) as exc:
        seeded_model.sizes(bad, 1, 4, 1)
    assert exc.value.where == "d_model" and "\n" not in str(exc.value)


def test_every_size_at_its_bound_at_once_is_too_many_parameters():
    s = seeded_model.sizes(4096, 64, 16384, 48)
    with pytest.raises(checks.Invalid, match="9,664,692,224 parameters, more than tinytui makes") as exc:
        seeded_model.new_model(s)
    assert exc.value.where == "sizes"
    small = seeded_model.sizes(5, 2, 8, 3, d_head=3)
    assert seeded_model.parameter_count(small, 8) == seeded_model.new_model(small).params.total() == 679


# ---- vocabularies --------------------------------------------------------------------------------


def test_parse_vocab():
    assert seeded_model.parse_vocab("a\nb\r\n c \n") == ("a", "b", "c")
    for text, why in [
        ("a\n\nb\n", "line 2: blank line"),
        ("a\nb\na\n", "line 3: 'a' repeats line 1"),
        ("a\nb c\n", "line 2: 'b c' has a space"),
        ("a\n\x1b[2J\n", "line 2: token: control character U+001B"),
        ("a\n" + "x" * 101 + "\n", "line 2: token: 101 characters"),
        ("", "no tokens"),
    ]:
        with pytest.raises(ValueError, match=re.escape(why)):
            seeded_model.parse_vocab(text, "words.txt")


# ---- weights -------------------------------------------------------------------------------------


def test_weights_are_n0_over_fan_in_with_zero_biases():
    s = seeded_model.sizes(64, 4, 256, 2, d_head=8)
    m = seeded_model.new_model(s, seed=3)
    p = m.params
    assert (
        p.cfg.vocab == seeded_model.DEFAULT_VOCAB
        and m.prompt == seeded_model.DEFAULT_PROMPT
        and m.target == "wood"
    )
    for name, fan_in in [("E", 64), ("blocks.1.W_Q", 64), ("blocks.0.W_O", 32), ("blocks.0.W_1", 64)]:
        assert np.std(p[name]) == pytest.approx(1 / np.sqrt(fan_in), rel=0.1), name
    assert np.std(p["blocks.1.W_2"]) == pytest.approx(1 / np.sqrt(256), rel=0.05)
    assert not p["blocks.0.b_1"].any() and not p["blocks.1.b_2"].any()


def test_the_same_seed_gives_the_same_file_and_another_seed_does_not(tmp_path):
    s = seeded_model.sizes(16, 4, 64, 2)
    for i, seed in enumerate((0, 0, 1)):
        save(seeded_model.new_model(s, seed=seed, name="x"), tmp_path / f"{i}.json")
    assert (tmp_path / "0.json").read_bytes() == (tmp_path / "1.json").read_bytes()
    assert (tmp_path / "0.json").read_bytes() != (tmp_path / "2.json").read_bytes()
    back = load(tmp_path / "0.json")
    assert back.params == seeded_model.new_model(s, seed=0).params and back.cfg.dims[15] == "d15"


def test_new_model_refuses_a_prompt_or_target_outside_the_vocabulary():
    s = seeded_model.sizes(4, 2, 8, 1)
    with pytest.raises(checks.Invalid, match="lacks the chapter's prompt") as exc:
        seeded_model.new_model(s, ("x", "y"))
    assert exc.value.where == "prompt"
    with pytest.raises(checks.Invalid, match="'q' is not in the vocabulary") as exc:
        seeded_model.new_model(s, ("x", "y"), ("x",), "q")
    assert exc.value.where == "target"
    with pytest.raises(checks.Invalid, match="longer than the context"):
        seeded_model.new_model(seeded_model.sizes(4, 2, 8, 1, n_ctx=2), prompt=("a", "a", "a"))
    assert seeded_model.new_model(s, ("x", "y"), ("x", "y"), "x").cfg.n_vocab == 2


# ---- presets ---------------------------------------------------------------------------------------


def test_presets_are_listed_by_name_default_first():
    found = presets()
    assert next(iter(found)) == "chapter17"
    assert {"chapter17", "chapter17-trained", "woodland"} <= set(found)
    assert all(path.is_file() and path.suffix == ".json" for path in found.values())


def test_every_preset_loads_within_the_bounds():
    for name, path in presets().items():
        cfg = load(path).cfg
        assert cfg.d_model <= LIMITS["d_model"] and cfg.n_vocab <= LIMITS["vocab"], name
        assert os.path.getsize(path) < 2**20, name


def test_resolve_a_path_that_exists_wins_over_a_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert resolve("chapter17-trained") == presets()["chapter17-trained"]
    Path("chapter17-trained").write_text("{}")
    assert resolve("chapter17-trained") == Path("chapter17-trained")
    assert resolve("missing.json") == Path("missing.json")  # loading it says it is missing
    with pytest.raises(ModelFileError, match=r"no preset of that name .*chapter17, "):
        resolve("chapter18")


def _tidy(params) -> float:
    """The share of weights that are a multiple of 1/4 (the chapter's hand-set tables mostly are)."""
    values = np.concatenate([params[n].ravel() for n in params])
    return float(np.mean(np.isclose(values * 4, np.round(values * 4))))


def test_the_trained_chapter_preset_is_the_chapter_architecture_trained():
    chapter, trained = load(presets()["chapter17"]), load(presets()["chapter17-trained"])
    a, b = chapter.cfg, trained.cfg
    assert (a.vocab, a.d_model, a.n_heads, a.d_head, a.d_ff, a.n_blocks) == (
        b.vocab,
        b.d_model,
        b.n_heads,
        b.d_head,
        b.d_ff,
        b.n_blocks,
    )
    assert (trained.prompt, trained.target) == (chapter.prompt, chapter.target)
    assert _tidy(chapter.params) > 0.8 and _tidy(trained.params) < 0.05  # trained weights are never tidy
    lines = corpus.read_lines((PRESETS / "corpora" / "chapter17.txt").read_text())
    assert 50 <= len(lines) <= 200
    assert corpus.corpus_loss(trained.params, lines) < 0.5 < corpus.corpus_loss(chapter.params, lines)


def test_the_woodland_preset_is_bigger_and_knows_its_corpus():
    m = load(presets()["woodland"])
    cfg = m.cfg
    assert (cfg.n_blocks, cfg.d_model, cfg.n_heads) == (2, 16, 4) and 24 <= cfg.n_vocab <= 100
    lines = corpus.read_lines((PRESETS / "corpora" / "woodland.txt").read_text())
    corpus.check_lines(lines, cfg.vocab, cfg.n_ctx)
    assert corpus.corpus_loss(m.params, lines) < 1.0


def test_the_presets_readme_records_how_each_trained_preset_was_made():
    text = (PRESETS / "README.md").read_text()
    for name in presets():
        if name != "chapter17":
            assert f"-o model/presets/{name}.json" in text, name
