"""A model saved after edits says what it is: its name and about record the model it derives from and
the weights edited, so a handout made from it never repeats the chapter's claim about its figures."""

import io

from tinytui.cli.main import cmd_print
from tinytui.cli.options import build_parser
from tinytui.model.io.checkpoint_save import save_edited
from tinytui.model.io.model_file import load
from tinytui.session.session import Session

CLAIM = "reproduces every printed figure"


def saved(session, path):
    s = session.state
    return load(save_edited(session.model, s.params, s.prompt, s.target, path))


def test_an_edited_model_names_its_source_and_each_edited_weight(chapter, tmp_path):
    assert chapter.name == "chapter17" and CLAIM in chapter.about
    session = Session(chapter)
    session.edit("W_O", (2, 0), "2")
    session.edit("W_1", (0, 1), "-0.5")
    model = saved(session, tmp_path / "mine.json")
    assert model.name == "chapter17-edited"
    assert model.about == (
        "Derived from chapter17 with 2 weights edited: W_O[2,0] 0 → 2, W_1[0,1] 0 → -0.5. "
        "Its numbers are its own, not the ones chapter17 was made to show."
    )
    out = io.StringIO()
    cmd_print(build_parser().parse_args(["print", "--markdown", "--model", str(tmp_path / "mine.json")]), out)
    assert (
        "model `chapter17-edited`" in out.getvalue()
        and "Derived from chapter17 with 2 weights" in out.getvalue()
    )
    assert CLAIM not in out.getvalue()


def test_a_learning_step_counts_every_weight_it_moved(chapter, tmp_path):
    session = Session(chapter)
    session.learn_step()
    model = saved(session, tmp_path / "trained.json")
    moved = sum(int((session.params[n] != chapter.params[n]).sum()) for n in chapter.params)
    assert moved > 8
    assert model.about.startswith(f"Derived from chapter17 with {moved} weights edited: ")
    assert f", and {moved - 8} more. " in model.about and model.about.count(" → ") == 8


def test_saving_again_keeps_one_suffix_and_an_unedited_model_keeps_its_words(chapter, tmp_path):
    session = Session(chapter)
    session.set_target("chuck")  # not a weight: the model is still the chapter's
    same = saved(session, tmp_path / "same.json")
    assert (same.name, same.about, same.target) == (chapter.name, chapter.about, "chuck")
    session.edit("W_O", (2, 0), "2")
    first = saved(session, tmp_path / "first.json")
    again = Session(first)
    again.edit("W_O", (2, 0), "3")
    second = saved(again, tmp_path / "second.json")
    assert second.name == "chapter17-edited"
    assert second.about.startswith("Derived from chapter17-edited with 1 weight edited: W_O[2,0] 2 → 3.")
