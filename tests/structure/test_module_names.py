"""The tree says where a thing lives: no two modules share a file name, and no test module imports
another test module (shared helpers live in helper modules and conftest fixtures)."""

import ast
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ("tinytui", "model", "lesson", "themes")


def module_names() -> Counter:
    return Counter(
        p.name for folder in SOURCE for p in (ROOT / folder).rglob("*.py") if p.name != "__init__.py"
    )


def test_no_two_modules_share_a_file_name():
    names = module_names()
    assert sum(names.values()) > 100  # the scan reads the whole tree
    assert [name for name, n in names.items() if n > 1] == []


def test_no_test_module_imports_another_test_module():
    found = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            imported = node.module if isinstance(node, ast.ImportFrom) else None
            # the project's own test modules (a library's, such as aiohttp.test_utils, are not tests)
            ours = imported is not None and (node.level > 0 or imported.split(".")[0] == "tests")
            if ours and imported.rsplit(".", 1)[-1].startswith("test_"):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {imported}")
    assert found == [], "\n".join(found)
