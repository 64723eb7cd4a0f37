"""Nothing left behind: a write that fails removes its temporary file, a run killed mid-write has its
temporaries removed by the next write in that folder (or by `tinytui train -o` before it starts), a
full disk leaves no empty screenshot, and `train -o` checks its output path before training."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from tests.apps import make_app
from tests.tui.helpers import press
from tinytui.model.io import safe_io
from tinytui.model.io.model_file import load_default, save
from tinytui.model.io.safe_io import atomic_writer, check_can_create, sweep_stale

CORPUS = "a woodchuck would chuck wood\nhow much wood would a woodchuck chuck\n"


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def train(tmp_path, *args, **popen) -> subprocess.CompletedProcess:
    (tmp_path / "corpus.txt").write_text(CORPUS)
    command = [sys.executable, "-m", "tinytui", "train", "corpus.txt", *args]
    return subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120, **popen)


def test_the_temporaries_of_a_gone_process_are_swept_and_nothing_else(tmp_path):
    gone, live = dead_pid(), os.getppid()
    stale_file = tmp_path / f".edited.json.tinytui-{gone}-0123456789ab.tmp"
    stale_file.write_text("half a model")
    stale_folder = tmp_path / f".gpt2-edited.tinytui-{gone}-ba9876543210.tmp"
    (stale_folder / "inner").mkdir(parents=True)
    (stale_folder / "inner" / "model.safetensors").write_bytes(b"\0" * 64)
    kept = [
        tmp_path / f".edited.json.tinytui-{live}-0123456789ab.tmp",  # its process still runs
        tmp_path / ".edited.json.0123456789ab.tmp",  # not named as tinytui names its own
        tmp_path / "edited.json",
    ]
    for path in kept:
        path.write_text("keep")
    link = tmp_path / f".link.tinytui-{gone}-0123456789ab.tmp"
    link.symlink_to(tmp_path / "edited.json")
    removed = sweep_stale(tmp_path)
    assert sorted(removed) == sorted([stale_file, stale_folder])
    assert sorted(os.listdir(tmp_path)) == sorted([p.name for p in kept] + [link.name])
    assert (tmp_path / "edited.json").read_text() == "keep"


def test_a_write_killed_mid_way_is_swept_by_the_next_write(tmp_path):
    script = textwrap.dedent(
        """
        import os, signal, sys
        from tinytui.model.io.safe_io import atomic_writer
        with atomic_writer(sys.argv[1]) as f:
            f.write("x" * 100_000)
            f.flush()
            os.kill(os.getpid(), signal.SIGKILL)  # no cleanup can run
        """
    )
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "big.json")], timeout=60)
    assert done.returncode == -signal.SIGKILL
    (left,) = os.listdir(tmp_path)
    assert left.startswith(".big.json.tinytui-") and left.endswith(".tmp")
    save(load_default(), tmp_path / "other.json")  # any write in that folder
    assert os.listdir(tmp_path) == ["other.json"]


def test_train_names_and_removes_a_killed_runs_temporary_before_it_starts(tmp_path):
    stale = tmp_path / f".trained.json.tinytui-{dead_pid()}-0123456789ab.tmp"
    stale.write_bytes(b"\0" * 1000)
    done = train(tmp_path, "-o", "trained.json", "--steps", "3")
    assert done.returncode == 0, done.stderr
    assert (
        done.stderr.splitlines()[0]
        == f"removed {stale.name}, a temporary file left by a tinytui that was stopped"
    )
    assert sorted(os.listdir(tmp_path)) == ["corpus.txt", "trained.json"]


def test_train_stopped_by_sigterm_leaves_nothing(tmp_path):
    (tmp_path / "corpus.txt").write_text(CORPUS)
    command = [sys.executable, "-m", "tinytui", "train", "corpus.txt", "-o", "t.json", "--steps", "100000"]
    child = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    child.stderr.readline()  # "training 172 parameters …", said as the 100,000 steps begin
    child.send_signal(signal.SIGTERM)
    out, err = child.communicate(timeout=60)
    assert "wrote" not in out
    assert child.returncode == 128 + signal.SIGTERM
    assert err.splitlines()[-1] == "tinytui: stopped by SIGTERM (no temporary file left behind)"
    assert os.listdir(tmp_path) == ["corpus.txt"]


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("y" * 5000 + ".json", "the name is 5005 bytes; this file system allows 255"),
        ("é" * 126 + ".json", "the name is 257 bytes; this file system allows 255"),  # 131 characters
    ],
    ids=["5005 characters", "257 bytes"],
)
def test_train_refuses_a_name_too_long_before_training(tmp_path, name, why):
    done = train(tmp_path, "-o", name, "--steps", "3")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("tinytui: error: -o: cannot write ") and done.stderr.endswith(f"({why})\n")
    assert "training" not in done.stderr  # said before a step was taken
    assert os.listdir(tmp_path) == ["corpus.txt"]


def unwritable_folder(tmp_path):
    """A folder no file can be created in: read-only by its mode, or (root ignores modes) /sys."""
    if os.geteuid() != 0:
        folder = tmp_path / "read-only"
        folder.mkdir(mode=0o555)
        return folder
    for folder in ("/sys", "/proc/sys"):
        try:
            check_can_create(os.path.join(folder, "probe.json"))
        except OSError:
            return folder
    pytest.skip("no folder here refuses root a new file")


def test_train_refuses_a_folder_it_cannot_write_before_training(tmp_path):
    folder = unwritable_folder(tmp_path)
    done = train(tmp_path, "-o", os.path.join(folder, "t.json"), "--steps", "3")
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"tinytui: error: -o: cannot write '{folder}/t.json' (")
    assert "training" not in done.stderr
    assert not os.path.exists(os.path.join(folder, "t.json"))


def full(fd):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_failed_write_removes_its_temporary(tmp_path, monkeypatch):
    monkeypatch.setattr(safe_io.os, "fsync", full)
    with pytest.raises(OSError, match="No space left"), atomic_writer(tmp_path / "x.json") as f:
        f.write("{}")
    assert os.listdir(tmp_path) == []


async def test_a_screenshot_on_a_full_disk_leaves_no_empty_svg(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = make_app()
    said = []
    app.notify = lambda message, **kw: said.append(message)
    async with app.run_test(size=(120, 40)) as pilot:
        monkeypatch.setattr(safe_io.os, "fsync", full)
        await press(pilot, "w")
        await pilot.pause()
    assert "Could not write tinytui-step01-tokens-to-ids.svg: No space left on device" in said
    assert os.listdir(tmp_path) == []  # a 0-byte .svg before
