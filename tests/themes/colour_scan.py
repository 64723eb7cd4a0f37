"""Finds colours written into app code instead of taken from theme variables.

Looks at Python string literals (styles, Rich markup, inline CSS), TCSS files and colour constructor calls.
Theme variables ($tt-positive, [$tt-edited]), `auto` and `transparent` are fine.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from rich.color import ANSI_COLOR_NAMES
from rich.style import Style
from textual._color_constants import COLOR_NAME_TO_RGB

ALLOWED = {"transparent", "auto", "default", "none", "initial", "inherit"}
COLOUR_NAMES = (set(ANSI_COLOR_NAMES) | set(COLOR_NAME_TO_RGB)) - ALLOWED
STYLE_WORDS = set(Style.STYLE_ATTRIBUTES) | {"not", "on", "none", "default", "link"}

HEX_LONG = re.compile(r"(?<![\w#&])#(?:[0-9a-fA-F]{8}|[0-9a-fA-F]{6})\b")
HEX_TOKEN = re.compile(r"^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$")
FUNCTIONAL = re.compile(r"\b(?:rgba?|hsla?|hsv|color)\(\s*\d")
MARKUP_TAG = re.compile(r"\[(?!/)([^\[\]=]+)\]")
CSS_DECL = re.compile(r"([a-z][a-z0-9-]*)\s*:\s*([^;{}\n]+)")
COLOUR_PROPS = ("color", "background", "border", "outline", "tint", "scrollbar")
COLOUR_CALLS = {"Color", "ColorTriplet", "from_rgb", "from_hsl", "from_hsv", "from_triplet", "from_ansi"}


def _is_colour_token(token: str) -> bool:
    return token in COLOUR_NAMES or bool(HEX_TOKEN.match(token))


def _style_string(text: str) -> bool:
    """A whole string that is a style ("red", "bold green", "white on #003366")."""
    tokens = text.split()
    if not tokens or (len(tokens) == 1 and tokens[0].startswith("#")):
        return False  # a lone "#abc" is an id selector; six-digit hex is caught on its own
    styled = all(t in STYLE_WORDS or _is_colour_token(t) for t in tokens)
    return styled and any(_is_colour_token(t) for t in tokens)


def string_problems(text: str) -> list[str]:
    """What is wrong with one string literal, as short reasons (empty if nothing)."""
    found = []
    if HEX_LONG.search(text):
        found.append(f"hex colour {HEX_LONG.search(text).group()}")
    if FUNCTIONAL.search(text):
        found.append(f"colour function {FUNCTIONAL.search(text).group()}…")
    if _style_string(text):
        found.append(f"style string {text!r}")
    for tag in MARKUP_TAG.findall(text):
        if any(_is_colour_token(t) for t in tag.split()):
            found.append(f"markup colour [{tag}]")
    found += css_problems(text)
    return found


def css_problems(css: str) -> list[str]:
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    found = []
    for prop, value in CSS_DECL.findall(css):
        if not any(p in prop for p in COLOUR_PROPS):
            continue
        for token in value.replace(",", " ").split():
            if _is_colour_token(token) or FUNCTIONAL.match(token):
                found.append(f"CSS {prop}: {value.strip()}")
                break
    return found


def _call_name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _constant(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp):
        return _constant(node.operand)
    return isinstance(node, ast.Constant)


def python_problems(source: str) -> list[tuple[int, str]]:
    tree = ast.parse(source)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found += [(node.lineno, why) for why in string_problems(node.value)]
        elif isinstance(node, ast.Call):
            name = _call_name(node.func)
            args = [*node.args, *(k.value for k in node.keywords)]
            if name in COLOUR_CALLS and args and all(_constant(a) for a in args):
                found.append((node.lineno, f"colour literal {name}(…)"))
            owner = node.func.value if isinstance(node.func, ast.Attribute) else None
            if name == "parse" and _call_name(owner) == "Color" and args and _constant(args[0]):
                found.append((node.lineno, "colour literal Color.parse(…)"))
    return sorted(set(found))


def file_problems(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".tcss":
        return [f"{path}: {why}" for why in css_problems(text)]
    return [f"{path}:{line}: {why}" for line, why in python_problems(text)]


def app_files(root: Path) -> list[Path]:
    """The Textual app's modules: app.py, every module under widgets/ and screens/, and its TCSS."""
    pkg = root / "tinytui"
    files = [pkg / "app.py"] if (pkg / "app.py").exists() else []
    for sub in ("widgets", "screens"):
        files += sorted((pkg / sub).rglob("*.py")) if (pkg / sub).is_dir() else []
    files += sorted(pkg.rglob("*.tcss"))
    return files
