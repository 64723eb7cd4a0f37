"""`tinytui why` with a name no tensor has lists the names it knows, at most MAX_NAMED of them: for a
model of 48 blocks the list was one line of 56,000 characters."""

from tinytui.cli.main import main
from tinytui.lesson.why.explain import MAX_NAMED


def test_the_list_of_names_stops_and_says_how_many_more(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["new", "--d", "8", "--heads", "2", "--blocks", "48", "-o", "deep.json"]) == 0
    capsys.readouterr()
    assert main(["why", "nope", "--model", "deep.json"]) == 2
    said = capsys.readouterr().err
    assert said.startswith("tinytui: error: no tensor named 'nope'; the names are: id, E[id], PE, x")
    assert said.count(", ") == MAX_NAMED and said.count("\n") == 1 and len(said) < 3000
    assert said.endswith(" more (tinytui trace --list names them all)\n")


def test_the_chapters_names_are_all_listed(capsys):
    assert main(["why", "nope"]) == 2
    said = capsys.readouterr().err
    assert said.endswith(", ∂L/∂ℓ\n") and "more" not in said
