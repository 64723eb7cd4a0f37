"""`tinytui new --arch llama|gpt2|chapter` makes a model of each family (the chapter's exactly as before),
one-line refusals for what a family cannot be; the hand-scale Llama preset is what its script makes."""

import json
import sys

import numpy as np
import pytest

from tinytui.cli.main import main
from tinytui.model.io.model_file import load
from tinytui.model.io.presets import folder, presets
from tinytui.model.trace import run


def new(tmp_path, capsys, *args):
    out = tmp_path / "m.json"
    rc = main(["new", *args, "-o", str(out)])
    return rc, out, capsys.readouterr()


def test_each_family(tmp_path, capsys):
    rc, path, _ = new(tmp_path, capsys, "--arch", "llama", "--heads", "4", "--d-head", "2", "--blocks", "2")
    assert rc == 0
    cfg = load(path).cfg
    assert (cfg.norm, cfg.positions, cfg.activation, cfg.n_kv_heads, cfg.tied) == (
        "rms",
        "rope",
        "swiglu",
        2,
        True,
    )
    params = load(path).params
    assert np.array_equal(params["blocks.1.ln2_g"], np.ones(4)) and "blocks.0.W_gate" in params
    (tmp_path / "g").mkdir()
    rc, path, _ = new(tmp_path / "g", capsys, "--arch", "gpt2")
    m = load(path)
    assert rc == 0 and m.cfg.positions == "learned" and m.cfg.attn_bias and m.cfg.activation == "gelu"
    assert np.array_equal(m.params["blocks.0.b_Q"], np.zeros((2, 2))) and np.array_equal(
        m.params["lnf_g"], np.ones(4)
    )
    assert run(m.params, m.prompt, m.target).loss > 0


def test_the_chapters_family_is_the_default_byte_for_byte(tmp_path, capsys):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    _, plain, _ = new(tmp_path / "a", capsys, "--seed", "3")
    _, chapter, _ = new(tmp_path / "b", capsys, "--seed", "3", "--arch", "chapter")
    assert plain.read_bytes() == chapter.read_bytes()
    assert "positions" not in json.loads(plain.read_text())


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--arch", "llama"), "--arch llama: rotary positions turn dims in pairs: d_head 1 must be even"),
        (("--arch", "llama", "--heads", "4", "--d-head", "2", "--kv-heads", "3"), "n_kv_heads 3 must divide"),
        (("--kv-heads", "2"), "--kv-heads: only --arch llama has key/value heads of their own"),
        (("--arch", "llama", "--heads", "2", "--d-head", "2", "--kv-heads", "x"), "--kv-heads:"),
    ],
)
def test_a_family_it_cannot_be_is_one_line(tmp_path, capsys, args, says):
    rc, path, io = (
        new(tmp_path, capsys, "--heads", "4", *args)
        if "--heads" not in args
        else new(tmp_path, capsys, *args)
    )
    assert rc == 2 and says in io.err and io.err.count("\n") == 1 and not path.exists()


def test_the_hand_scale_preset_is_its_scripts(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(folder().parent.parent / "scripts"))
    sys.modules.pop("make_llama_preset", None)
    import make_llama_preset

    made = make_llama_preset.model()
    shipped = load(presets()["chapter17-llama"])
    assert shipped.params == made.params and shipped.cfg == made.cfg
    cfg = shipped.cfg
    shape = (cfg.n_heads, cfg.n_kv_heads, cfg.d_head, cfg.n_blocks)
    assert shape == (4, 2, 2, 2) and (cfg.norm, cfg.positions, cfg.activation) == ("rms", "rope", "swiglu")
    chapter = load(presets()["chapter17"])
    assert (cfg.vocab, shipped.prompt, shipped.target) == (chapter.cfg.vocab, chapter.prompt, chapter.target)
    values = np.concatenate([shipped.params[n].ravel() for n in shipped.params])
    assert np.array_equal(values * 4, np.round(values * 4))  # every weight a quarter: checkable by hand
