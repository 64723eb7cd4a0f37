"""Replay a recorded session: read its log, check all of it, then re-apply the events one by one.

The log is the .jsonl file, or, when a transcript has none beside it, the copy of each record the
transcript carries on its "#| " lines (tinytui.recording.embedded_log; each line has a checksum, so an
edited line is refused by its number in the transcript). When the .jsonl is damaged or shorter than
that copy, the transcript's copy is replayed and the Recording's notice says so. A .jsonl whose last
line was cut off mid-write (a killed tinytui, a power cut) and that has no such copy replays the
events before that line, and the notice says so too: what was on disk is never lost. Line ends (CRLF), a
byte-order mark and blanks at a line's end are not content: an editor's changes to them still replay.

load_recording() validates the whole file before anything is applied to a session anyone sees: every
line is decoded by tinytui.recording.event_log against the recorded model, then the events are re-applied
to a scratch Session, each through its kind's definition (tinytui.recording.event_kinds), and the state
each one reaches is compared with the state the recorder saw. Any problem is one ReplayError, one line,
naming the file and the line. The Replayer then steps a session anyone sees through a Recording;
state_text() is the plain text of where a replay stands.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path

from tinytui.model.generation.sampling import Sampling
from tinytui.model.io import model_file
from tinytui.model.io.document import ModelFile
from tinytui.model.io.model_file import MAX_FILE_BYTES as MAX_MODEL_BYTES
from tinytui.model.io.safe_io import read_regular_file
from tinytui.recording.embedded_log import DATA, DataLineError, has_data, read_data
from tinytui.recording.event_kinds import KINDS, MAX_EVENTS, Recorded, decode_event
from tinytui.recording.event_log import FORMAT, compare_check, decode_start
from tinytui.recording.log_values import BadLine, CutShort, Damaged, line_limit, loads
from tinytui.recording.recorder import events_path
from tinytui.recording.state_digest import Digests
from tinytui.recording.transcript import state_lines, step_text
from tinytui.session.session import Session
from tinytui.session.state import Event, Mode, Refused, State

MAX_FILE_BYTES = 2 * MAX_MODEL_BYTES  # the first line holds a whole model file, the rest its events


class ReplayError(ValueError):
    """A session file that cannot be replayed; str() is one line naming the file and the line."""


class DamagedLog(ReplayError):
    """A log cut short or damaged (a line that is not JSON, an empty or non-UTF-8 file), rather than one
    holding something replay refuses: the transcript's copy of the events may replay instead."""


class CutLog(DamagedLog):
    """A log whose last line stops before its JSON is complete (the lines before it were read)."""


@dataclass(frozen=True)
class Recording:
    """A recorded session, read and checked, ready to replay: the model, undo history and view it started
    from, and the events recorded after."""

    source: Path  # the .jsonl file (or the transcript whose event data was read)
    model: ModelFile
    history: tuple[State, ...]  # the undo history when recording started
    cursor: int
    step: int
    recorded: str | None
    events: tuple[Recorded, ...]
    mode: Mode = field(default_factory=Mode)  # the view at the start (older files: the default)
    block: int = 0  # the block of the step at the start (models of several blocks)
    sampling: Sampling = field(default_factory=Sampling)  # how the next token was chosen at the start
    notice: str = ""  # one line when another copy was replayed than the one asked for, and why

    def new_session(self) -> Session:
        """A Session exactly where the recording started (undo history and view included)."""
        session = Session(self.model, self.history[self.cursor])
        session.history = list(self.history)  # the constructor ran the current state; the rest is data
        session.cursor = self.cursor
        session.step = self.step
        session.block = self.block
        session.mode = self.mode
        session.sampling = self.sampling
        return session


def log_path(path: str | Path) -> Path:
    """The file replay reads: the .jsonl itself, or the .jsonl beside a transcript."""
    p = Path(path)
    return p if p.suffix == ".jsonl" else events_path(p)


def load_recording(path: str | Path) -> Recording:
    """The recording at path (a transcript, or its .jsonl), checked whole. When the .jsonl is damaged
    or holds fewer events than the transcript's event data, the transcript's copy is replayed and
    .notice says so in one line (the .jsonl's error stands when the transcript cannot replay either)."""
    given = Path(path)
    log = log_path(given)
    transcript = given if given != log else _transcript_beside(log)
    records: list[tuple[int, str]]
    source, records = log, []  # what was read, for the lines before a cut
    try:
        source, records = _records(given)
        recording = _load(source, records)
    except DamagedLog as exc:
        carried = _carried(transcript, log)
        instead = _replayable(transcript, carried) if carried else None
        if instead is not None:
            return replace(instead, notice=f"{exc}; replaying the event data in {transcript} instead")
        if isinstance(exc, CutLog) and len(records) > 2:  # the start and an event are whole
            whole = _load(source, records[:-1])
            n = len(whole.events)
            return replace(whole, notice=f"{exc}; replaying the {n} event{'s' * (n != 1)} before it")
        raise
    # the start, then one record an event: only a transcript that carries more is read whole
    more = recording.source == log and _records_carried(transcript, log) - 1 > len(recording.events)
    carried = _carried(transcript, log) if more else None
    if carried and len(carried) - 1 > len(recording.events):
        instead = _replayable(transcript, carried)
        if instead is not None:
            held, total = len(recording.events), len(instead.events)
            return replace(
                instead,
                notice=f"{log} holds {held} of the {total} events {transcript} carries (it was cut "
                f"short); replaying the event data in {transcript} instead",
            )
    return recording


