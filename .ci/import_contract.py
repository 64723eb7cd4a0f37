"""The import contract, checked in CI before the tests: no cycles, and each layer imports only what it may.

Reads the source with ast (every import counts: top level, inside functions, under TYPE_CHECKING),
so a cycle hidden by a lazy import is still a cycle. Folders map to import names as the wheel installs
them: model/ is tinytui.model, lesson/ is tinytui.lesson, themes/ is tinytui.themes.

    python .ci/import_contract.py [ROOT]     exit 0 when the contract holds, else 1 with one line a problem
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGES = {"tinytui": "tinytui", "model": "tinytui.model", "lesson": "tinytui.lesson",
            "themes": "tinytui.themes"}  # fmt: skip

# (layer, what it must not import), by package: the model is pure numpy and knows nothing of the app;
# the session, recording, report and present layers have no Textual; the widgets draw what present
# describes and compute nothing (no model, lesson or session module: no words or numbers of their own).
APP = ("tinytui.cli", "tinytui.session", "tinytui.recording", "tinytui.report", "tinytui.present",
       "tinytui.tui", "tinytui.settings", "tinytui.themes")  # fmt: skip
FORBIDDEN = (
    ("tinytui.model", ("textual", "rich", "tinytui.lesson", *APP)),  # the model reads no lesson
    ("tinytui.lesson", ("textual", "rich", *APP)),
    ("tinytui.session", ("textual", "rich", "tinytui.cli", "tinytui.recording", "tinytui.report",
                         "tinytui.present", "tinytui.tui", "tinytui.themes")),
    ("tinytui.recording", ("textual", "tinytui.cli", "tinytui.present", "tinytui.tui", "tinytui.themes")),
    ("tinytui.report", ("textual", "tinytui.cli", "tinytui.session", "tinytui.recording", "tinytui.present",
                        "tinytui.tui")),
    ("tinytui.present", ("textual", "tinytui.cli", "tinytui.recording", "tinytui.tui")),
    ("tinytui.settings", ("textual", "tinytui.tui", "tinytui.cli")),
    ("tinytui.tui", ("tinytui.cli",)),
    # the widgets lay out and style what present describes: their words and numbers come from there
    ("tinytui.tui.widgets", ("tinytui.model", "tinytui.lesson", "tinytui.session", "tinytui.recording")),
    # the gallery and the parameter browser lay out and ink what present computed: no numbers of their own
    *((drawn, ("numpy", "tinytui.model", "tinytui.lesson", "tinytui.session"))
      for drawn in ("tinytui.tui.widgets.gallery", "tinytui.tui.screens.gallery_screen",
                    "tinytui.tui.screens.param_browser")),
)  # fmt: skip


def modules(root: Path) -> dict[str, Path]:
    """Import name -> file, for every module of the three packages under root."""
    found: dict[str, Path] = {}
    for folder, package in PACKAGES.items():
        for path in sorted((root / folder).rglob("*.py")):
            parts = path.relative_to(root / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join((package, *parts))] = path
    return found


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules this one imports: `from a import b` is a.b when that is a module, else a."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(name, is_package, node.module, node.level)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                out.add(sub if sub in known else base)
    return out


def _absolute(name: str, is_package: bool, module: str | None, level: int) -> str:
    if level == 0:
        return module or ""
    parts = name.split(".")
    keep = len(parts) - level + (1 if is_package else 0)
    return ".".join([*parts[:keep], *([module] if module else [])])


def graph(root: Path) -> dict[str, set[str]]:
    mods = modules(root)
    known = set(mods)
    return {name: imports_of(name, path, known) for name, path in mods.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (or a module importing itself)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm; the graph has ~100 nodes, recursion is fine
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in edges:
                continue  # outside the project
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in edges.get(v, ()):
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def problems(root: Path) -> list[str]:
    edges = graph(root)
    out = [f"import cycle: {' ↔ '.join(c)}" for c in cycles(edges)]
    said: dict[tuple[str, str], str] = {}  # (module, import) -> the narrowest layer that bans it: one line
    for layer, banned in FORBIDDEN:
        for module, imported in sorted(edges.items()):
            if not _within(module, layer):
                continue
            for target in sorted(imported):
                narrower = len(layer) > len(said.get((module, target), ""))
                if narrower and any(_within(target, b) for b in banned):
                    said[(module, target)] = layer
    out += [f"{mod} imports {target}, which {layer} must not import" for (mod, target), layer in said.items()]
    for module, imported in sorted(edges.items()):
        for target in sorted(imported):
            if target.split(".")[0] in ("model", "lesson", "themes"):
                out.append(f"{module} imports {target}: the installed name is tinytui.{target}")
    return out


def main(argv: list[str]) -> int:
    root = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parents[1]
    found = problems(root)
    for line in found:
        print(f"import contract: {line}")
    if not found:
        print(f"import contract: {len(graph(root))} modules, no cycles, every layer within its imports")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
