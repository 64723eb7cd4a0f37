"""The import contract (.ci/import_contract.py) holds for the project and catches what it must."""

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / ".ci" / "import_contract.py"


def _contract():
    spec = importlib.util.spec_from_file_location("import_contract", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name in ("tinytui/__init__.py", "model/__init__.py", "themes/__init__.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def test_the_project_keeps_its_contract():
    done = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout
    assert "no cycles" in done.stdout


def test_a_cycle_hidden_by_a_lazy_import_is_caught(tmp_path):
    root = _tree(
        tmp_path,
        {
            "tinytui/session/history.py": "from tinytui.session.session import Session\n",
            "tinytui/session/session.py": "def undo():\n    from tinytui.session.history import History\n",
        },
    )
    cycle = "import cycle: tinytui.session.history ↔ tinytui.session.session"
    assert _contract().problems(root) == [cycle]
    done = subprocess.run([sys.executable, str(SCRIPT), str(root)], capture_output=True, text=True)
    assert done.returncode == 1 and cycle in done.stdout


def test_the_layers_are_checked(tmp_path):
    root = _tree(
        tmp_path,
        {
            "model/trace.py": "import rich\nfrom tinytui.session.session import Session\n",
            "tinytui/session/session.py": "from textual.app import App\n",
            "tinytui/report/step_report.py": "from model import trace\n",
        },
    )
    found = _contract().problems(root)
    assert "tinytui.model.trace imports rich, which tinytui.model must not import" in found
    assert "tinytui.model.trace imports tinytui.session.session, which tinytui.model must not import" in found
    assert "tinytui.session.session imports textual.app, which tinytui.session must not import" in found
    assert "tinytui.report.step_report imports model: the installed name is tinytui.model" in found


def test_relative_imports_resolve_like_python(tmp_path):
    root = _tree(
        tmp_path,
        {
            "tinytui/widgets/__init__.py": "",
            "tinytui/widgets/a.py": "from . import b\nfrom ..session import x\n",
            "tinytui/widgets/b.py": "from .a import y\n",
            "tinytui/session.py": "",
        },
    )
    edges = _contract().graph(root)
    assert edges["tinytui.widgets.a"] == {"tinytui.widgets.b", "tinytui.session"}
    assert _contract().problems(root) == ["import cycle: tinytui.widgets.a ↔ tinytui.widgets.b"]