def _transcript_beside(log: Path) -> Path | None:
    """The transcript a .jsonl was written beside: lesson.jsonl -> lesson.txt."""
    text = log.with_suffix(".txt")
    return text if text != log else None


def _records_carried(transcript: Path | None, log: Path) -> int:
    """How many records the event data of a transcript beside an existing .jsonl starts (0: none)."""
    if transcript is None or transcript == log or not os.path.lexists(log):
        return 0
    try:
        return sum(raw.startswith(DATA) for raw in _read_lines(transcript, transcript))
    except ReplayError:
        return 0


def _carried(transcript: Path | None, log: Path) -> list[tuple[int, str]] | None:
    """The event data a transcript beside an existing .jsonl carries, when it has readable data."""
    if transcript is None or transcript == log or not os.path.lexists(log):
        return None
    try:
        lines = _read_lines(transcript, transcript)
        return _event_data(lines, transcript) if has_data(lines) else None
    except ReplayError:
        return None


def _event_data(lines: list[str], transcript: Path) -> list[tuple[int, str]]:
    """The records a transcript's event data holds (read_data), refused by count before any is read
    when there are more than a recording can hold: a million forged lines cost no million checks."""
    starts = [n for n, raw in enumerate(lines, start=1) if raw.startswith(DATA)]
    if len(starts) - 1 > MAX_EVENTS:
        raise ReplayError(
            f"{transcript}:{starts[MAX_EVENTS + 1]}: more than {MAX_EVENTS} events: longer than any "
            "session tinytui replays"
        )
    try:
        return read_data(lines)
    except DataLineError as exc:
        raise ReplayError(f"{transcript}:{exc.line}: {exc}") from None


def _replayable(transcript: Path | None, carried: list[tuple[int, str]]) -> Recording | None:
    assert transcript is not None
    try:
        return _load(transcript, carried)
    except ReplayError:
        return None


def _load(log: Path, numbered: list[tuple[int, str]]) -> Recording:
    lines = [raw for _, raw in numbered]
    n = numbered[0][0] if numbered else 1
    try:
        if not lines or not lines[0].strip():
            raise Damaged("empty: not a tinytui session")
        if len(lines) - 1 > MAX_EVENTS:
            n = numbered[MAX_EVENTS + 1][0]
            raise BadLine(f"more than {MAX_EVENTS} events: longer than any session tinytui replays")
        # the start holds a model file's JSON: bounded as one is, before parsing
        if values := model_file.values_beyond_bound(lines[0]):
            raise BadLine(
                f"the starting model holds some {values:,} values, more than tinytui reads from a model's "
                f"JSON ({model_file.MAX_JSON_VALUES:,})"
            )
        try:
            head = loads(lines[0], last=len(lines) == 1)
        except BadLine:
            if not lines[0].startswith('{"format": "' + FORMAT):
                raise BadLine(f"not a tinytui session (the first line is not a {FORMAT} object)") from None
            raise
        start = decode_start(head)
        recording = Recording(
            log,
            start.model,
            start.history,
            start.cursor,
            start.step,
            start.recorded,
            (),
            start.mode,
            start.block,
            start.sampling,
        )
        try:
            scratch = recording.new_session()
        except Refused as exc:
            raise BadLine(f"the starting state cannot be run: {exc}") from None
        digests = Digests()
        compare_check(start.check, scratch, "the start", digests)
        events: list[Recorded] = []
        limit = line_limit(start.model)
        for i, (n, raw) in enumerate(numbered[1:], start=2):
            if len(raw) > limit:
                raise BadLine(f"{len(raw)} characters is longer than any event line ({limit})")
            rec = decode_event(loads(raw, last=i == len(lines)), n, len(events) + 1, start.model)
            replay_event(scratch, rec)
            compare_check(rec.check, scratch, f"this {rec.kind}", digests)
            events.append(rec)
    except BadLine as exc:
        error = (
            CutLog if isinstance(exc, CutShort) else DamagedLog if isinstance(exc, Damaged) else ReplayError
        )
        raise error(f"{log}:{n}: {exc}") from None
    except (RecursionError, MemoryError) as exc:  # a structure json read but too deep or big to use
        raise ReplayError(f"{log}:{n}: too deeply nested or too large ({exc.__class__.__name__})") from None
    return replace(recording, events=tuple(events))


