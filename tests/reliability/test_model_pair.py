"""A model written as two files (JSON + .safetensors) lands as a unit: a run killed (SIGKILL) between
the two leaves weights the next run knows as the half of its model and removes, a run killed while
writing leaves only hidden temporaries, swept when the next command starts, and a save over a pair
killed between the two leaves the old pair loading as it was."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

from tinytui.cli.main import main
from tinytui.model.io.model_file import BINARY_ABOVE, half_left, load, save, weights_written_for

SIZES = ["--d", "128", "--ff", "256"]  # 139,264 weights: above BINARY_ABOVE, so two files


def killed_at_rename(folder, number: int, command: str = "") -> list[str]:
    """Run `tinytui new … -o big.json` (or command, Python run in folder) and SIGKILL it at its
    number-th rename into place (1: before any file lands; 2: after the weights landed, before the
    JSON); what is left in folder."""
    run = (
        command or f"from tinytui.cli.main import main; sys.exit(main(['new', *{SIZES!r}, '-o', 'big.json']))"
    )
    script = (
        textwrap.dedent(
            f"""
        import os, signal, sys
        from tinytui.model.io import safe_io
        renames = []
        def counted(real):  # a rename over, or a link to a name that must be free: a file landing
            def land(src, dst):
                renames.append(dst)
                if len(renames) == {number}:
                    os.kill(os.getpid(), signal.SIGKILL)  # no cleanup can run
                real(src, dst)
            return land
        safe_io.os.replace, safe_io.os.link = counted(os.replace), counted(os.link)
        """
        )
        + run
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=folder, capture_output=True, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr
    return sorted(os.listdir(folder))


def pair(path) -> list[str]:
    """A model file's name and the weights file its JSON names, in name order."""
    return sorted([path.name, json.loads(path.read_text())["weights_file"]])


def test_a_kill_between_the_two_files_leaves_a_half_the_next_run_removes(tmp_path, monkeypatch, capsys):
    left = killed_at_rename(tmp_path, 2)
    assert left[0].startswith(".big.json.tinytui-") and left[0].endswith(".tmp")  # the JSON, not moved
    (weights,) = left[1:]  # the weights landed alone
    assert weights.startswith("big.") and weights.endswith(".safetensors")
    assert half_left(tmp_path / "big.json") == [tmp_path / weights]
    monkeypatch.chdir(tmp_path)
    assert main(["new", *SIZES, "-o", "big.json"]) == 0  # before: "big.safetensors exists"
    err = capsys.readouterr().err
    assert f"removed {left[0]}, a temporary file left by a tinytui that was stopped" in err
    assert f"removed {weights}, the weights of a big.json whose writing was stopped" in err
    assert sorted(os.listdir(tmp_path)) == pair(tmp_path / "big.json")
    assert load(tmp_path / "big.json").params.total() > BINARY_ABOVE


def test_a_kill_before_either_lands_leaves_temporaries_swept_when_the_command_starts(
    tmp_path, monkeypatch, capsys
):
    left = killed_at_rename(tmp_path, 1)
    assert len(left) == 2 and all(name.endswith(".tmp") and ".tinytui-" in name for name in left)
    json_tmp, weights_tmp = sorted((name.split(".tinytui-")[0] for name in left), key=len)
    assert (
        json_tmp == ".big.json" and weights_tmp.startswith(".big.") and weights_tmp.endswith(".safetensors")
    )
    monkeypatch.chdir(tmp_path)
    assert main(["new", "--heads", "3", "-o", "big.json"]) == 2  # refused, after the sweep at its start
    assert os.listdir(tmp_path) == []
    assert capsys.readouterr().err.count("a temporary file left by a tinytui that was stopped") == 2


def test_weights_that_are_not_a_killed_half_are_left_alone(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["new", *SIZES, "-o", "other.json"]) == 0
    (theirs,) = weights_written_for(tmp_path / "other.json")
    os.rename(theirs, tmp_path / "big.safetensors")  # written for other.json
    (tmp_path / "other.json").unlink()
    (tmp_path / "mine.safetensors").write_bytes(b"the user's own file")
    assert half_left(tmp_path / "big.json") == [] and half_left(tmp_path / "mine.json") == []
    for name in ("big", "mine"):
        assert main(["new", *SIZES, "-o", f"{name}.json"]) == 0  # its weights go under their own name
        assert "removed" not in capsys.readouterr().err
    assert (tmp_path / "mine.safetensors").read_bytes() == b"the user's own file"
    assert {"big.safetensors", "mine.safetensors"} <= set(os.listdir(tmp_path)) and len(
        os.listdir(tmp_path)
    ) == 6


def test_a_save_over_a_pair_killed_between_the_two_leaves_the_old_model(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["new", *SIZES, "-o", "big.json"]) == 0
    old = load(tmp_path / "big.json")
    resave = (
        "from tinytui.model.io.model_file import load, save\n"
        "m = load('big.json')\n"
        "E = m.params.with_arrays({'E': m.params['E'] + 1})\n"
        "save(m.__class__(m.name, m.about, E, m.prompt, m.target), 'big.json')\n"
    )
    left = killed_at_rename(tmp_path, 2, resave)
    assert len([name for name in left if name.endswith(".safetensors")]) == 2  # old and new weights
    back = load(tmp_path / "big.json")  # before: the new weights under the old JSON
    assert all(back.params[n].tobytes() == old.params[n].tobytes() for n in old.params)
    save(back, tmp_path / "big.json")  # the next save removes the weights no JSON names
    assert sorted(os.listdir(tmp_path)) == pair(tmp_path / "big.json")


def test_a_saved_pair_names_each_other(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["new", *SIZES, "-o", "made.json"]) == 0
    model = load(tmp_path / "made.json")
    for name in os.listdir(tmp_path):
        (tmp_path / name).unlink()
    save(model, tmp_path / "pair.json")  # as ctrl+s saves
    weights = json.loads((tmp_path / "pair.json").read_text())["weights_file"]
    assert sorted(os.listdir(tmp_path)) == sorted(["pair.json", weights])  # no temporary left
    assert weights_written_for(tmp_path / "pair.json") == [tmp_path / weights]
    assert half_left(tmp_path / "pair.json") == []  # its JSON is there: not a half
    assert load(tmp_path / "pair.json").params.total() == model.params.total()
