"""`tinytui new` and `tinytui train` check -o is free before their work and write at its end (training
takes minutes): a file put there in between is never replaced, and nothing of theirs is left."""

from __future__ import annotations

import os

from tinytui.cli import new_command
from tinytui.cli.main import main

BIG = ["--d", "128", "--ff", "256"]  # above BINARY_ABOVE: the weights land first, beside the JSON


def taken_while_working(monkeypatch, text: str = "someone else's\n"):
    """output_path as before, then a file of someone else's at that name, as if written meanwhile."""
    checked = new_command.output_path

    def then_taken(*args, **kwargs):
        path = checked(*args, **kwargs)
        path.write_text(text, encoding="utf-8")
        return path

    monkeypatch.setattr(new_command, "output_path", then_taken)


def test_new_never_replaces_a_file_written_while_it_worked(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    taken_while_working(monkeypatch)
    for sizes, name in (([], "small.json"), (BIG, "big.json")):
        assert main(["new", *sizes, "-o", name]) == 2
        assert capsys.readouterr().err.strip() == (
            f"tinytui: error: -o: {name} exists; tinytui never overwrites it (choose another name)"
        )
        assert (tmp_path / name).read_text(encoding="utf-8") == "someone else's\n"
    assert sorted(os.listdir(tmp_path)) == ["big.json", "small.json"]  # no weights, no temporaries


def test_train_never_replaces_a_file_written_while_it_trained(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "corpus.txt").write_text("a woodchuck would chuck wood\n", encoding="utf-8")
    taken_while_working(monkeypatch)
    assert main(["train", "corpus.txt", "--steps", "2", "-o", "trained.json"]) == 2
    assert "trained.json exists; tinytui never overwrites it" in capsys.readouterr().err
    assert (tmp_path / "trained.json").read_text(encoding="utf-8") == "someone else's\n"
    assert sorted(os.listdir(tmp_path)) == ["corpus.txt", "trained.json"]
