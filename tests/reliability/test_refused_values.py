"""Values that used to be accepted silently are refused: tokens that look the same (they differ only
by invisible characters), keymap keys no terminal can send, and running out of memory is one line."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace

import pytest

from tinytui.cli.main import main
from tinytui.model.io.field_checks import ModelFileError, look_alike
from tinytui.model.io.model_file import default_model_path, load, load_default, save
from tinytui.model.params import Params
from tinytui.tui.actions import ACTION_BY_ID, check_keymap

HIDDEN = {
    "zero-width space": "wo\u200bod",
    "zero-width joiner": "woo\u200dd",
    "word joiner": "\u2060wood",
    "right-to-left mark": "wood\u200f",
    "left-to-right mark": "wo\u200eod",
    "soft hyphen": "wo\u00adod",
    "variation selector": "wood\ufe0f",
}


@pytest.mark.parametrize("twin", HIDDEN.values(), ids=HIDDEN.keys())
def test_a_model_file_with_two_tokens_that_look_the_same_is_refused(twin, tmp_path):
    doc = json.loads(default_model_path().read_text(encoding="utf-8"))
    assert doc["vocab"][4] == "wood"
    doc["vocab"][2] = twin
    path = tmp_path / "twins.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ModelFileError) as refused:
        load(path)
    said = str(refused.value)
    assert said.startswith(f"{path}: vocab[4]: 'wood' looks the same as vocab[2] ")
    assert "differ only by invisible characters" in said and "\n" not in said


def test_accents_encoded_two_ways_look_the_same_and_distinct_tokens_do_not():
    assert look_alike(["caf\u00e9", "x", "cafe\u0301"]) == (0, 2)
    assert look_alike(["wood", "Wood", "w00d", "chuck"]) is None
    assert look_alike(load_default().cfg.vocab) is None


def test_new_refuses_such_a_vocabulary_naming_both_lines(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "words.txt").write_text("a\nwood\nchuck\nwo\u200bod\n", encoding="utf-8")
    assert main(["new", "--vocab", "words.txt", "-o", "m.json"]) == 2
    assert capsys.readouterr().err == (
        "tinytui: error: --vocab: words.txt: line 4: 'wo\\u200bod' looks the same as line 2's 'wood': "
        "they differ only by invisible characters\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["words.txt"]


def test_save_never_writes_a_file_load_would_refuse(tmp_path):
    model = load_default()
    vocab = list(model.cfg.vocab)
    vocab[2] = "wo\u200bod"
    cfg = replace(model.cfg, vocab=tuple(vocab))
    twins = replace(model, params=Params(cfg, {name: model.params[name] for name in model.params}))
    with pytest.raises(ModelFileError, match=r"vocab\[4\]: 'wood' looks the same as vocab\[2\]"):
        save(twins, tmp_path / "twins.json")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "keys, why",
    [
        ("ctrl+alt+shift+super+hyper+x", "'super' is not a modifier a terminal sends (ctrl, shift or alt)"),
        ("meta+n", "'meta' is not a modifier a terminal sends"),
        ("ctrl+ctrl+n", "names a modifier twice"),
        ("ctrl+bogus", "'bogus' is not a key Textual knows"),
        ("F5", "'F5' is not a key Textual knows"),
        ("ctrl+", "'' is not a key Textual knows"),
    ],
)
def test_a_keymap_key_no_terminal_sends_is_a_notice_and_takes_nothing(keys, why):
    good, notices = check_keymap({"next-step": keys})
    assert good == {}  # next-step keeps n, right and space
    (notice,) = notices
    assert notice.startswith("Ignored keymap entry 'next-step': ") and why in notice
    assert notice.endswith("it keeps its default keys.")


def test_every_default_key_and_the_usual_kinds_are_accepted():
    for action in ACTION_BY_ID.values():
        for key in filter(None, (k.strip() for k in action.keys.split(","))):
            assert check_keymap({action.id: key})[0] == {action.id: key}, (action.id, key)
    good, _ = check_keymap({"next-step": "j,down,ctrl+j,shift+tab,f5,question_mark,alt+x,+"})
    assert good == {"next-step": "j,down,ctrl+j,shift+tab,f5,question_mark,alt+x,+"}


def test_out_of_memory_is_one_line():
    script = f'ulimit -v 150000; exec "{sys.executable}" -m tinytui print'
    done = subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (1, "")
    assert (
        done.stderr == "tinytui: error: out of memory (this machine, or its limit, holds too little for it)\n"
    )
