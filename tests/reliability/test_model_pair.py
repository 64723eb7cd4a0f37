"""A model written as two files (JSON + .safetensors) lands as a unit: a run killed (SIGKILL) between
the two leaves weights the next run knows as the half of its model and removes, and a run killed while
writing leaves only hidden temporaries, swept when the next command starts."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

from tinytui.cli.main import main
from tinytui.model.io.model_file import BINARY_ABOVE, half_left, load, save, weights_beside

SIZES = ["--d", "128", "--ff", "256"]  # 139,264 weights: above BINARY_ABOVE, so two files


def killed_at_rename(folder, number: int) -> list[str]:
    """Run `tinytui new … -o big.json` in folder and SIGKILL it at its number-th rename into place (1:
    before any file lands; 2: after the weights landed, before the JSON); what is left in folder."""
    script = textwrap.dedent(
        f"""
        import os, signal, sys
        from tinytui.model.io import safe_io
        renames = []
        real = os.replace
        def replace(src, dst):
            renames.append(dst)
            if len(renames) == {number}:
                os.kill(os.getpid(), signal.SIGKILL)  # no cleanup can run
            real(src, dst)
        safe_io.os.replace = replace
        from tinytui.cli.main import main
        sys.exit(main(["new", *{SIZES!r}, "-o", "big.json"]))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=folder, capture_output=True, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr
    return sorted(os.listdir(folder))


def test_a_kill_between_the_two_files_leaves_a_half_the_next_run_removes(tmp_path, monkeypatch, capsys):
    left = killed_at_rename(tmp_path, 2)
    assert left[0].startswith(".big.json.tinytui-") and left[0].endswith(".tmp")  # the JSON, not moved
    assert left[1:] == ["big.safetensors"]  # the weights landed alone
    assert half_left(tmp_path / "big.json") == tmp_path / "big.safetensors"
    monkeypatch.chdir(tmp_path)
    assert main(["new", *SIZES, "-o", "big.json"]) == 0  # before: "big.safetensors exists"
    err = capsys.readouterr().err
    assert f"removed {left[0]}, a temporary file left by a tinytui that was stopped" in err
    assert "removed big.safetensors, the weights of a big.json whose writing was stopped" in err
    assert sorted(os.listdir(tmp_path)) == ["big.json", "big.safetensors"]
    assert load(tmp_path / "big.json").params.total() > BINARY_ABOVE


def test_a_kill_before_either_lands_leaves_temporaries_swept_when_the_command_starts(
    tmp_path, monkeypatch, capsys
):
    left = killed_at_rename(tmp_path, 1)
    assert len(left) == 2 and all(name.endswith(".tmp") and ".tinytui-" in name for name in left)
    assert {name.split(".tinytui-")[0] for name in left} == {".big.json", ".big.safetensors"}
    monkeypatch.chdir(tmp_path)
    assert main(["new", "--heads", "3", "-o", "big.json"]) == 2  # refused, after the sweep at its start
    assert os.listdir(tmp_path) == []
    assert capsys.readouterr().err.count("a temporary file left by a tinytui that was stopped") == 2


def test_weights_that_are_not_a_killed_half_still_block(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["new", *SIZES, "-o", "other.json"]) == 0
    os.rename(tmp_path / "other.safetensors", tmp_path / "big.safetensors")  # written for other.json
    (tmp_path / "other.json").unlink()
    (tmp_path / "mine.safetensors").write_bytes(b"the user's own file")
    assert half_left(tmp_path / "big.json") is None and half_left(tmp_path / "mine.json") is None
    capsys.readouterr()
    for name in ("big", "mine"):
        assert main(["new", *SIZES, "-o", f"{name}.json"]) == 2
        assert f"-o: {name}.safetensors exists; tinytui never overwrites it" in capsys.readouterr().err
    assert sorted(os.listdir(tmp_path)) == ["big.safetensors", "mine.safetensors"]


def test_a_saved_pair_names_each_other(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["new", *SIZES, "-o", "made.json"]) == 0
    model = load(tmp_path / "made.json")
    (tmp_path / "made.json").unlink()
    (tmp_path / "made.safetensors").unlink()
    save(model, tmp_path / "pair.json")  # as ctrl+s saves
    assert sorted(os.listdir(tmp_path)) == ["pair.json", "pair.safetensors"]  # no temporary left
    assert weights_beside(tmp_path / "pair.json") == tmp_path / "pair.safetensors"
    assert half_left(tmp_path / "pair.json") is None  # its JSON is there: not a half
    assert load(tmp_path / "pair.json").params.total() == model.params.total()
