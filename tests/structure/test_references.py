"""Every module, file and source file a comment or docstring names exists: a dotted `tinytui.…` name is a
module (or a name inside one), a path like `lesson/texts/wording.py` is a file of the checkout, and a bare
`name.py` is the name of one of its files. A module moved or renamed leaves no reader following a dead end."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {
    "tinytui": "tinytui",
    "model": "tinytui.model",
    "lesson": "tinytui.lesson",
    "themes": "tinytui.themes",
}
SCANNED = tuple(PACKAGES)  # the source; tests and benchmarks name made-up modules on purpose
# Named on purpose though not ours: picoGPT's file the forward pass is read beside; a checkpoint's file.
ELSEWHERE = frozenset({"gpt2.py", "tinytui.json"})

DOTTED = re.compile(r"\btinytui(?:\.[A-Za-z_]\w*)+")
PATH = re.compile(
    r"(?<![\w./-])((?:model|lesson|tinytui|themes|tests|benchmarks|scripts)/[\w/]+\.(?:py|tcss|json|md))"
)
BARE = re.compile(r"(?<![\w/.-])([a-z_]\w*\.py)\b")


def modules() -> set[str]:
    found = set()
    for folder, package in PACKAGES.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            found.add(".".join((package, *(parts[:-1] if parts[-1] == "__init__" else parts))))
    return found


def sources():
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".py", ".tcss") and "__pycache__" not in path.parts:
                yield path


def dead_ends() -> list[str]:
    known = modules()
    files = {
        p.name for f in (*SCANNED, "tests", "benchmarks", "scripts", ".ci") for p in (ROOT / f).rglob("*.py")
    }
    out = []
    for path in sources():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            where = f"{path.relative_to(ROOT)}:{n}"
            for m in DOTTED.finditer(line):
                parts = m.group(0).split(".")
                is_module = any(".".join(parts[:k]) in known for k in range(len(parts), 1, -1))
                if not is_module and m.group(0) not in ELSEWHERE:
                    out.append(f"{where}: {m.group(0)}")
            out += [f"{where}: {m.group(1)}" for m in PATH.finditer(line) if not (ROOT / m.group(1)).exists()]
            out += [
                f"{where}: {m.group(1)}" for m in BARE.finditer(line) if m.group(1) not in files | ELSEWHERE
            ]
    return out


def test_every_module_and_file_named_in_the_source_exists():
    assert dead_ends() == []


def test_the_scan_finds_a_dead_end():
    """The scan itself: a comment naming a module that does not exist is found."""
    assert DOTTED.search("see tinytui.recorder.Recorder") and BARE.search("as backward_parts.py does")
    assert PATH.search("(model/tape.py)").group(1) == "model/tape.py"
    assert "tinytui.tui.actions" in modules() and "tinytui.recorder" not in modules()
