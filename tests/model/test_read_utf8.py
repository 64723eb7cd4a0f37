"""safe_io.read_utf8: the one safe text reader that model files, tokenizer files and --vocab share."""

import os

import pytest

from tinytui.cli.new_command import CommandError, read_text
from tinytui.model.io import bpe
from tinytui.model.io.field_checks import ModelFileError
from tinytui.model.io.model_file import load as load_file
from tinytui.model.io.safe_io import TextFileError, read_utf8


def test_reads_a_small_utf8_file(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("Ġwood ﬁ\n", encoding="utf-8")
    assert read_utf8(path, 100) == "Ġwood ﬁ\n"


def test_each_refusal_says_why(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ab\xffcd")
    with pytest.raises(TextFileError) as not_text:
        read_utf8(bad, 100)
    assert (not_text.value.byte, not_text.value.reason) == (2, "not UTF-8 text at byte 2")
    with pytest.raises(TextFileError) as missing:
        read_utf8(tmp_path / "none.txt", 100)
    assert missing.value.missing and missing.value.kind == "FileNotFoundError"
    with pytest.raises(TextFileError) as folder:
        read_utf8(tmp_path, 100)
    assert folder.value.reason == "it is a folder, not a regular file" and not folder.value.missing
    big = tmp_path / "big.txt"
    big.write_text("x" * (2**20 + 1))
    with pytest.raises(TextFileError, match="larger than 1 MB"):
        read_utf8(big, 2**20)


def test_a_fifo_is_refused_without_waiting(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(TextFileError, match="FIFO"):
        read_utf8(fifo, 100)


def test_the_three_readers_word_it_as_before(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"{\xff}")
    with pytest.raises(ModelFileError) as model_file:
        load_file(bad)
    assert str(model_file.value) == f"{bad}: cannot read the file (not UTF-8 text at byte 1)"
    with pytest.raises(bpe.TokenizerFileError) as tokenizer:
        bpe.read_text(bad)
    assert str(tokenizer.value) == f"{bad}: not UTF-8 text at byte 1"
    with pytest.raises(bpe.TokenizerFileError) as missing:
        bpe.read_text(tmp_path / "vocab.json")
    assert str(missing.value) == f"{tmp_path / 'vocab.json'}: missing ({bpe.FOLDER_HAS})"
    with pytest.raises(CommandError) as command:
        read_text(str(tmp_path), 100, "--vocab: ", "the file")
    assert (
        str(command.value)
        == f"--vocab: {tmp_path}: cannot read the file (it is a folder, not a regular file)"
    )
