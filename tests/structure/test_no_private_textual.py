"""tinytui uses Textual's public API only (issue 26): no `textual._*` module, no underscore attribute of a
Textual object, no name-mangled field, no class swap and no patch of Textual's classes. Any Textual
release may change its private parts; reaching into them is how the app broke before.

Read from the source (ast) and from Textual's own classes: what Textual keeps private is every `_name`
(not `__dunder__`) its classes define or set on `self`."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import textwrap
from functools import cache
from pathlib import Path

import pytest
import textual

ROOT = Path(__file__).resolve().parents[2] / "tinytui"
SOURCES = sorted(p for p in ROOT.rglob("*.py") if "__pycache__" not in p.parts)
PRIVATE = re.compile(r"^_[A-Za-z0-9]\w*$")  # _name, not __dunder__
MANGLED = re.compile(r"^_[A-Z]\w*__\w+$")
# Known and not yet replaced, each with its reason (the list only shrinks):
KNOWN: set[str] = set()  # uses of Textual's private API, each with its reason: none


@pytest.fixture(scope="module")
def trees() -> tuple[tuple[Path, ast.Module], ...]:
    """tinytui's modules parsed once for the checks below (which only read the trees)."""
    return tuple((p, ast.parse(p.read_text(encoding="utf-8"))) for p in SOURCES)


@cache
def textual_private() -> frozenset[str]:
    """Every private name Textual's classes define (attributes, methods) or set on self."""
    names: set[str] = set()
    root = Path(textual.__file__).parent
    for path in root.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        names |= set(re.findall(r"self\.(_[A-Za-z0-9]\w*)\s*(?::[^=\n]*)?=", text))
        names |= set(re.findall(r"^\s+def (_[A-Za-z0-9]\w*)\(", text, re.M))
        names |= set(re.findall(r"^\s+(_[A-Za-z0-9]\w*)\s*[:=]", text, re.M))
    return frozenset(n for n in names if PRIVATE.match(n))


def _textual_names(tree: ast.Module) -> set[str]:
    """The names a module imports from textual (classes it could patch)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "textual":
            out |= {a.asname or a.name for a in node.names}
    return out


def test_no_private_textual_module_is_imported(trees):
    found = []
    for path, tree in trees:
        for node in ast.walk(tree):
            modules: list[str] = []
            if isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                modules = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            for module in modules:
                parts = module.split(".")
                if parts[0] == "textual" and any(p.startswith("_") for p in parts[1:]):
                    found.append(f"{path.relative_to(ROOT.parent)}:{node.lineno} {module}")
    assert found == []


def test_no_class_swap_no_mangled_name_no_patch(trees):
    found = []
    for path, tree in trees:
        imported = _textual_names(tree)
        where = path.relative_to(ROOT.parent)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and (node.attr == "__class__" or MANGLED.match(node.attr)):
                if node.attr == "__class__" and not isinstance(node.ctx, ast.Store):
                    continue
                found.append(f"{where}:{node.lineno} .{node.attr}")
            targets = node.targets if isinstance(node, ast.Assign) else []
            for target in targets:
                patched = isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                if patched and target.value.id in imported:
                    found.append(f"{where}:{node.lineno} {target.value.id}.{target.attr} = …")
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "setattr" and node.args:
                first = node.args[0]
                if isinstance(first, ast.Name) and first.id in imported:
                    found.append(f"{where}:{node.lineno} setattr({first.id}, …)")
    assert found == []


def _own_private_names(trees) -> set[str]:
    """The private names tinytui itself defines: its functions, class attributes and self._x."""
    own: set[str] = set()
    for _, tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                own.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                own.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                own.add(node.id)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                own.add(node.target.id)
    return own


def test_no_underscore_attribute_of_a_textual_object_is_read(trees):
    """An attribute `x._name` that only Textual defines is Textual's private state."""
    own = _own_private_names(trees)
    private = textual_private()
    found = []
    for path, tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in private and node.attr not in own:
                found.append(f"{path.relative_to(ROOT.parent)}:{node.lineno} .{node.attr}")
    assert found == []


def test_no_test_reads_textuals_private_state(trees):
    """Tests check what is on screen through Textual's public API too (a private attribute read in a
    test breaks with a Textual release as surely as one in the app)."""
    tests = sorted(p for p in ROOT.parent.joinpath("tests").rglob("*.py") if "__pycache__" not in p.parts)
    test_trees = [(p, ast.parse(p.read_text(encoding="utf-8"))) for p in tests]
    own = _own_private_names(trees) | _own_private_names(test_trees)
    private = textual_private()
    found = [
        f"{path.relative_to(ROOT.parent)}:{node.lineno} .{node.attr}"
        for path, tree in test_trees
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr in private and node.attr not in own
    ]
    assert found == []


def _tinytui_classes():
    import tinytui.tui  # the only package that may import Textual (the import contract)

    for info in pkgutil.walk_packages(tinytui.tui.__path__, "tinytui.tui."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__:
                yield cls


def _private_of(cls: type) -> set[str]:
    """What a Textual class keeps private: its class attributes and what its methods set on self."""
    return {n for n in vars(cls) if PRIVATE.match(n)} | _set_on_self(cls)


def _written_in(cls: type) -> set[str]:
    """The names a class's own source defines at its top level (methods, class attributes)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    except (OSError, TypeError):
        return set()
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    out = set()
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            out.add(node.name)
        elif isinstance(node, ast.Assign):
            out |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
    return out


def _set_on_self(cls: type) -> set[str]:
    try:
        source = inspect.getsource(cls)
    except (OSError, TypeError):
        return set()
    return set(re.findall(r"self\.(_[A-Za-z0-9]\w*)\s*(?::[^=\n]*)?=", source))


def test_no_textual_private_method_or_field_is_overridden():
    """A widget of ours defines no `_name` that a Textual class it derives from uses for itself (an
    override of a private hook, or a field of ours written over Textual's)."""
    found = []
    private_of: dict[type, set[str]] = {}  # Widget, DOMNode…: each base's source read once, not per subclass
    for cls in _tinytui_classes():
        textual_bases = [b for b in cls.__mro__ if b.__module__.split(".")[0] == "textual"]
        if not textual_bases:
            continue
        for base in textual_bases:
            if base not in private_of:
                private_of[base] = _private_of(base)
        theirs = set().union(*(private_of[b] for b in textual_bases))
        ours = {n for n in _written_in(cls) if PRIVATE.match(n)} | _set_on_self(cls)
        for name in sorted(ours & theirs):
            found.append(f"{cls.__module__}.{cls.__qualname__}.{name}")
    assert set(found) <= KNOWN, sorted(set(found) - KNOWN)


def test_the_check_finds_private_use():
    """The checks above see what they look for (so they cannot pass by seeing nothing)."""
    assert {"_compositor", "_handle_exception", "_on_idle", "_component_styles"} <= textual_private()
    tree = ast.parse("from textual._compositor import Compositor\nCompositor._get_renders = f\n")
    assert _textual_names(tree) == {"Compositor"}
