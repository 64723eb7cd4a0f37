"""The wheel installs one import package, tinytui; a stray model.py in the working folder is harmless."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_wheel_installs_only_the_tinytui_package(tmp_path):
    out = tmp_path / "wheel"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(out),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        cwd=tmp_path,
    )
    (wheel,) = out.glob("tinytui-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names}
    assert {t for t in top if not t.endswith(".dist-info")} == {"tinytui"}
    # the mapped folders, their data and the app's stylesheet are inside it
    needed = ("model/trace.py", "model/presets/chapter17.json", "themes/scale.py", "tui/app.tcss")
    assert all(f"tinytui/{n}" in names for n in needed)
    # every module of the source tree is in the wheel (a subpackage missing from pyproject is not)
    for folder, inside in (
        ("tinytui", "tinytui"),
        ("model", "tinytui/model"),
        ("lesson", "tinytui/lesson"),
        ("themes", "tinytui/themes"),
    ):
        for path in (ROOT / folder).rglob("*.py"):
            assert f"{inside}/{path.relative_to(ROOT / folder).as_posix()}" in names, path


def test_python_m_tinytui_works_beside_a_model_py(tmp_path):
    (tmp_path / "model.py").write_text("raise ImportError('the user’s own model.py was imported')\n")
    (tmp_path / "themes.py").write_text("raise ImportError('the user’s own themes.py was imported')\n")
    done = subprocess.run(
        [sys.executable, "-m", "tinytui", "print", "--step", "16", "--plain"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "172" in done.stdout


def test_the_version_lives_in_one_place():
    import tinytui

    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in pyproject and 'attr = "tinytui.__version__"' in pyproject
    assert tinytui.__version__.count(".") == 2
