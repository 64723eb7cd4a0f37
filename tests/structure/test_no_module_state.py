"""No module of tinytui/present or the widgets keeps mutable state at module level: what is kept between
keys (a cache of specs, shapes, drawn lines, styles) belongs to the app or widget that made it, so it
dies with it and no test finds what another left. Constants (tuples, frozensets, strings, numbers, a
read-only mapping) are fine."""

import ast
import importlib
import inspect
import pkgutil
import types
import weakref
from collections import deque

from textual.cache import FIFOCache, LRUCache

import tinytui.present
import tinytui.tui.widgets
from tinytui.present.grid_spec import KeptBySpec, KeptSpecs

MUTABLE = (
    dict,  # OrderedDict and defaultdict too
    list,
    set,
    bytearray,
    deque,
    weakref.WeakKeyDictionary,
    weakref.WeakValueDictionary,
    weakref.WeakSet,
    LRUCache,
    FIFOCache,
    KeptBySpec,
    KeptSpecs,
)


def modules(package: types.ModuleType) -> list[types.ModuleType]:
    found = [package]
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        found.append(importlib.import_module(info.name))
    return found


def defined_names(module: types.ModuleType) -> set[str]:
    """The names a module's own code binds at module level (not those it imports)."""
    tree = ast.parse(inspect.getsource(module))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def mutable_globals(module: types.ModuleType) -> list[str]:
    """The module-level names a module defines that are bound to a mutable container."""
    own = vars(module)
    return sorted(
        f"{module.__name__}.{name}" for name in defined_names(module) if isinstance(own.get(name), MUTABLE)
    )


def test_present_and_the_widgets_keep_nothing_at_module_level():
    packages = (tinytui.present, tinytui.tui.widgets)
    found = [name for package in packages for module in modules(package) for name in mutable_globals(module)]
    assert found == []


def test_a_cache_at_module_level_is_found_and_a_constant_is_not(tmp_path, monkeypatch):
    (tmp_path / "kept_example.py").write_text(
        "from types import MappingProxyType\n"
        "from textual.cache import LRUCache\n"
        "from tinytui.present.grid_spec import GLYPHS, KeptSpecs\n"
        "KEPT = {}\n"
        "_LINES: LRUCache = LRUCache(8)\n"
        "_SEEN = set()\n"
        "SPECS = KeptSpecs()\n"
        "NAMES = ('a', 'b')\n"
        "ONLY = frozenset({'x'})\n"
        "WIDTH = 4\n"
        "MARK = MappingProxyType({'a': 'b'})\n"
        "def made_inside():\n"
        "    local = {}\n"
        "    return local\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("kept_example")
    assert mutable_globals(module) == [
        "kept_example.KEPT",
        "kept_example.SPECS",
        "kept_example._LINES",
        "kept_example._SEEN",
    ]
