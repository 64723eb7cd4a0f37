"""Every check of a path the user types (save the model, record, screenshot) and every file name the app
suggests, in one place and without Textual.

A check returns (path, "") to go ahead, (path, question) to go ahead on a second Enter, or (None, the
reason) to refuse. It never raises: an OSError from the file system (a name too long, a folder that
cannot be read) or a ValueError (a NUL byte) becomes a reason the user can act on. The checks of a file
to write take busy, the files the app is writing now (the recording's transcript and .jsonl): writing
over one of them, even when the user would agree to overwrite, is refused (being_written).
"""

from __future__ import annotations

import errno
import functools
import os
import re
import unicodedata
from collections.abc import Callable, Iterable
from pathlib import Path

from tinytui.lesson.stages import STAGE_BY_NUMBER
from tinytui.model.io.model_file import default_model_path
from tinytui.model.io.safe_io import write_new_text

Check = tuple[Path | None, str]
MAX_STEM = 64  # a suggested file name stays short and far below any file system's limit


def problem_text(exc: BaseException) -> str:
    """What went wrong, for a user who typed a path."""
    if isinstance(exc, OSError) and exc.errno == errno.ENAMETOOLONG:
        return "That name is too long for the file system; choose a shorter one"
    if isinstance(exc, OSError) and exc.errno in (errno.EACCES, errno.EPERM):
        return "Permission denied: tinytui may not look there; choose another folder"
    if isinstance(exc, ValueError):  # os functions refuse a NUL byte this way
        return "A file name cannot contain a NUL character"
    if isinstance(exc, RuntimeError):  # Path.expanduser() without a home folder
        return "Cannot tell which home folder ~ means here; type the full path"
    return f"Cannot use that path: {getattr(exc, 'strerror', None) or exc}"


def never_raises(check: Callable[..., Check]) -> Callable[..., Check]:
    """Any OSError, ValueError or RuntimeError from the file system becomes (None, the reason)."""

    @functools.wraps(check)
    def checked(*args, **kwargs) -> Check:
        try:
            return check(*args, **kwargs)
        except (OSError, ValueError, RuntimeError) as exc:
            return None, problem_text(exc)

    return checked


def _lexists(path: Path) -> bool:
    """Anything at path, a dangling symbolic link included (Path.exists() follows links)."""
    return os.path.lexists(path)


def safe_stem(text: str | None, fallback: str = "model") -> str:
    """A file-name stem from a model's name: "../victim/x" -> "victim-x". Path separators, control
    characters and anything but letters, digits, '.', '_' and '-' become '-'; no leading dots (hidden
    files, '..'); at most MAX_STEM characters; fallback when nothing is left."""
    text = unicodedata.normalize("NFKC", text or "")
    text = "".join(c if (c.isalnum() or c in "._-") and c.isprintable() else "-" for c in text)
    text = re.sub(r"-{2,}", "-", text).strip("-.")[:MAX_STEM].strip("-.")
    return text or fallback


def screenshot_name(step: int) -> str:
    """tinytui-step08-causal-mask-and-softmax.svg"""
    slug = re.sub(r"[^a-z0-9]+", "-", STAGE_BY_NUMBER[step].title.lower()).strip("-")
    return f"tinytui-step{step:02d}-{slug}.svg"


def free_path(folder: Path, name: str) -> Path:
    """folder/name, or name-2, name-3 … when it is taken: the quick screenshot never overwrites, and a
    dangling symbolic link counts as taken, so nothing is ever written through one."""
    path = folder / name
    n = 2
    while _lexists(path):
        path = folder / f"{Path(name).stem}-{n}{Path(name).suffix}"
        n += 1
    return path


def write_free(folder: Path, name: str, text: str) -> Path:
    """text in a new file: folder/name, or name-2, name-3 … (free_path), the first free when it is
    written. The name is taken as the file lands (write_new_text: it fails if anything is there), so a
    file that appears between looking and writing, such as a second screenshot asked for at once, is
    never replaced; the next name is tried instead."""
    for _ in range(MAX_TRIES):
        path = free_path(folder, name)
        try:
            write_new_text(path, text)
        except FileExistsError:
            continue
        return path
    raise FileExistsError(errno.EEXIST, f"every name like {name} was taken while writing", str(folder / name))


MAX_TRIES = 100  # names taken by others while this one writes: far more than two quick presses


def unprintable(text: str) -> str:
    """Why a typed name is refused for a control or invisible formatting character (ESC, BEL, a
    right-to-left override…), which would reach file names, notices and the terminal; else ""."""
    bad = next((c for c in text if not c.isprintable() and c != "\0"), None)  # NUL: problem_text says
    if bad is None:
        return ""
    return f"A file name cannot contain {ascii(bad)[1:-1]} (a control or invisible character); type it again"


