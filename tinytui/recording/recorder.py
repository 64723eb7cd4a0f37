"""Record a Session as it happens: a plain-text transcript for people, a JSON-lines log for replay.

`lesson.txt` gets the transcript (tinytui.recording.transcript makes its text). `lesson.jsonl` (beside it,
same stem) is what `tinytui replay` reads; tinytui.recording.event_log says what each of its lines holds.
When the recording stops, the transcript ends with an appendix holding every .jsonl record on "#| " lines
(tinytui.recording.embedded_log), out of the reader's way, so lesson.txt alone replays too.

Each event is appended to both files, flushed and fsync'd before the listener returns, so a killed
terminal loses nothing already shown. Everything is also kept in memory: when a path cannot be written
the recorder says so at once, keeps going in memory, and set_path() writes all of it to a better one.
A write that fails part-way (a full disk, a file size limit) is cut back off both files, so they end
on the last event both hold whole; files that never held a whole header are removed again.
A recording never replaces a file: both files are created new, and target_problem() says in one line
why a path cannot be used (a file there, the model being loaded, the installed presets).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from tinytui.model.io.presets import folder as presets_folder
from tinytui.recording.state_digest import Digests
from tinytui.session.state import Event, Mode, State

# The log's and the transcript's modules (and the report's tables they print) are imported once a
# recording starts: the app and the record dialogs check a path with target_problem long before.
if TYPE_CHECKING:
    from tinytui.session.session import Session


def default_clock() -> str:
    return datetime.now().strftime("%Y-%m-%d %H:%M")


def events_path(path: str | Path) -> Path:
    """The machine-readable log beside a transcript: lesson.txt -> lesson.jsonl."""
    return Path(path).with_suffix(".jsonl")


def target_problem(path: str | Path, loading: str | Path | None = None) -> str:
    """Why a recording may not start at path (the transcript; its events go beside it), in one line, or
    "" when it may: a recording never replaces a file, so neither file may exist, and it is never the
    model being loaded (loading, when the session came from a file) nor in the installed presets'
    folder. The command line, the app's path dialogs and set_path() all ask here. OSError and
    ValueError (a NUL byte) from the file system pass through."""
    path = Path(path)
    if not str(path).strip() or not path.name:
        return "give a file name for the transcript, e.g. lesson.txt"
    events = events_path(path)
    if path.suffix == ".jsonl":
        return (
            f"{path}: name the transcript instead, e.g. {path.with_suffix('.txt').name}; "
            f"the events are written beside it as {path.name}"
        )
    both = (path, events)
    model = Path(loading).resolve() if loading is not None else None
    presets = presets_folder().resolve()
    for p in both:
        resolved = p.resolve()
        if resolved == model:
            return f"{p} is the model being loaded; a recording never replaces a file"
        if resolved.parent == presets:
            return f"{p} is in tinytui's installed presets; a recording never writes there"
    if path.is_dir():
        return f"{path} is a folder; name a file in it, such as {path / 'lesson.txt'}"
    link = next((p for p in both if os.path.islink(p)), None)
    if link is not None:
        return f"{link.name} is a symbolic link; tinytui does not write through links"
    taken = [p.name for p in both if os.path.lexists(p)]
    if taken:
        verb = "exists" if len(taken) == 1 else "exist"
        return f"{' and '.join(taken)} {verb}; a recording never replaces a file, so choose another name"
    return ""


# ---- the recorder -------------------------------------------------------------------------------


class Recorder:
    """Listens to one Session and writes every event to path (and path's .jsonl) as it happens.

    Recorder(None) records in memory only. set_path() returns None when everything so far is on disk,
    or a one-line message (also kept in .problem) when the path cannot be written; recording goes on
    in memory either way. on_problem(message) is called if writing fails later (a full disk, say).
    """

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        clock: Callable[[], str] | None = default_clock,
        on_problem: Callable[[str], None] | None = None,
    ):
        self.clock = clock
        self.on_problem = on_problem
        self.path: Path | None = None
        self.problem: str | None = None
        self.session: Session | None = None
        self.events = 0
        self.digests = Digests()  # the weights' fingerprints, each array hashed once
        self._texts: list[str] = []  # header, then one block per event
        self._lines: list[str] = []  # JSON lines, the same
        self._data: list[str] = []  # each JSON line as transcript lines, for the appendix at the end
        self._files: _Pair | None = None  # the transcript's and the log's open files
        self._written = (0, 0)  # how many of _texts and _lines are in them
        self._last: State | None = None
        self._mode = Mode()  # the view before the next event: a mode event's text says what changed
        if path is not None:
            self.set_path(path)

    @property
    def recording(self) -> bool:
        return self.session is not None

    def text(self) -> str:
        """The whole transcript so far (also when nothing could be written)."""
        return "".join(self._texts)

    def jsonl(self) -> str:
        return "".join(self._lines)

    def attach(self, session: Session) -> None:
        """Start recording: write the header (where the session stands now) and follow its events."""
        from tinytui.recording.embedded_log import data_lines
        from tinytui.recording.event_log import dumps, start_json
        from tinytui.recording.transcript import header_text

        if self.session is not None:
            raise RuntimeError("this recorder is already recording a session")
        if self._texts:
            raise RuntimeError("this recorder has finished a recording; make a new one")
        recorded = self.clock() if self.clock else None
        self.session = session
        self._last = session.state
        self._mode = session.mode
        start = start_json(session, recorded, self.digests)
        self._texts.append(header_text(session, recorded))
        self._lines.append(dumps(start))
        self._data.append(data_lines(start))
        session.listeners.append(self._on_event)
        self._write_pending()

    def stop(self) -> None:
        """Stop following the session, close the files; the transcript says how many events it holds."""
        if self.session is None:
            return
        from tinytui.recording.embedded_log import appendix_text
        from tinytui.recording.transcript import rule

        self.session.listeners.remove(self._on_event)
        self.session = None
        noun = "event" if self.events == 1 else "events"
        self._texts.append("\n" + rule(f"recording stopped after {self.events} {noun}") + "\n")
        self._texts.append(appendix_text(self._data))
        self._write_pending()
        self._close()

    def set_path(self, path: str | Path) -> str | None:
        """Write everything recorded so far to path (and its .jsonl) and keep appending there. Both
        files are made new: a recording never replaces a file (target_problem says why not)."""
        p = Path(path)
        try:
            problem = target_problem(p)
        except (OSError, ValueError) as exc:
            problem = f"cannot record to {p}: {getattr(exc, 'strerror', None) or exc}"
        if problem:
            return self._fail(problem)
        self._close()
        try:
            files = _Pair(p)
        except FileExistsError:  # made by someone else since the check above
            return self._fail(f"{p} or {events_path(p).name} exists; a recording never replaces a file")
        except OSError as exc:
            return self._fail(f"cannot record to {p}: {exc.strerror or exc}")
        self._files, self._written, self.path = files, (0, 0), p
        self.problem = None
        self._write_pending(report=False)  # the caller gets the message as the return value
        if self.session is None and self._texts:  # a finished recording: nothing more will come
            self._close()
        return self.problem

    # ---- internals -----------------------------------------------------------------------------
    def _on_event(self, event: Event) -> None:
        from tinytui.recording.embedded_log import data_lines
        from tinytui.recording.event_log import dumps, event_json
        from tinytui.recording.transcript import event_text

        session = self.session
        assert session is not None and self._last is not None
        self.events += 1
        after = session.state
        doc = event_json(self.events, event, session, self.digests)
        self._lines.append(dumps(doc))
        self._texts.append(event_text(self.events, event, self._last, session, self._mode))
        self._data.append(data_lines(doc))
        self._last, self._mode = after, session.mode
        self._write_pending()

    def _write_pending(self, report: bool = True) -> None:
        if self._files is None:
            return
        done_text, done_log = self._written
        try:
            # the log first: anything the transcript shows can then be replayed
            self._files.append("".join(self._lines[done_log:]), "".join(self._texts[done_text:]))
        except OSError as exc:
            where, self.path = self.path, None
            self._files.undo()
            self._close()
            message = self._fail(f"cannot write {where}: {exc.strerror or exc}")
            if report and self.on_problem:
                self.on_problem(message)
            return
        self._written = (len(self._texts), len(self._lines))

    def _fail(self, message: str) -> str:
        self.problem = f"{message}; still recording in memory, choose another file to save it"
        return self.problem

    def _close(self) -> None:
        if self._files is not None:
            self._files.close()
        self._files = None


NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


class _Pair:
    """A transcript and its log, created new, appended to together: each append() lands whole in both
    or, when a write fails part-way, undo() cuts both back to where they were whole. Plain descriptors
    and os.write, so what is on disk is exactly what was written, nothing held in a buffer."""

    def __init__(self, path: Path) -> None:
        self.paths = (path, events_path(path))
        self.fds = _create_both(path)
        self.whole = (0, 0)  # bytes of each file that end on a complete record

    def append(self, log: str, text: str) -> None:
        text_fd, log_fd = self.fds
        sizes = list(self.whole)
        for i, fd, data in ((1, log_fd, log), (0, text_fd, text)):
            sizes[i] += _write_all(fd, data.encode("utf-8"))
            os.fsync(fd)
        self.whole = (sizes[0], sizes[1])

    def undo(self) -> None:
        """Cut both files back to their last whole size; when that is nothing (not even the header was
        written), remove them, so a failed start leaves no empty files behind."""
        for fd, size in zip(self.fds, self.whole):
            with contextlib.suppress(OSError):
                os.ftruncate(fd, size)
                os.fsync(fd)
        if self.whole == (0, 0):
            for fd, path in zip(self.fds, self.paths):
                _remove_own(fd, path)

    def close(self) -> None:
        for fd in self.fds:
            with contextlib.suppress(OSError):  # closing a file on a failed disk can fail too
                os.close(fd)


def _write_all(fd: int, data: bytes) -> int:
    """Write all of data (os.write may take less at a time); OSError if the file system refuses."""
    view, done = memoryview(data), 0
    while done < len(data):
        done += os.write(fd, view[done:])
    return done


def _remove_own(fd: int, path: Path) -> None:
    """Remove path if it is still the file open on fd (never one put there since)."""
    with contextlib.suppress(OSError):
        mine, there = os.fstat(fd), os.lstat(path)
        if (mine.st_dev, mine.st_ino) == (there.st_dev, there.st_ino):
            os.unlink(path)


def _create_both(path: Path) -> tuple[int, int]:
    """The transcript and its log, both created new (O_EXCL: a file, folder or link already at either
    name fails, so nothing is replaced or written through a link, even one planted after the check).
    When the log cannot be made, the transcript just made is removed again."""
    text_fd = os.open(path, NEW_FILE | getattr(os, "O_BINARY", 0), 0o644)
    try:
        log_fd = os.open(events_path(path), NEW_FILE | getattr(os, "O_BINARY", 0), 0o644)
    except OSError:
        _remove_own(text_fd, path)
        os.close(text_fd)
        raise
    return text_fd, log_fd
