"""Replay a recorded session: read its .jsonl log, check all of it, then re-apply the events one by one.

load_recording() validates the whole file before anything is applied to a session anyone sees: every
line is parsed and checked against the recorded model, then the events are re-applied to a scratch
Session and the state each one reaches is compared with the state the recorder saw. Any problem is one
ReplayError, one line, naming the file and the line. A Recording that loads replays bit for bit.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from tinytui.model import ModelFile, ModelFileError, Params, Switches
from tinytui.model.files import parse as parse_model
from tinytui.model.names import canonical, label
from tinytui.model.stages import FIRST, LAST
from tinytui.model.switches import ACTIVATIONS, NORM_PLACEMENTS
from tinytui.recorder import (
    DIRECT_KINDS,
    FORMAT,
    PARAMS_KINDS,
    cell_name,
    check_json,
    events_path,
    number,
    switch_name,
)
from tinytui.session import Event, Refused, Session, State

KINDS = DIRECT_KINDS + PARAMS_KINDS
SWITCH_NAMES = ("causal_mask", "positional_encoding", "ablated_heads", "activation", "norm", "residual")


class ReplayError(ValueError):
    """A session file that cannot be replayed; str() is one line naming the file and the line."""


class _Bad(Exception):
    """A problem on the line being read; load_recording adds the file and line number."""


@dataclass(frozen=True)
class Recorded:
    """One validated event from the log."""

    line: int
    seq: int
    kind: str
    data: dict[str, Any]
    params: Params | None  # the parameters a learn/load event set; None for the other kinds
    check: dict[str, Any]  # the state the recorder saw after it


@dataclass(frozen=True)
class Recording:
    source: Path  # the .jsonl file
    model: ModelFile
    history: tuple[State, ...]  # the undo history when recording started
    cursor: int
    step: int
    recorded: str | None
    events: tuple[Recorded, ...]

    def new_session(self) -> Session:
        """A Session exactly where the recording started (undo history included)."""
        session = Session(self.model, self.history[self.cursor])
        session.history = list(self.history)  # the constructor ran the current state; the rest is data
        session.cursor = self.cursor
        session.step = self.step
        return session


def log_path(path: str | Path) -> Path:
    """The file replay reads: the .jsonl itself, or the .jsonl beside a transcript."""
    p = Path(path)
    return p if p.suffix == ".jsonl" else events_path(p)


def load_recording(path: str | Path) -> Recording:
    given = Path(path)
    log = log_path(given)
    if not log.exists():
        if log != given and given.exists():
            raise ReplayError(
                f"{given}: no {log.name} beside it; replay reads the events the recorder writes there"
            )
        raise ReplayError(f"{given}: no such file")
    try:
        text = log.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReplayError(f"{log}: cannot read the file ({exc.__class__.__name__}: {exc})") from None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    n = 1
    try:
        if not lines or not lines[0].strip():
            raise _Bad("empty: not a tinytui session")
        try:
            head = _json(lines[0], last=len(lines) == 1)
        except _Bad:
            if not lines[0].startswith('{"format": "' + FORMAT):
                raise _Bad(f"not a tinytui session (the first line is not a {FORMAT} object)") from None
            raise
        if not isinstance(head, dict) or head.get("format") != FORMAT:
            raise _Bad(f"not a tinytui session (the first line should be a {FORMAT} object)")
        model, history, cursor, step = _start(head)
        recording = Recording(log, model, history, cursor, step, _text_or_none(head.get("recorded")), ())
        try:
            scratch = recording.new_session()
        except Refused as exc:
            raise _Bad(f"the starting state cannot be run: {exc}") from None
        _compare(head.get("check"), scratch, "the start")
        events = []
        for n, raw in enumerate(lines[1:], start=2):
            rec = _event(_json(raw, last=n == len(lines)), n, len(events) + 1, model)
            _replay_one(scratch, rec)
            _compare(rec.check, scratch, f"this {rec.kind}")
            events.append(rec)
    except _Bad as exc:
        raise ReplayError(f"{log}:{n}: {exc}") from None
    return Recording(log, model, history, cursor, step, recording.recorded, tuple(events))


# ---- applying ------------------------------------------------------------------------------------


def apply_recorded(session: Session, rec: Recorded) -> Event:
    """Re-apply one event through the same Session call the user made. When the session refuses it
    (the user changed things mid-replay), raises Refused naming the line; nothing changed."""
    try:
        return _replay_one(session, rec)
    except _Bad as exc:
        raise Refused(f"replay line {rec.line}: {exc}") from None


def _replay_one(session: Session, rec: Recorded) -> Event:
    caught: list[Event] = []
    session.listeners.append(caught.append)
    try:
        _apply(session, rec)
    except Refused as exc:
        raise _Bad(f"{rec.kind}: {exc}") from None
    finally:
        session.listeners.remove(caught.append)
    if not caught:
        why = {
            "step": f"the session is already at step {rec.data.get('step')}",
            "undo": "there is nothing to undo at this point",
            "redo": "there is nothing to redo at this point",
        }.get(rec.kind, "nothing happened")
        raise _Bad(f"{rec.kind}: {why}")
    return caught[-1]


def _apply(session: Session, rec: Recorded) -> None:
    d = rec.data
    if rec.kind == "step":
        session.goto(d["step"], backward=d.get("backward", False))
    elif rec.kind == "edit":
        current = float(session.params[d["param"]][d["index"]])
        if _bits(current) != _bits(d["old"]):
            cell = cell_name(d["param"], d["index"])
            raise Refused(f"the recording says {cell} was {number(d['old'])}, here it is {number(current)}")
        session.edit(d["param"], d["index"], d["new"])
    elif rec.kind == "toggle":
        if d["switch"] == "all":
            session.set_switches(d["switches"])
        else:
            session.toggle(d["switch"], d["head"])
    elif rec.kind == "prompt":
        session.set_prompt(d["new"])
    elif rec.kind == "target":
        session.set_target(d["new"])
    elif rec.kind == "lr":
        session.set_lr(d["new"])
    elif rec.kind == "undo":
        session.undo()
    elif rec.kind == "redo":
        session.redo()
    elif rec.kind == "reset":
        session.reset()
    else:
        assert rec.params is not None
        session.set_params(rec.params, rec.kind, d)


class Replayer:
    """Steps through a Recording. The app: session = replayer.new_session(); `n` calls apply_next;
    with to_end (from --to-end) it calls apply_all once at start."""

    def __init__(self, recording: Recording, to_end: bool = False):
        self.recording = recording
        self.to_end = to_end
        self.position = 0  # events applied so far
        self.diverged: str | None = None  # set when the live session no longer matches the recording

    @classmethod
    def from_file(cls, path: str | Path, to_end: bool = False) -> Replayer:
        return cls(load_recording(path), to_end)

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
        """One short line for a status bar: 'event 3 of 9: edit W_O[2,3] → 0.0'."""
        rec = rec or self.peek()
        if rec is None:
            return f"replay finished: {self.total} of {self.total} events applied"
        return f"event {rec.seq} of {self.total}: {describe_event(rec)}"

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
                _compare(rec.check, session, f"this {rec.kind}")
            except _Bad as exc:
                self.diverged = f"line {rec.line}: {exc}"
        return event

    def apply_all(self, session: Session) -> list[Event]:
        events = []
        while (event := self.apply_next(session)) is not None:
            events.append(event)
        return events


def describe_event(rec: Recorded) -> str:
    d = rec.data
    if rec.kind == "step":
        return f"backward walk to step {d['step']}" if d.get("backward") else f"go to step {d['step']}"
    if rec.kind == "edit":
        return f"edit {cell_name(d['param'], d['index'])}: {number(d['old'])} → {number(d['new'])}"
    if rec.kind == "toggle":
        if d["switch"] == "all":
            return f"switches → {d['switches'].describe()}"
        return f"toggle {switch_name(d['switch'], d['head'])}"
    if rec.kind == "prompt":
        return f"prompt → {' '.join(d['new'])}"
    if rec.kind == "target":
        return f"target → {d['new']}"
    if rec.kind == "lr":
        return f"learning rate → {number(d['new'])}"
    return rec.kind


# ---- reading and checking ------------------------------------------------------------------------


def _no_constant(name: str) -> Any:
    raise _Bad(f"{name} is not a number a session can hold")


def _json(raw: str, last: bool) -> Any:
    try:
        return json.loads(raw, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        if last:
            raise _Bad(f"truncated: the last line is not complete JSON ({exc.msg})") from None
        raise _Bad(f"not JSON ({exc.msg}, column {exc.colno})") from None


def _start(head: dict[str, Any]) -> tuple[ModelFile, tuple[State, ...], int, int]:
    known = {"format", "recorded", "model", "history", "cursor", "step", "check"}
    _keys(head, known, known - {"recorded"}, "the start")
    try:
        model = parse_model(head["model"], source="model")
    except ModelFileError as exc:
        raise _Bad(str(exc)) from None
    history = head["history"]
    if not isinstance(history, list) or not history:
        raise _Bad("history: expected a non-empty list of states")
    states = tuple(_state(s, model, f"history[{i}]") for i, s in enumerate(history))
    cursor = _int(head["cursor"], "cursor", 0, len(states) - 1)
    step = _int(head["step"], "step", FIRST, LAST)
    return model, states, cursor, step


def _state(doc: Any, model: ModelFile, where: str) -> State:
    if not isinstance(doc, dict):
        raise _Bad(f"{where}: expected an object")
    keys = {"prompt", "target", "switches", "lr", "edits"}
    _keys(doc, keys, keys, where)
    cfg = model.cfg
    prompt = _tokens(doc["prompt"], model, f"{where}.prompt")
    target = _token(doc["target"], model, f"{where}.target")
    switches = _switches(doc["switches"], model, f"{where}.switches")
    lr = _number(doc["lr"], f"{where}.lr")
    params = _edited(model.params, doc["edits"], f"{where}.edits")
    if not 1 <= len(prompt) <= cfg.n_ctx:
        raise _Bad(f"{where}.prompt: needs 1 to {cfg.n_ctx} tokens, has {len(prompt)}")
    return State(params, prompt, target, switches, lr)


def _event(doc: Any, line: int, seq: int, model: ModelFile) -> Recorded:
    if not isinstance(doc, dict):
        raise _Bad("expected an event object")
    _keys(doc, {"seq", "kind", "data", "check", "edits"}, {"seq", "kind", "data", "check"}, "event")
    got = doc["seq"]
    if got != seq or isinstance(got, bool):
        raise _Bad(f"event {got!r} where event {seq} should be: a line is missing or out of order")
    kind = doc["kind"]
    if kind not in KINDS:
        raise _Bad(f"unknown event kind {kind!r} (known: {', '.join(KINDS)})")
    data = doc["data"]
    if not isinstance(data, dict) or not isinstance(doc["check"], dict):
        raise _Bad(f"{kind}: data and check must be objects")
    params = None
    if kind in PARAMS_KINDS:
        if "edits" not in doc:
            raise _Bad(f"{kind}: edits: missing (the parameters it set)")
        params = _edited(model.params, doc["edits"], f"{kind}: edits")
    return Recorded(line, seq, kind, _data(kind, data, model), params, doc["check"])


def _data(kind: str, d: dict[str, Any], model: ModelFile) -> dict[str, Any]:
    """The fields a kind needs, checked and normalised; the rest of the recorded data is kept as is."""
    out = dict(d)
    cfg = model.cfg
    if kind == "step":
        out["step"] = _int(d.get("step"), "step", FIRST, LAST)
        if not isinstance(d.get("backward", False), bool):
            raise _Bad(f"step: backward: expected true or false, got {d.get('backward')!r}")
    elif kind == "edit":
        name = _param(d.get("param"), model.params, "edit")
        out["param"] = name
        out["index"] = _index(d.get("index"), model.params[name].shape, label(name), "edit")
        out["new"] = _number(d.get("new"), "edit: new")
        out["old"] = _number(d.get("old"), "edit: old")
    elif kind == "toggle":
        switch = d.get("switch")
        if switch == "all":
            out["switches"] = _switches(d.get("switches"), model, "toggle: switches")
        elif switch in SWITCH_NAMES:
            head = d.get("head")
            if switch == "ablated_heads" or head is not None:
                head = _int(head, "toggle: head", 1, cfg.n_heads)
            out["head"] = head
        else:
            raise _Bad(f"toggle: switch: {switch!r} is not a switch (known: {', '.join(SWITCH_NAMES)})")
    elif kind == "prompt":
        out["new"] = list(_tokens(d.get("new"), model, "prompt: new"))
    elif kind == "target":
        out["new"] = _token(d.get("new"), model, "target: new")
    elif kind == "lr":
        out["new"] = _number(d.get("new"), "lr: new")
    return out


def _compare(check: Any, session: Session, what: str) -> None:
    """The state the session reached must be the one recorded, bit for bit."""
    if not isinstance(check, dict):
        raise _Bad(f"{what}: check: expected an object")
    now = check_json(session)
    for key, value in now.items():
        if key not in check:
            raise _Bad(f"{what}: check: {key}: missing")
        if isinstance(value, float) and isinstance(check[key], (int, float)):
            same = _bits(value) == _bits(float(check[key]))
        else:
            same = check[key] == value
        if not same:
            raise _Bad(f"replaying {what} does not reach the recorded state ({key} is different)")


# ---- small validators ----------------------------------------------------------------------------


def _keys(doc: dict[str, Any], allowed: set[str], required: set[str], where: str) -> None:
    for key in sorted(required):
        if key not in doc:
            raise _Bad(f"{where}: {key}: missing")
    extra = sorted(set(doc) - allowed)
    if extra:
        raise _Bad(f"{where}: {extra[0]}: unknown key")


def _int(x: Any, where: str, lo: int, hi: int) -> int:
    if not isinstance(x, int) or isinstance(x, bool):
        raise _Bad(f"{where}: expected a whole number, got {x!r}")
    if not lo <= x <= hi:
        raise _Bad(f"{where}: {x} is out of range ({lo}–{hi})")
    return x


def _number(x: Any, where: str) -> float:
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        raise _Bad(f"{where}: expected a number, got {x!r}")
    if not math.isfinite(x):
        raise _Bad(f"{where}: {x!r} is not a finite number")
    return float(x)


def _bits(x: float) -> int:
    return int(np.float64(x).view(np.int64))


def _token(x: Any, model: ModelFile, where: str) -> str:
    if not isinstance(x, str) or x not in model.cfg.vocab:
        raise _Bad(f"{where}: {x!r} is not in the vocabulary ({' '.join(model.cfg.vocab)})")
    return x


def _tokens(x: Any, model: ModelFile, where: str) -> tuple[str, ...]:
    if not isinstance(x, list):
        raise _Bad(f"{where}: expected a list of tokens")
    return tuple(_token(t, model, where) for t in x)


def _text_or_none(x: Any) -> str | None:
    return x if isinstance(x, str) else None


def _param(x: Any, params: Params, where: str) -> str:
    names = ", ".join(label(n) for n in params)
    if not isinstance(x, str) or canonical(x) not in params:
        raise _Bad(f"{where}: no parameter {x!r} in this model ({names})")
    return canonical(x)


def _index(x: Any, shape: tuple[int, ...], label: str, where: str) -> tuple[int, ...]:
    if not isinstance(x, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in x):
        raise _Bad(f"{where}: index: expected a list of whole numbers, got {x!r}")
    if len(x) != len(shape) or any(not 0 <= i < n for i, n in zip(x, shape)):
        raise _Bad(f"{where}: {label}{x} is outside its shape {shape}")
    return tuple(x)


def _edited(base: Params, edits: Any, where: str) -> Params:
    if not isinstance(edits, list):
        raise _Bad(f"{where}: expected a list of [parameter, index, value]")
    arrays: dict[str, np.ndarray] = {}
    for item in edits:
        if not isinstance(item, list) or len(item) != 3:
            raise _Bad(f"{where}: expected [parameter, index, value], got {item!r}")
        name = _param(item[0], base, where)
        index = _index(item[1], base[name].shape, label(name), where)
        arrays.setdefault(name, base[name].copy())[index] = _number(item[2], where)
    return base.with_arrays(arrays) if arrays else base


def _switches(doc: Any, model: ModelFile, where: str) -> Switches:
    if not isinstance(doc, dict):
        raise _Bad(f"{where}: expected an object")
    known = {f.name for f in fields(Switches)}
    extra = sorted(set(doc) - known)
    if extra:
        raise _Bad(f"{where}: {extra[0]!r} is not a switch")
    for name in ("causal_mask", "positional_encoding", "residual"):
        if name in doc and not isinstance(doc[name], bool):
            raise _Bad(f"{where}.{name}: expected true or false, got {doc[name]!r}")
    if doc.get("activation", "relu") not in ACTIVATIONS:
        raise _Bad(f"{where}.activation: {doc['activation']!r} is not one of {', '.join(ACTIVATIONS)}")
    if doc.get("norm", "pre") not in NORM_PLACEMENTS:
        raise _Bad(f"{where}.norm: {doc['norm']!r} is not one of {', '.join(NORM_PLACEMENTS)}")
    heads = doc.get("ablated_heads", [])
    if not isinstance(heads, list):
        raise _Bad(f"{where}.ablated_heads: expected a list of head numbers")
    for h in heads:
        _int(h, f"{where}.ablated_heads", 1, model.cfg.n_heads)
    return Switches.from_dict(doc)


def state_text(session: Session, replayer: Replayer) -> str:
    """Where a replay stands, as plain text: `tinytui replay FILE --to-end --print`."""
    from tinytui.recorder import state_lines, step_text

    head = f"replayed {replayer.position} of {replayer.total} events from {replayer.recording.source}"
    if replayer.diverged:
        head += f" (diverged at {replayer.diverged})"
    body = [head, "", *state_lines(session), "", step_text(session.trace, session.step)]
    return "\n".join(body) + "\n"
