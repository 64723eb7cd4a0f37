"""Files from and for the user, safely: reading only regular files of bounded size, and writing
without following symbolic links (atomic replacement, and fresh files to append to).

An atomic write goes to a hidden temporary beside its target, named for this process
(.<name>.tinytui-<pid>-<random>.tmp), removed if the write fails. A run killed mid-write (SIGKILL, a
power cut) cannot remove its own, so every write, and `tinytui train -o` before it starts, first
removes the temporaries in its folder whose process is gone (sweep_stale): ours by name and owner,
never a link, never one of a process still running.

A planted link (say lesson.txt -> ~/.bashrc, or a dangling edited.json -> /some/file) must never make
tinytui write somewhere the user did not name. Every refusal is an OSError whose strerror is a sentence
for the user, so callers that already report OSError (exc.strerror) need nothing new.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

# 0 where the platform lacks the flag (Windows): there the checks before opening still apply
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # so opening a FIFO never waits for a reader
_BINARY = getattr(os, "O_BINARY", 0)


def refuse(path: Path, code: int, why: str) -> OSError:
    return OSError(code, why, str(path))


def check_writable_target(path: str | Path) -> None:
    """OSError unless path is absent or a regular file (not a link, folder, FIFO or device)."""
    path = Path(path)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise refuse(
            path, errno.ELOOP, f"{path.name} is a symbolic link; tinytui does not write through links"
        )
    if not stat.S_ISREG(st.st_mode):
        raise refuse(path, errno.EEXIST, f"{path.name} exists and is not a regular file")


def read_regular_file(path: str | Path, max_bytes: int) -> bytes:
    """The bytes of a regular file of at most max_bytes; OSError (strerror a sentence) for anything else.

    O_NONBLOCK: opening a FIFO returns at once (and is then refused) instead of waiting for a writer.
    """
    path = Path(path)
    fd = os.open(path, os.O_RDONLY | _NONBLOCK | _CLOEXEC | _BINARY)
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "a FIFO, device or socket"
        raise refuse(path, errno.EINVAL, f"it is {kind}, not a regular file")
    with os.fdopen(fd, "rb") as f:
        limit = f"{max_bytes // 2**20} MB" if max_bytes >= 2**20 else f"{max_bytes // 1024} KB"
        too_big = refuse(path, errno.EFBIG, f"it is larger than {limit}, the most tinytui reads")
        if st.st_size > max_bytes:
            raise too_big
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:  # it grew while being read
        raise too_big
    return data


class TextFileError(ValueError):
    """A text file that cannot be read (.reason: why, in words; .kind: the OSError's class name, .missing:
    it is not there) or is not UTF-8 (.byte: where the first bad byte is). Each reader says it in its own
    words (a model file, a tokenizer file, a command's --vocab), so nothing here is a message."""

    def __init__(self, reason: str, kind: str = "", missing: bool = False, byte: int | None = None):
        super().__init__(reason)
        self.reason, self.kind, self.missing, self.byte = reason, kind, missing, byte


def read_utf8(path: str | Path, max_bytes: int) -> str:
    """A regular file of at most max_bytes (read_regular_file) as UTF-8 text; TextFileError otherwise."""
    try:
        data = read_regular_file(path, max_bytes)
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
        why = getattr(exc, "strerror", None) or str(exc)
        raise TextFileError(why, exc.__class__.__name__, isinstance(exc, FileNotFoundError)) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TextFileError(f"not UTF-8 text at byte {exc.start}", byte=exc.start) from None


def _create_exclusive(path: Path, mode: int) -> int:
    """A new file at path, opened for writing; fails if anything (even a dangling link) is there."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC | _BINARY
    return os.open(path, flags, mode)


@contextmanager
def atomic_writer(path: str | Path, encoding: str = "utf-8") -> Iterator[TextIO]:
    """with atomic_writer(p) as f: f.write(...) — p gets all of it or (on any error) none of it.

    The text goes to a new randomly named file in the same folder (created with O_EXCL|O_NOFOLLOW, so
    it cannot be a planted link), is fsynced, then renamed over p. p itself must be absent or a
    regular file: a link there is refused, not replaced, so the user sees what was planted.
    """
    with _atomic(path, "w", encoding) as f:
        yield f


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """path gets all of data or (on any error) none of it, as atomic_writer does for text."""
    with _atomic(path, "wb") as f:
        f.write(data)


def write_new_text(path: str | Path, text: str, encoding: str = "utf-8") -> None:
    """path gets all of text or nothing, and only if nothing is there: the text is written and synced to
    a new hidden file beside it, then linked to path (a link fails with FileExistsError if anything is
    there, even a dangling symbolic link; _take_name says what happens where there are no links), and
    the hidden name removed."""
    path = Path(path)
    tmp, fd = _fresh_beside(path, lambda p: _create_exclusive(p, 0o644))
    try:
        with os.fdopen(fd, "w", encoding=encoding, newline="\n") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        _take_name(tmp, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    _sync_folder(path.parent)


def stage(path: str | Path, data: bytes) -> Path:
    """data in a new hidden temporary beside path, named for this process and synced: the first half of
    an atomic write, for files that must land together (land moves them into place)."""
    path = Path(path)
    check_writable_target(path)
    tmp, fd = _fresh_beside(path, lambda p: _create_exclusive(p, 0o644))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp


def land(moves: list[tuple[Path, Path]], new: bool = False) -> None:
    """Move staged temporaries onto their targets, in order, one rename each (microseconds apart); the
    temporaries not moved are removed if anything fails. Each target must be absent or a regular file.

    new: the last target (the file the user named) must still be absent: it is taken with a hard link,
    which fails (FileExistsError) if anything is there by then, instead of renamed over; the targets
    this call made before it are removed again, so a refusal leaves the folder as it was."""
    made: list[Path] = []
    try:
        for i, (tmp, target) in enumerate(moves):
            check_writable_target(target)
            if new and i == len(moves) - 1:
                _take_name(tmp, target)
                continue
            if not os.path.lexists(target):
                made.append(target)
            os.replace(tmp, target)
    except BaseException as exc:
        for tmp, _ in moves:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        if isinstance(exc, FileExistsError):
            for target in made:
                with contextlib.suppress(OSError):
                    os.unlink(target)
        raise
    for folder in {target.parent for _, target in moves}:
        _sync_folder(folder)


def _take_name(tmp: Path, target: Path) -> None:
    """tmp moved to target only if nothing is there: a hard link (FileExistsError if anything is, even a
    dangling link), then tmp removed. Where the file system has no hard links (FAT, some network
    mounts), a rename after looking, the best it allows."""
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS):
            raise
        if os.path.lexists(target):
            raise FileExistsError(errno.EEXIST, f"{target.name} exists", str(target)) from None
        os.replace(tmp, target)
        return
    with contextlib.suppress(OSError):
        os.unlink(tmp)


@contextmanager
def folder_held(folder: str | Path, shared: bool = False) -> Iterator[None]:
    """An advisory lock on a folder for the time of the block (flock on the folder itself, so no lock
    file is left behind): exclusive for a save, which writes a model's JSON and its weights and removes
    the old weights, shared for a load, which reads the JSON and then the weights it names. Two saves of
    the same model then never remove each other's weights, and a load never reads a JSON whose weights
    a save has just removed. Where flock is missing (Windows) or the folder cannot be opened, nothing is
    held and the block runs as before."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC)
    except (OSError, ValueError):
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the folder's descriptor lets the lock go


def fresh_folder_beside(path: str | Path) -> Path:
    """A new, empty, randomly named hidden folder beside path (never one that was there, nor a link)."""
    return _fresh_beside(Path(path), lambda tmp: os.mkdir(tmp, 0o755))[0]


# compiled by re when first used (and kept in its cache): not needed to start the app (~0.5 M instructions)
_TEMPORARY = r"(?s)\..*\.tinytui-(\d+)-[0-9a-f]{12}\.tmp"


def _fresh_beside(path: Path, create):
    """(tmp, create(tmp)) for a new hidden name beside path, named for this process; create must fail
    with FileExistsError if anything (even a dangling link) is there, and then another name is drawn.
    A short prefix: the temporary name must fit the file system's limit too. The folder's stale
    temporaries are removed first (sweep_stale)."""
    import secrets  # a write's: not loaded to start the app

    sweep_stale(path.parent)
    while True:
        tmp = path.with_name(f".{path.name[:40]}.tinytui-{os.getpid()}-{secrets.token_hex(6)}.tmp")
        try:
            return tmp, create(tmp)
        except FileExistsError:
            continue


def sweep_stale(folder: str | Path) -> list[Path]:
    """Remove the temporaries a killed tinytui left in folder (a file, or a checkpoint's hidden folder):
    named as _fresh_beside names them, owned by this user, not a link, and their process gone. The
    paths removed; nothing is raised (a folder that cannot be listed has nothing to sweep)."""
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except (OSError, ValueError):
        return removed
    for entry in entries:
        match = re.fullmatch(_TEMPORARY, entry.name)
        if match is None or _running(int(match.group(1))):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
            if hasattr(os, "getuid") and st.st_uid != os.getuid():
                continue
            if stat.S_ISREG(st.st_mode):
                os.unlink(entry.path)
            elif stat.S_ISDIR(st.st_mode):
                import shutil  # a stale folder's removal only: not loaded to start

                shutil.rmtree(entry.path)  # never follows a link inside
            else:
                continue
        except OSError:
            continue
        removed.append(Path(entry.path))
    return removed


def _running(pid: int) -> bool:
    """Whether a process of that id exists (one of another user counts: never sweep what may be live)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True
    return True


def check_can_create(path: str | Path) -> None:
    """OSError (strerror a sentence) unless a file named path could be created now: its name fits the
    file system, and its folder takes a new file (tried: a temporary created and removed at once, so a
    read-only folder, a full disk's inodes or a read-only mount are all found before long work starts)."""
    path = Path(path)
    folder = path.parent
    limit = 255
    with contextlib.suppress(OSError, ValueError, AttributeError):
        limit = os.pathconf(folder, "PC_NAME_MAX")
    size = len(os.fsencode(path.name))
    if size > limit:
        raise refuse(path, errno.ENAMETOOLONG, f"the name is {size} bytes; this file system allows {limit}")
    tmp, fd = _fresh_beside(path, lambda p: _create_exclusive(p, 0o644))
    os.close(fd)
    os.unlink(tmp)


@contextmanager
def _atomic(path: str | Path, mode: str, encoding: str | None = None):
    path = Path(path)
    check_writable_target(path)
    tmp, fd = _fresh_beside(path, lambda p: _create_exclusive(p, 0o644))
    try:
        newline = None if "b" in mode else "\n"
        with os.fdopen(fd, mode, encoding=encoding, newline=newline) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        check_writable_target(path)  # again, just before the rename: the window is a few microseconds
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_folder(path.parent)


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable where the platform allows opening a folder."""
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def open_for_append(path: str | Path, fresh: bool, encoding: str = "utf-8") -> TextIO:
    """A text file to append to, never through a symbolic link (even a dangling one).

    fresh: start the file empty. An existing regular file there (one the user agreed to overwrite) is
    removed first and a new one created exclusively; a link, folder, FIFO or device is refused.
    Otherwise an existing regular file is appended to, or a new one created.
    """
    path = Path(path)
    check_writable_target(path)
    if fresh:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        fd = _create_exclusive(path, 0o644)
    else:
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW | _CLOEXEC | _NONBLOCK | _BINARY
        fd = os.open(path, flags, 0o644)
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # swapped in after the check above
            os.close(fd)
            raise refuse(path, errno.EEXIST, f"{path.name} is not a regular file")
    return os.fdopen(fd, "a", encoding=encoding, newline="\n")
