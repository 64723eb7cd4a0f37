"""A recording never replaces a file: `--record` onto an existing transcript or log, the model being
loaded or an installed preset is refused in one line with exit 2 before the app starts, and so are
the app's path dialogs and the recorder itself; `--record x.jsonl` asks for the transcript's name."""

import os
from pathlib import Path

import pytest

from tinytui.cli.main import main
from tinytui.model.io.model_file import default_model_path
from tinytui.model.io.presets import folder as presets_folder
from tinytui.recording.recorder import Recorder, events_path
from tinytui.session.session import Session
from tinytui.tui.output_paths import check_record_path

PRESET = default_model_path()


def run(capsys, *argv):
    rc = main([*map(str, argv)])
    said = capsys.readouterr()
    return rc, said.out, said.err


def refused(capsys, *argv) -> str:
    """The one line a refused command says; the app never started (the terminal check comes later:
    without a terminal it would have said that instead)."""
    rc, out, err = run(capsys, *argv)
    assert rc == 2 and out == "" and err.count("\n") == 1, (rc, out, err)
    assert err.startswith("tinytui: error: --record: "), err
    return err


def test_an_existing_transcript_is_refused_and_kept(tmp_path, capsys):
    notes = tmp_path / "lesson.txt"
    notes.write_text("my notes\n", encoding="utf-8")
    err = refused(capsys, "--record", notes)
    assert "lesson.txt exists; a recording never replaces a file" in err
    assert notes.read_text(encoding="utf-8") == "my notes\n"
    assert not events_path(notes).exists()  # nothing was started beside it either


def test_an_existing_log_beside_a_new_transcript_is_refused_and_kept(tmp_path, capsys):
    log = tmp_path / "lesson.jsonl"
    log.write_text("{}\n", encoding="utf-8")
    err = refused(capsys, "--record", tmp_path / "lesson.txt")
    assert "lesson.jsonl exists" in err
    assert log.read_text(encoding="utf-8") == "{}\n" and not (tmp_path / "lesson.txt").exists()


def test_the_model_being_loaded_is_never_recorded_over(tmp_path, capsys):
    model = tmp_path / "m.json"
    model.write_bytes(PRESET.read_bytes())
    err = refused(capsys, "--model", model, "--record", model)
    assert f"{model} is the model being loaded" in err
    assert model.read_bytes() == PRESET.read_bytes()
    # nor the default model, which loads when no --model is given
    assert "is the model being loaded" in refused(capsys, "--record", PRESET)


def test_the_installed_presets_are_never_recorded_over_or_into(capsys):
    before = sorted(os.listdir(presets_folder()))
    err = refused(capsys, "--model", "chapter17", "--record", presets_folder() / "lesson.txt")
    assert "is in tinytui's installed presets" in err
    assert sorted(os.listdir(presets_folder())) == before


def test_a_log_name_asks_for_the_transcripts_name_and_makes_nothing(tmp_path, capsys):
    err = refused(capsys, "--record", tmp_path / "x.jsonl")
    assert "x.jsonl: name the transcript instead, e.g. x.txt" in err
    assert os.listdir(tmp_path) == []


def test_replay_and_practice_refuse_an_existing_record_path_before_anything_else(tmp_path, capsys):
    taken = tmp_path / "taken.txt"
    taken.write_text("kept\n", encoding="utf-8")
    # the replayed file does not even exist: the --record line comes first
    assert "taken.txt exists" in refused(capsys, "--record", taken, "replay", tmp_path / "nothing.txt")
    assert "taken.txt exists" in refused(capsys, "--record", taken, "practice", "--step", "7")
    assert taken.read_text(encoding="utf-8") == "kept\n"


def test_the_recorder_itself_never_replaces_a_file(chapter, tmp_path):
    """What `serve` relies on: two sessions given one name cannot both write it."""
    first = Recorder(tmp_path / "lesson.txt", clock=None)
    first.attach(Session(chapter))
    assert first.problem is None and first.path == tmp_path / "lesson.txt"
    second = Recorder(tmp_path / "lesson.txt", clock=None)
    assert "lesson.txt and lesson.jsonl exist; a recording never replaces a file" in second.problem
    assert second.path is None  # it records in memory; set_path() to a free name saves it
    second.attach(Session(chapter))
    first.session.goto(3)
    first.stop()
    second.stop()
    assert "1 · step 3/16" in (tmp_path / "lesson.txt").read_text(encoding="utf-8")  # the first's, whole
    assert second.set_path(tmp_path / "other.txt") is None
    assert "recording stopped after 0 events" in (tmp_path / "other.txt").read_text(encoding="utf-8")


def test_a_file_made_after_the_check_is_not_replaced(chapter, tmp_path, monkeypatch):
    """The files are created exclusively: one that appears between the check and the write stays."""
    import tinytui.recording.recorder as recorder

    path = tmp_path / "lesson.txt"

    def late_arrival(p, loading=None):
        events_path(path).write_text("someone else's\n", encoding="utf-8")
        return ""

    monkeypatch.setattr(recorder, "target_problem", late_arrival)
    rec = Recorder(path, clock=None)
    assert "exists; a recording never replaces a file" in rec.problem
    assert events_path(path).read_text(encoding="utf-8") == "someone else's\n"
    assert not path.exists()  # the transcript made first was taken back


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("taken.txt", "taken.txt exists; a recording never replaces a file"),
        ("logged.txt", "logged.jsonl exists"),
        (str(PRESET), "is in tinytui's installed presets"),
        ("x.jsonl", "name the transcript instead, e.g. x.txt"),
    ],
)
def test_the_record_dialog_refuses_what_the_command_line_refuses(tmp_path, monkeypatch, typed, says):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "taken.txt").write_text("kept\n", encoding="utf-8")
    (tmp_path / "logged.jsonl").write_text("kept\n", encoding="utf-8")
    path, why = check_record_path(typed)
    assert path is None and says in why  # refused, not asked about: no second Enter replaces it
    assert check_record_path("fresh") == (Path("fresh.txt"), "")
