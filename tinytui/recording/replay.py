"""Replay a recorded session: read its .jsonl log, check all of it, then re-apply the events one by one.

The log is the .jsonl file, or, when a transcript has none beside it, the copy of each record the
transcript carries on its "#| " lines (tinytui.transcript.read_data; each line has a checksum, so an
edited line is refused by its number in the transcript).

load_recording() validates the whole file before anything is applied to a session anyone sees: every
line is decoded by tinytui.recording.event_log against the recorded model, then the events are re-applied to a
scratch Session and the state each one reaches is compared with the state the recorder saw. Any problem
is one ReplayError, one line, naming the file and the line. A Recording that loads replays bit for bit.

This module holds the Replayer, which steps a session through a Recording, and the plain text of where
a replay stands; reading and checking the file is tinytui.recording.replay_file, applying one event and saying
it in words tinytui.recording.replay_events.
"""

from __future__ import annotations

from tinytui.recording.event_kinds import Recorded
from tinytui.recording.event_log import compare_check
from tinytui.recording.log_values import BadLine
from tinytui.recording.replay_events import apply_recorded, describe_event
from tinytui.recording.replay_file import Recording
from tinytui.recording.transcript_lines import state_lines, step_text
from tinytui.session.session import Session
from tinytui.session.state import Event


class Replayer:
    """Steps through a Recording. The app: session = replayer.new_session(); `n` calls apply_next;
    with to_end (from --to-end) it calls apply_all once at start."""

    def __init__(self, recording: Recording, to_end: bool = False):
        self.recording = recording
        self.to_end = to_end
        self.position = 0  # events applied so far
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
        return f"event {rec.seq} of {self.total}: {describe_event(rec, self.recording.model.params)}"

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
                compare_check(rec.check, session, f"this {rec.kind}")
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
