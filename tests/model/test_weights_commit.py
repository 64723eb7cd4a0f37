"""Saving over a two-file model (JSON + safetensors, as ctrl+s does): the JSON's rename is the one moment
the model on disk changes. Stopped at any rename, the model loads as exactly the old weights or exactly
the new ones, never the new weights under the old JSON; old weights go only once the new JSON names
others, and a file written before weights were named by content still loads."""

from __future__ import annotations

import hashlib
import json
import os

import pytest

from tests.random_models import random_params
from tinytui.model.io import safe_io
from tinytui.model.io.document import ModelFile
from tinytui.model.io.model_file import half_left, load, save, weights_name, weights_written_for
from tinytui.model.io.weights_file import weights_bytes


class Killed(BaseException):
    """Stands for SIGKILL: a BaseException, so no `except Exception` on the way out can tidy up."""


def model(seed: int) -> ModelFile:
    return ModelFile("m", "", random_params(seed), ("t1", "t2"), "t3")


OLD, NEW = model(0), model(1)


def same(a: ModelFile, b: ModelFile) -> bool:
    return all(a.params[n].tobytes() == b.params[n].tobytes() for n in a.params)


def weights_named(path) -> str:
    return json.loads(path.read_text())["weights_file"]


def visible(folder) -> list[str]:
    return sorted(name for name in os.listdir(folder) if not name.startswith("."))


def stop_at_rename(monkeypatch, number: int) -> None:
    """The number-th os.replace of the next save raises Killed before it renames anything."""
    real, calls = os.replace, []

    def replace(src, dst):
        calls.append(dst)
        if len(calls) == number:
            raise Killed
        real(src, dst)

    monkeypatch.setattr(safe_io.os, "replace", replace)


