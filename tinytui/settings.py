"""Settings remembered between runs: a small JSON file in the user's config directory.

Reading never fails, and is as careful as reading a model file: a missing file means defaults; one that
is not a regular file (a FIFO, a link to /dev/zero), larger than MAX_BYTES, nested deeper than
MAX_DEPTH, not UTF-8 or not JSON, or whose fields have the wrong types is ignored with a one-line notice
for the user, and then never overwritten (remember() says so instead). Keys it does not know are named
in a notice and kept as they are when the file is written again. Writing is atomic (a temporary file
renamed over the old one), so a crash mid-write cannot leave half a file behind, and never follows a
symbolic link (tinytui.model.io.safe_io).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tinytui.model import checks
from tinytui.model.io.safe_io import TextFileError, atomic_writer, read_utf8

FORMAT = "tinytui-settings/1"
FILENAME = "settings.json"
MAX_BYTES = 64 * 1024  # a keymap of every action fits in a few KB
MAX_DEPTH = 3  # {"keymap": {"id": "keys"}}: an object, an object, a string
MAX_THEME_CHARS = 100
KNOWN = ("format", "theme", "keymap")


@dataclass(frozen=True)
class Settings:
    """What tinytui remembers for the user between runs: the theme, the keys they bound to actions, and
    any keys of the file this version does not know."""

    theme: str | None = None
    # action id -> keys, as the user wrote it (tinytui.tui.actions.check_keymap says which entries can be
    # used); kept as written so saving the theme never drops the user's entries
    keymap: dict[str, Any] = field(default_factory=dict)
    # keys this version does not know (a newer version's, say), written back as they were
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict:
        doc: dict = {"format": FORMAT}
        if self.theme is not None:
            doc["theme"] = self.theme
        if self.keymap:
            doc["keymap"] = self.keymap
        return doc | self.extra


class SettingsFileError(ValueError):
    """The settings file cannot be used; str() is why, in a few words."""


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


def _depth(x: object) -> int:
    """How deeply lists and objects nest in x (a string or number is 0), without recursion."""
    deepest, todo = 0, [(x, 0)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth + 1)
            if deepest > MAX_DEPTH:
                break
            todo.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


def _parse(doc: object) -> Settings:
    if not isinstance(doc, dict):
        raise SettingsFileError("not a JSON object")
    if _depth(doc) > MAX_DEPTH:
        raise SettingsFileError("lists or objects nested too deeply")
    if doc.get("format", FORMAT) != FORMAT:
        raise SettingsFileError(f"format {checks.shown(str(doc.get('format')))}, expected {FORMAT!r}")
    theme = doc.get("theme")
    if theme is not None:
        try:
            checks.plain_text(theme, "theme", MAX_THEME_CHARS)
        except checks.Invalid as exc:
            raise SettingsFileError(f"'theme' must be a theme name ({exc})") from None
        if not theme.strip():
            raise SettingsFileError("'theme' must be a theme name")
    keymap = doc.get("keymap", {})
    if not isinstance(keymap, dict) or not all(isinstance(v, str) for v in keymap.values()):
        raise SettingsFileError('\'keymap\' must be an object of action id → keys, e.g. {"next-step": "j"}')
    extra = {k: v for k, v in doc.items() if k not in KNOWN}
    return Settings(theme=theme, keymap=keymap, extra=extra)


def _read(path: Path) -> Settings:
    """The settings in the file at path; FileNotFoundError if there is none, SettingsFileError if it
    cannot be used."""
    try:
        text = read_utf8(path, MAX_BYTES)  # a regular file only: a FIFO or device is never waited on
    except TextFileError as exc:
        if exc.missing or exc.kind == "NotADirectoryError":  # no file there (its folder is a file)
            raise FileNotFoundError(path) from None
        reason = exc.reason if exc.byte is not None else f"cannot read it ({exc.reason})"
        raise SettingsFileError(reason) from None
    try:
        doc = json.loads(text, parse_constant=_no_constant, parse_int=_whole_number, parse_float=_finite)
    except json.JSONDecodeError as exc:
        raise SettingsFileError(f"not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise SettingsFileError("lists or objects nested too deeply") from None
    return _parse(doc)


MAX_DIGITS = 20  # no setting is a number; a longer one is refused before int() reads thousands of digits


def _no_constant(name: str) -> Any:
    raise SettingsFileError(f"{name} is not a value a settings file holds")


def _whole_number(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_DIGITS:
        raise SettingsFileError(f"a number of {digits} digits is longer than any setting holds")
    return int(text)


def _finite(text: str) -> float:
    """A number that stays one when written back (1e999 reads as infinity, which JSON cannot hold)."""
    value = float(text)
    if not math.isfinite(value):
        raise SettingsFileError(f"{checks.shown(text, 30)} is too large a number for a settings file")
    return value


def load_settings(path: Path | None = None) -> tuple[Settings, str | None]:
    """The remembered settings and a one-line notice for the user: why the file was ignored, or which
    of its keys this version does not know (None when there is nothing to say)."""
    path = path or settings_path()
    try:
        settings = _read(path)
    except FileNotFoundError:
        return Settings(), None
    except SettingsFileError as exc:
        return Settings(), f"Ignored the settings file {path}: {exc}."
    if settings.extra:
        names = ", ".join(checks.shown(str(k), 30) for k in list(settings.extra)[:5])
        more = f" and {len(settings.extra) - 5} more" if len(settings.extra) > 5 else ""
        known = ", ".join(KNOWN)
        return (
            settings,
            f"The settings file {path} has keys tinytui does not know: {names}{more} (it reads {known}).",
        )
    return settings, None


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Write the settings atomically; returns the path. Raises OSError if the directory is not writable."""
    path = path or settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_writer(path) as f:  # never through a link planted at settings.json
        json.dump(settings.to_json(), f, indent=1, allow_nan=False)
        f.write("\n")
    return path


def remember(**changes) -> str | None:
    """Update some settings on disk, keeping the rest; a notice if that failed, else None. A file that
    had to be ignored is left as it is (it may be the user's own, with a typo): never overwritten."""
    path = settings_path()
    try:
        current = _read(path)
    except FileNotFoundError:
        current = Settings()
    except SettingsFileError as exc:
        return f"Did not remember the setting: the settings file {path} is left as it is ({exc})."
    try:
        save_settings(replace(current, **changes))
    except OSError as exc:
        return f"Could not remember the setting in {path}: {exc.strerror or exc}."
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
