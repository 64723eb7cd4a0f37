"""The model files that ship with tinytui (model/presets/*.json), by name, and `--model NAME`.

A preset's name is its file's stem: chapter17 (the chapter's hand-set weights, the default),
chapter17-trained, woodland-2x16 …; model/presets/README.md says how the trained ones were made.
"""

from __future__ import annotations

import os
from pathlib import Path

from tinytui.model import checks
from tinytui.model.io.field_checks import ModelFileError

DEFAULT = "chapter17"


def folder() -> Path:
    return Path(__file__).parent.parent / "presets"  # the package's own folder: no importlib.resources


def presets() -> dict[str, Path]:
    """Name -> file of every preset: the default first, then the others by name."""
    found = {p.stem: p for p in sorted(folder().glob("*.json")) if p.is_file()}
    return {name: found[name] for name in sorted(found, key=lambda n: (n != DEFAULT, n))}


def resolve(model: str | Path) -> Path:
    """What `--model` names: a path that exists (anything there, even a dangling link) wins; otherwise a
    preset's name gives its file. A bare word that is neither (no folder, no .json) is ModelFileError
    listing the presets; any other path is returned as it is, so loading it says what is missing."""
    text = str(model)
    try:
        if os.path.lexists(text):
            return Path(model)
    except ValueError:  # a NUL byte: not a file, and no preset has such a name
        return Path(model)
    known = presets()
    if text in known:
        return known[text]
    if text and "/" not in text and os.sep not in text and not text.endswith(".json"):
        raise ModelFileError(
            f"{checks.shown(text)}: no such file, and no preset of that name "
            f"(presets: {', '.join(known)}; `tinytui presets` lists them)"
        )
    return Path(model)
