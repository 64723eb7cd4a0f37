"""Stages own their behaviour: no module but the stage table asks which step it is at.

What a stage shows, says and formats lives with its entry in lesson/stages.py (its panels, its facts
function, its formula-as-run function). A branch like `if stage.number == 15` anywhere else is that
knowledge leaking out again, so this scans the source (ast) for a stage or step number compared with a
literal number: `stage.number == 15`, `n <= 4` after `n = stage.number`, `view.step in (2, 3, 4)`,
`match stage.number: case 16`.
"""

from __future__ import annotations

import ast
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("tinytui", "model", "lesson")
# The stage table and the modules of its per-stage functions: the one place numbers may be named.
STAGE_TABLE = (
    "lesson/stages.py",
    "lesson/texts/formulas.py",
    "lesson/texts/stage_facts.py",
    "lesson/panels.py",
)

NUMBER_ATTRS = frozenset({"number", "step"})  # stage.number, view.step, session.step
NUMBER_NAMES = frozenset({"step", "number", "stage", "step_number", "stage_number"})


def _names_number(node: ast.AST) -> bool:
    """The expression is a stage or step number (`stage.number`, `view.step + 1`), not just uses one."""
    if isinstance(node, ast.BinOp):
        return _names_number(node.left) or _names_number(node.right)
    return _is_number(node, set())


FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _in_scope(scope: ast.AST):
    """The nodes of one scope: a function's body (or the module's), not the functions defined in it."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, FUNCTIONS):
            todo.extend(ast.iter_child_nodes(node))


def _aliases(scope: ast.AST) -> set[str]:
    """Names bound to a stage or step number in this scope: `n = stage.number`, `n, pre = stage.number, …`."""
    out: set[str] = set()
    for node in _in_scope(scope):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if isinstance(target, ast.Name) and _names_number(node.value):
                out.add(target.id)
            elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                for t, v in zip(target.elts, node.value.elts):
                    if isinstance(t, ast.Name) and _names_number(v):
                        out.add(t.id)
    return out


def _is_number(node: ast.AST, aliases: set[str]) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr in NUMBER_ATTRS
    return isinstance(node, ast.Name) and (node.id in NUMBER_NAMES or node.id in aliases)


def _is_literal(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return bool(node.elts) and all(_is_literal(e) for e in node.elts)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
        return all(_is_literal(a) for a in node.args)
    return False


def _literal_pattern(p: ast.pattern) -> bool:
    if isinstance(p, ast.MatchValue):
        return _is_literal(p.value)
    if isinstance(p, ast.MatchOr):
        return any(_literal_pattern(q) for q in p.patterns)
    return False


def stage_number_branches(source: str, filename: str = "<source>") -> list[str]:
    """'file:line: code' for every stage or step number compared with (or matched against) a literal."""
    tree = ast.parse(source, filename=filename)
    scopes = [tree, *(n for n in ast.walk(tree) if isinstance(n, FUNCTIONS))]
    found: set[tuple[int, int, str]] = set()
    for scope in scopes:
        aliases = _aliases(scope)
        for node in _in_scope(scope):
            if isinstance(node, ast.Compare):
                operands = [node.left, *node.comparators]
                if any(
                    (_is_number(a, aliases) and _is_literal(b)) or (_is_number(b, aliases) and _is_literal(a))
                    for a, b in pairwise(operands)
                ):
                    found.add((node.lineno, node.col_offset, ast.unparse(node)))
            elif (
                isinstance(node, ast.Match)
                and _is_number(node.subject, aliases)
                and any(_literal_pattern(case.pattern) for case in node.cases)
            ):
                found.add((node.lineno, node.col_offset, f"match {ast.unparse(node.subject)}"))
    return [f"{filename}:{line}: {code}" for line, _, code in sorted(found)]


def scanned_files() -> list[Path]:
    exempt = {ROOT / p for p in STAGE_TABLE}
    return [p for folder in SCANNED for p in sorted((ROOT / folder).rglob("*.py")) if p not in exempt]


def test_no_module_outside_the_stage_table_branches_on_a_stage_number():
    found = []
    for path in scanned_files():
        found += stage_number_branches(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert not found, "give the stage a panel, a facts or a formula function instead:\n" + "\n".join(found)


def test_the_scan_reads_the_project_and_the_exempt_modules_exist():
    files = scanned_files()
    assert any(p.name == "cells.py" for p in files) and any(p.name == "step_report.py" for p in files)
    assert any(p.name == "facts.py" for p in files)  # the entry point is scanned; only the table is exempt
    for name in STAGE_TABLE:
        assert (ROOT / name).is_file(), name


PLANTED = """
def output_rows(view, stage, other):
    n = stage.number
    k, pre = stage.number, True
    if n == 5:
        pass
    if stage.number == 15:
        pass
    if n <= 4:
        pass
    if view.step in (2, 3, 4):
        pass
    if 16 == k:
        pass
    if step != 1 and number in range(5, 11):
        pass
    match stage.number:
        case 14 | 15:
            pass
    match n:
        case "x":
            pass
"""

INNOCENT = """
def action_reset(self, s, stage, other):
    n = sum(len(v) for v in s.edited_cells().values())
    if n != 1 and len(stage.reads) == 0:
        pass
    if stage.number > other.number and stage.number == LAST:
        pass
    at = steps.index(stage.number) + 1
    if at == 1 or self.count == 2:
        pass
"""


def test_the_scan_catches_a_planted_branch():
    found = stage_number_branches(PLANTED, "planted.py")
    codes = [f.split(": ", 1)[1] for f in found]
    assert codes == [
        "n == 5",
        "stage.number == 15",
        "n <= 4",
        "view.step in (2, 3, 4)",
        "16 == k",
        "step != 1",
        "number in range(5, 11)",
        "match stage.number",
    ]


def test_the_scan_leaves_other_comparisons_alone():
    assert stage_number_branches(INNOCENT) == []