def _records(given: Path) -> tuple[Path, list[tuple[int, str]]]:
    """The file read and its records, each with its line number: the .jsonl's lines, or when a
    transcript has no .jsonl beside it, the event data the transcript carries."""
    log = log_path(given)
    if log == given or os.path.lexists(log) or not os.path.lexists(given):
        return log, list(enumerate(_read_lines(given, log), start=1))
    lines = _read_lines(given, given)
    if not has_data(lines):
        raise ReplayError(
            f"{given}: no {log.name} beside it and no event data (#| lines) in it; "
            "replay reads the events the recorder writes there"
        )
    return given, _event_data(lines, given)


def _read_lines(given: Path, log: Path) -> list[str]:
    """The log's lines; a FIFO, device or folder is refused before it is opened (a FIFO would wait)."""
    try:
        st = os.stat(log)
    except FileNotFoundError:
        if log != given and given.exists():
            raise ReplayError(
                f"{given}: no {log.name} beside it; replay reads the events the recorder writes there"
            ) from None
        raise ReplayError(f"{given}: no such file") from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
        raise ReplayError(f"{log}: cannot read the file ({exc.__class__.__name__}: {exc})") from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "a FIFO, device or socket"
        raise ReplayError(f"{log}: cannot read the file (it is {kind}, not a regular file)")
    try:
        data = read_regular_file(log, MAX_FILE_BYTES)
    except OSError as exc:
        raise ReplayError(f"{log}: cannot read the file ({exc.strerror or exc})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if b"\n" in data[exc.start :]:
            raise DamagedLog(f"{log}: cannot read the file (not UTF-8 text at byte {exc.start})") from None
        # a character cut in two on the last line: a write stopped there, and that line is incomplete
        text = data[: exc.start].decode("utf-8")
    # a byte-order mark, CRLF line ends and blank lines at the end (a Windows editor, git's autocrlf)
    # are not content
    lines = [raw.removesuffix("\r") for raw in text.removeprefix("\ufeff").split("\n")]
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def apply_recorded(session: Session, rec: Recorded) -> Event:
    """Re-apply one event through the same Session call the user made. When the session refuses it
    (the user changed things mid-replay), raises Refused naming the line; nothing changed."""
    try:
        return replay_event(session, rec)
    except BadLine as exc:
        raise Refused(f"replay line {rec.line}: {exc}") from None


def replay_event(session: Session, rec: Recorded) -> Event:
    """Re-apply one event; a refusal, or an event that changes nothing, raises BadLine (the loader
    names the line in the file, apply_recorded the line of a replay in the app)."""
    spec = KINDS[rec.kind]
    caught: list[Event] = []
    session.listeners.append(caught.append)
    try:
        spec.apply(session, rec)
    except Refused as exc:
        raise BadLine(f"{rec.kind}: {exc}") from None
    finally:
        session.listeners.remove(caught.append)
    if not caught:
        raise BadLine(f"{rec.kind}: {spec.idle(session, rec.data)}")
    return caught[-1]


class Replayer:
    """Steps through a Recording. The app: session = replayer.new_session(); `n` calls apply_next;
    with to_end (from --to-end) it calls apply_all once at start."""

    def __init__(self, recording: Recording, to_end: bool = False):
        self.recording = recording
        self.to_end = to_end
        self.position = 0  # events applied so far
        self.digests = Digests()  # the weights' fingerprints, each array hashed once
        self.diverged: str | None = None  # set when the live session no longer matches the recording

    @property
    def total(self) -> int:
        return len(self.recording.events)

    @property
    def done(self) -> bool:
        return self.position >= self.total

    def new_session(self) -> Session:
        return self.recording.new_session()

    def peek(self) -> Recorded | None:
        return None if self.done else self.recording.events[self.position]

    def describe(self, rec: Recorded | None = None) -> str:
        """One short line for a status bar: 'event 3 of 9: edit W_O[h2.k0, wood] → 0.0'."""
        rec = rec or self.peek()
        if rec is None:
            return f"replay finished: {self.total} of {self.total} events applied"
        words = KINDS[rec.kind].describe(rec.data, self.recording.model.params)
        return f"event {rec.seq} of {self.total}: {words}"

    def apply_next(self, session: Session) -> Event | None:
        """Apply the next recorded event; None when there are no more. If the user changed the
        session in between, the event may be refused (Refused, nothing changed, position kept) or reach
        another state than recorded (it is applied; .diverged says where)."""
        rec = self.peek()
        if rec is None:
            return None
        event = apply_recorded(session, rec)
        self.position += 1
        if self.diverged is None:
            try:
                compare_check(rec.check, session, f"this {rec.kind}", self.digests)
            except BadLine as exc:
                self.diverged = f"line {rec.line}: {exc}"
        return event

    def apply_all(self, session: Session) -> list[Event]:
        events = []
        while (event := self.apply_next(session)) is not None:
            events.append(event)
        return events


def state_text(session: Session, replayer: Replayer) -> str:
    """Where a replay stands, as plain text: `tinytui replay FILE --to-end --print`."""
    head = f"replayed {replayer.position} of {replayer.total} events from {replayer.recording.source}"
    if replayer.diverged:
        head += f" (diverged at {replayer.diverged})"
    body = [head, "", *state_lines(session), "", step_text(session.trace, session.step, session.params)]
    return "\n".join(body) + "\n"