def stop_at_unlink(monkeypatch) -> None:
    """The save stops when it first removes a landed file (after both renames): every other unlink runs."""
    real = os.unlink

    def unlink(path, *args, **kwargs):
        if str(path).endswith(".safetensors"):
            raise Killed
        real(path, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", unlink)


def test_the_weights_file_is_named_by_its_content(tmp_path):
    path = tmp_path / "m.json"
    save(OLD, path, binary=True)
    name = weights_named(path)
    digest = hashlib.sha256((tmp_path / name).read_bytes()).hexdigest()
    assert name == f"m.{digest[:12]}.safetensors" == weights_name(path, (tmp_path / name).read_bytes())
    assert visible(tmp_path) == sorted(["m.json", name]) and sorted(os.listdir(tmp_path)) == visible(tmp_path)
    assert same(load(path), OLD)


def test_a_stop_between_the_two_renames_leaves_the_old_model_whole(tmp_path, monkeypatch):
    path = tmp_path / "m.json"
    save(OLD, path, binary=True)
    old_weights = weights_named(path)
    stop_at_rename(monkeypatch, 2)  # the new weights landed; the JSON did not
    with pytest.raises(Killed):
        save(NEW, path, binary=True)
    monkeypatch.undo()
    assert weights_named(path) == old_weights and same(load(path), OLD)  # before: NEW's weights, OLD's JSON
    left = visible(tmp_path)
    assert len(left) == 3 and old_weights in left  # the new weights wait, unnamed, for the next save
    save(NEW, path, binary=True)
    assert same(load(path), NEW) and visible(tmp_path) == sorted(["m.json", weights_named(path)])


def test_a_stop_before_the_first_rename_changes_nothing(tmp_path, monkeypatch):
    path = tmp_path / "m.json"
    save(OLD, path, binary=True)
    before = {name: (tmp_path / name).read_bytes() for name in os.listdir(tmp_path)}
    stop_at_rename(monkeypatch, 1)
    with pytest.raises(Killed):
        save(NEW, path, binary=True)
    monkeypatch.undo()
    assert {name: (tmp_path / name).read_bytes() for name in visible(tmp_path)} == before
    assert same(load(path), OLD)


def test_a_stop_after_the_json_landed_leaves_the_new_model_and_the_next_save_removes_the_old(
    tmp_path, monkeypatch
):
    path = tmp_path / "m.json"
    save(OLD, path, binary=True)
    old_weights = weights_named(path)
    stop_at_unlink(monkeypatch)
    with pytest.raises(Killed):
        save(NEW, path, binary=True)
    monkeypatch.undo()
    assert same(load(path), NEW) and old_weights in visible(tmp_path)
    save(NEW, path, binary=True)  # same weights, same name: the file stays, the old one goes
    assert visible(tmp_path) == sorted(["m.json", weights_named(path)]) and same(load(path), NEW)


def test_a_file_written_before_content_names_loads_and_is_replaced_whole(tmp_path):
    path = tmp_path / "m.json"
    save(OLD, path, binary=True)
    os.rename(tmp_path / weights_named(path), tmp_path / "m.safetensors")  # as saves used to name it
    doc = json.loads(path.read_text())
    doc["weights_file"] = "m.safetensors"
    path.write_text(json.dumps(doc))
    assert same(load(path), OLD)
    assert weights_written_for(path) == [tmp_path / "m.safetensors"]
    save(NEW, path, binary=True)
    assert not (tmp_path / "m.safetensors").exists() and same(load(path), NEW)


def test_inline_weights_saved_over_a_pair_remove_its_weights_file(tmp_path):
    path = tmp_path / "m.json"
    save(OLD, path, binary=True)
    save(NEW, path, binary=False)
    assert os.listdir(tmp_path) == ["m.json"] and same(load(path), NEW)


def test_only_weights_written_for_this_model_are_removed(tmp_path):
    path = tmp_path / "m.json"
    save(OLD, tmp_path / "other.json", binary=True)  # written for other.json, then named like m's
    os.rename(tmp_path / weights_named(tmp_path / "other.json"), tmp_path / "m.0123456789ab.safetensors")
    (tmp_path / "m.safetensors").write_bytes(b"the user's own file")
    (tmp_path / "m.abcdefabcdef.safetensors").symlink_to(tmp_path / "m.safetensors")
    save(OLD, path, binary=True)
    save(NEW, path, binary=True)
    assert visible(tmp_path) == sorted(
        [
            "m.json",
            weights_named(path),
            "m.0123456789ab.safetensors",
            "m.safetensors",
            "m.abcdefabcdef.safetensors",
            "other.json",
        ]
    )
    assert (tmp_path / "m.safetensors").read_bytes() == b"the user's own file"
    assert half_left(path) == []  # its JSON is there


def test_a_link_at_the_weights_name_is_refused_not_followed(tmp_path):
    path = tmp_path / "m.json"
    target = tmp_path / "elsewhere"
    target.write_bytes(b"keep")
    name = weights_name(path, weights_bytes(OLD.params, path.name))
    (tmp_path / name).symlink_to(target)
    with pytest.raises(OSError, match="symbolic link"):
        save(OLD, path, binary=True)
    assert target.read_bytes() == b"keep" and not path.exists()
    assert sorted(os.listdir(tmp_path)) == sorted(["elsewhere", name])


def test_weights_a_copy_of_the_json_names_are_kept(tmp_path):
    path = tmp_path / "m.json"
    save(OLD, path, binary=True)
    (tmp_path / "backup.json").write_bytes(path.read_bytes())  # cp m.json backup.json
    save(NEW, path, binary=True)
    assert same(load(tmp_path / "backup.json"), OLD) and same(load(path), NEW)
    new_weights = tmp_path / weights_named(path)
    os.unlink(path)  # m.json gone: its weights are a half, the backup's are not
    assert half_left(path) == [new_weights]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="flock is POSIX's")
@pytest.mark.parametrize("shared", [True, False], ids=["a load reading", "another save"])
def test_a_save_waits_while_the_folder_is_read_or_saved(tmp_path, shared):
    """Two saves of one model, or a save and a load, never interleave: the save's cleanup would remove
    the weights the other's JSON names (two processes saving 300 times each, a third loading, failed 1,558
    of 3,000 loads with "cannot read the weights file" before the folder was locked; none since)."""
    import threading

    path = tmp_path / "m.json"
    save(OLD, path, binary=True)
    with safe_io.folder_held(tmp_path, shared=shared):
        saving = threading.Thread(target=save, args=(NEW, path, True))
        saving.start()
        saving.join(timeout=0.5)
        assert saving.is_alive()  # held at the lock
        if shared:  # another load reads beside this one: the model on disk is still the old one
            assert same(load(path), OLD)
    saving.join(timeout=30)
    assert not saving.is_alive() and same(load(path), NEW)
    assert visible(tmp_path) == sorted(["m.json", weights_named(path)])
