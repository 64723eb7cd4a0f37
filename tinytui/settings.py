"""Settings remembered between runs: a small JSON file in the user's config directory.

Reading never fails: a missing file means defaults, and an unreadable or malformed one is ignored with a
notice for the user. Writing is atomic (a temporary file renamed over the old one), so a crash mid-write
cannot leave half a file behind, and never follows a symbolic link (tinytui.model.io.safe_io).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tinytui.model.io.safe_io import atomic_writer

FORMAT = "tinytui-settings/1"
FILENAME = "settings.json"


@dataclass(frozen=True)
class Settings:
    theme: str | None = None
    # action id -> keys, as the user wrote it (tinytui.actions.check_keymap says which entries can be
    # used); kept as written so saving the theme never drops the user's entries
    keymap: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict:
        doc: dict = {"format": FORMAT}
        if self.theme is not None:
            doc["theme"] = self.theme
        if self.keymap:
            doc["keymap"] = self.keymap
        return doc


def config_dir() -> Path:
    """$XDG_CONFIG_HOME/tinytui, else ~/.config/tinytui (%APPDATA%\\tinytui on Windows)."""
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    # The XDG spec says a relative path here is invalid and must be ignored.
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "tinytui"
    if os.name == "nt" and os.environ.get("APPDATA"):
        return Path(os.environ["APPDATA"]) / "tinytui"
    return Path.home() / ".config" / "tinytui"


def settings_path() -> Path:
    return config_dir() / FILENAME


def _parse(doc: object) -> Settings:
    if not isinstance(doc, dict):
        raise ValueError("not a JSON object")
    if doc.get("format", FORMAT) != FORMAT:
        raise ValueError(f"format {doc.get('format')!r}, expected {FORMAT!r}")
    theme = doc.get("theme")
    if theme is not None and (not isinstance(theme, str) or not theme.strip()):
        raise ValueError("'theme' must be a theme name")
    keymap = doc.get("keymap", {})
    if not isinstance(keymap, dict):
        raise ValueError("'keymap' must be an object of action id → keys")
    return Settings(theme=theme, keymap=keymap)


def load_settings(path: Path | None = None) -> tuple[Settings, str | None]:
    """The remembered settings and, if the file had to be ignored, a one-line notice saying why."""
    path = path or settings_path()
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Settings(), None
    except (OSError, UnicodeDecodeError) as exc:
        return Settings(), f"Ignored the settings file {path}: cannot read it ({exc.__class__.__name__})."
    try:
        return _parse(json.loads(raw)), None
    except ValueError as exc:  # json.JSONDecodeError is a ValueError too
        return Settings(), f"Ignored the settings file {path}: {exc}."


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Write the settings atomically; returns the path. Raises OSError if the directory is not writable."""
    path = path or settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_writer(path) as f:  # never through a link planted at settings.json
        json.dump(settings.to_json(), f, indent=1)
        f.write("\n")
    return path


def remember(**changes) -> str | None:
    """Update some settings on disk, keeping the rest; a notice if that failed, else None."""
    current, _ = load_settings()
    try:
        save_settings(replace(current, **changes))
    except OSError as exc:
        return f"Could not remember the setting in {settings_path()}: {exc.strerror or exc}."
    return None


class ThemeMemory:
    """Remembers the app's theme when the user changes it, and not merely because it was applied.

    Start it with the theme the app opened with; the NO_COLOR monochrome is therefore never saved
    unless the user picks it.
    """

    def __init__(self, initial: str) -> None:
        self.last = initial

    def changed(self, name: str) -> str | None:
        if name == self.last:
            return None
        self.last = name
        return remember(theme=name)