def being_written(path: Path, busy: Iterable[Path]) -> str:
    """Why path may not be written: it is one of busy, files the app is writing now (a recording's
    transcript or .jsonl, which would lose the rest of the recording); else "". The same file by
    identity (os.path.samefile: ./x.jsonl, its full path, a hard link), or by resolved path where one
    of them is not there. OSError and ValueError pass through (never_raises)."""
    for file in busy:
        if _same_file(path, file):
            return f"{path} is the recording being written; choose another name"
    return ""


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except FileNotFoundError:  # either is not there (yet, or removed since): where their names point
        return a.resolve() == Path(b).resolve()


def _named(text: str, suffix: str) -> Path:
    """Where a typed name points: ~ expanded, suffix added when it has none; a folder as typed ("~",
    "..", "/", "notes/") stays the folder, never a file beside it (home.json)."""
    path = Path(text.strip()).expanduser()
    return path if path.is_dir() or path.suffix else path.with_suffix(suffix)


def new_file(text: str, suffix: str, example: str, busy: Iterable[Path] = ()) -> Check:
    """A typed file name to write (suffix added when it has none), or why it cannot be one: empty, a
    control character, a folder, no such folder, a symbolic link, a file being written (busy)."""
    if not text.strip():
        return None, f"Type a file name, e.g. {example}"
    if unprintable(text):
        return None, unprintable(text)
    path = _named(text, suffix)
    if path.is_dir():
        return None, f"{path} is a folder; add a file name such as {path / example}"
    if not path.resolve().parent.is_dir():
        return None, f"There is no folder {path.resolve().parent}"
    if os.path.islink(path):
        return None, f"{path.name} is a symbolic link; tinytui does not write through links"
    if taken := being_written(path, busy):
        return None, taken
    return path, ""


@never_raises
def check_record_path(text: str) -> Check:
    """A transcript path for PathScreen: lesson.txt, with lesson.jsonl beside it, neither there yet (a
    recording never replaces a file, so never the model loaded or a preset either)."""
    from tinytui.recording.recorder import target_problem  # the transcript's modules: once asked

    path, why = new_file(text, ".txt", "lesson.txt")
    if path is None:
        return None, why
    problem = target_problem(path)
    if problem:
        return None, problem
    return path, ""


@never_raises
def check_screenshot_path(text: str, busy: Iterable[Path] = ()) -> Check:
    path, why = new_file(text, ".svg", "screen.svg", busy)
    if path is None:
        return None, why
    if path.suffix.lower() != ".svg":
        return None, f"A screenshot is an SVG file: end the name with .svg (e.g. {path.stem}.svg)"
    if _lexists(path):
        return path, f"{path.name} exists. Press Enter again to overwrite it, or change the name."
    return path, ""


def target_path(text: str) -> Path:
    """Where a typed save name points (_named: .json added when there is no suffix)."""
    return _named(text, ".json")


@never_raises
def check_save_path(text: str, confirmed: Path | None, busy: Iterable[Path] = ()) -> Check:
    """(path, "") when the model file may be written now, else (None, the reason or the question).

    confirmed is an existing file the user already agreed to overwrite (by pressing Enter twice); busy,
    files being written now, which are never overwritten.
    """
    if not text.strip():
        return None, "Type a file name, e.g. edited.json"
    if unprintable(text):
        return None, unprintable(text)
    path = target_path(text)
    resolved = path.resolve()
    preset = default_model_path().resolve()
    if resolved == preset or resolved.parent == preset.parent:
        return (
            None,
            "That is the built-in preset's folder: the preset is never overwritten. Choose another path.",
        )
    if os.path.islink(path):  # resolve() followed it; the file itself would be written through it
        return None, f"{path.name} is a symbolic link; tinytui does not write through links"
    if resolved.is_dir():
        return None, f"{path} is a folder; add a file name"
    if not resolved.parent.is_dir():
        return None, f"There is no folder {resolved.parent}"
    if taken := being_written(path, busy):
        return None, taken
    if _lexists(resolved) and resolved != confirmed:
        return None, f"{path} exists. Press Enter again to overwrite it, or change the name."
    return path, ""


def existing_file(text: str) -> Path | None:
    """The resolved regular file a typed save name points at, if there is one (never raises): what a
    second Enter would overwrite."""
    try:
        resolved = target_path(text).resolve() if text.strip() else None
        return resolved if resolved is not None and resolved.is_file() else None
    except (OSError, ValueError, RuntimeError):
        return None
