"""vocab.json and merges.txt are checked in bulk (one search of every piece, one pass over the merges),
and what fails is still named exactly: the piece with a bad id or character, the merges line by number."""

import json

import pytest

from tests.gpt2.checkpoints import copy, refused
from tinytui.model.io import bpe
from tinytui.model.io.bpe import TokenizerFileError


@pytest.mark.parametrize(
    ("piece", "i", "says"),
    [
        ("extra", 3.0, "'extra': id '3.0' is not a whole number from 0"),
        ("extra", True, "'extra': id 'True' is not a whole number from 0"),
        ("extra", -1, "'extra': id '-1' is not a whole number from 0"),
    ],
)
def test_a_bad_id_names_its_piece(tmp_path, piece, i, says):
    folder = copy(tmp_path)
    vocab = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
    (folder / "vocab.json").write_text(json.dumps({**vocab, piece: i}), encoding="utf-8")
    assert refused(folder) == f"{folder / 'vocab.json'}: {says}"


@pytest.mark.parametrize("char", ["\u202e", "\u2028", "\x85", "\ud800"])
def test_a_piece_with_a_character_plain_text_refuses_is_named(tmp_path, char):
    path = tmp_path / "vocab.json"
    path.write_text(json.dumps({"a": 0, f"b{char}": 1, "c": 2}), encoding="utf-8")
    with pytest.raises(TokenizerFileError, match=f"^{path}: 'b.*: .*U\\+{ord(char):04X} at position 1"):
        bpe.read_vocab(path)


def test_a_bad_merge_is_named_by_its_line(tmp_path):
    path = tmp_path / "merges.txt"
    path.write_text("#version: 0.2\na b\n\nc d\ne  f\ng h\n", encoding="utf-8")
    with pytest.raises(TokenizerFileError, match=f"^{path}:5: expected two pieces separated by one space$"):
        bpe.read_merges(path)
    path.write_text("a b\nc d\n", encoding="utf-8")
    assert bpe.read_merges(path) == [("a", "b"), ("c", "d")]  # no #version line: the first is a merge
