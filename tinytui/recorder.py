"""Record a Session as it happens: a plain-text transcript for people, a JSON-lines log for replay.

`lesson.txt` gets a header (model, prompt, target, switches, the current step) and then one block per
event: a step's title, equation and tables; for a change (edit, toggle, prompt, target, undo, redo,
reset, learn) what moved — weights, switches, prediction and loss old → new, the largest change in each
step. Plain text only, every line at most 100 columns, so it diffs cleanly and pastes into notes.

`lesson.jsonl` (beside it, same stem) is what `tinytui replay` reads: line 1 is the start (the whole
model file, the undo history, the step), then one JSON object per event with a check of the state it
reached. Floats are JSON numbers, which Python writes with repr, so every value round-trips exactly.

Each event is appended to both files, flushed and fsync'd before the listener returns, so a killed
terminal loses nothing already shown. Everything is also kept in memory: when a path cannot be written
the recorder says so at once, keeps going in memory, and set_path() writes all of it to a better one.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import textwrap
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from tinytui.model import STAGE_BY_NUMBER, STAGES, Params, Trace, diff
from tinytui.model.backward import backward_stage_for
from tinytui.model.files import to_document
from tinytui.model.params import short_name
from tinytui.model.safe_io import open_for_append
from tinytui.model.stages import LAST, expand_names
from tinytui.render import plain_backward_report, plain_report, plain_table
from tinytui.report import Table, backward_report, fmt, stage_report
from tinytui.session import Event, Session, State

FORMAT = "tinytui-session/1"
WIDTH = 100
LABEL = 12  # the width of the "prediction  " column in header and change lines
MAX_CELLS = 8  # weight changes listed one by one; beyond this, a count (a learning step moves all 172)

# Kinds the replayer re-applies through the matching Session call.
DIRECT_KINDS = ("step", "edit", "toggle", "prompt", "target", "lr", "undo", "redo", "reset")
# Kinds that replace the parameters wholesale (Session.set_params): the record carries the result.
PARAMS_KINDS = ("learn", "load")


def default_clock() -> str:
    return datetime.now().strftime("%Y-%m-%d %H:%M")


def events_path(path: str | Path) -> Path:
    """The machine-readable log beside a transcript: lesson.txt -> lesson.jsonl."""
    return Path(path).with_suffix(".jsonl")


# ---- the machine-readable side ------------------------------------------------------------------


def changed_cells(params: Params, base: Params) -> list[tuple[str, tuple[int, ...], float]]:
    """(name, index, value) where params differ from base bit for bit (so −0.0 vs 0.0 counts)."""
    out = []
    for name in params:
        a, b = params[name], base[name]
        for idx in np.argwhere(a.view(np.int64) != b.view(np.int64)):
            index = tuple(int(i) for i in idx)
            out.append((name, index, float(a[index])))
    return out


def params_digest(params: Params) -> str:
    """A short fingerprint of every parameter bit: replay checks it after each event."""
    h = hashlib.sha256()
    for name in sorted(params):
        arr = np.ascontiguousarray(params[name], dtype="<f8")
        h.update(f"{name}{arr.shape}".encode())
        h.update(arr.tobytes())
    return h.hexdigest()[:16]


def edits_json(params: Params, base: Params) -> list[list[Any]]:
    return [[name, list(index), value] for name, index, value in changed_cells(params, base)]


def state_json(state: State, base: Params) -> dict[str, Any]:
    return {
        "prompt": list(state.prompt),
        "target": state.target,
        "switches": state.switches.to_dict(),
        "lr": float(state.lr),
        "edits": edits_json(state.params, base),
    }


def check_json(session: Session) -> dict[str, Any]:
    """The state an event reached; replay must reach exactly the same."""
    s = session.state
    return {
        "cursor": session.cursor,
        "step": session.step,
        "params": params_digest(s.params),
        "prompt": list(s.prompt),
        "target": s.target,
        "switches": s.switches.to_dict(),
        "lr": float(s.lr),
        "loss": session.trace.loss,
    }


def start_json(session: Session, recorded: str | None) -> dict[str, Any]:
    base = session.model.params
    return {
        "format": FORMAT,
        "recorded": recorded,
        "model": to_document(session.model),
        "history": [state_json(s, base) for s in session.history],
        "cursor": session.cursor,
        "step": session.step,
        "check": check_json(session),
    }


def event_json(seq: int, event: Event, session: Session) -> dict[str, Any]:
    doc: dict[str, Any] = {"seq": seq, "kind": event.kind, "data": _plain(event.data)}
    if event.kind not in DIRECT_KINDS:
        doc["edits"] = edits_json(session.params, session.model.params)
    doc["check"] = check_json(session)
    return doc


def _plain(value: Any) -> Any:
    """Event data as JSON values (numpy numbers and arrays become numbers and lists)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value) if isinstance(value, (set, frozenset)) else value
        return [_plain(v) for v in items]
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if np.isfinite(value) else None
    if value is None or isinstance(value, str):
        return value
    return str(value)


def dumps(doc: dict[str, Any]) -> str:
    return json.dumps(doc, ensure_ascii=False, allow_nan=False) + "\n"


# ---- the readable side --------------------------------------------------------------------------


def cell_name(name: str, index: tuple[int, ...]) -> str:
    return f"{short_name(name)}[{','.join(str(i) for i in index)}]"


def number(v: float) -> str:
    """A weight exactly as stored (repr is the shortest text that reads back to the same float)."""
    return repr(float(v))


def line(label: str, text: str) -> list[str]:
    """'label       text', wrapped to WIDTH with continuation lines under the text."""
    return textwrap.wrap(
        text,
        WIDTH,
        initial_indent=label.ljust(LABEL),
        subsequent_indent=" " * LABEL,
        break_on_hyphens=False,
    )


def weights_summary(params: Params, base: Params) -> str:
    cells = changed_cells(params, base)
    if not cells:
        return "as in the model file"
    shown = ", ".join(f"{cell_name(n, i)} = {number(v)}" for n, i, v in cells[:MAX_CELLS])
    more = f", and {len(cells) - MAX_CELLS} more" if len(cells) > MAX_CELLS else ""
    noun = "cell differs" if len(cells) == 1 else "cells differ"
    return f"{len(cells)} {noun} from the model file: {shown}{more}"


def prediction_text(trace: Trace) -> str:
    return f"{trace.prediction} (p {fmt(float(trace['probs'].max()))})"


def state_lines(session: Session) -> list[str]:
    """Where the session stands: model, prompt, target, switches, lr, weights, prediction, loss, step."""
    m, s, t = session.model, session.state, session.trace
    cfg = m.cfg
    about = (
        f"{m.name} · {m.params.total()} parameters · vocabulary {cfg.n_vocab} · d_model {cfg.d_model} · "
        f"{cfg.n_heads} heads · d_ff {cfg.d_ff} · {cfg.n_blocks} block{'s' if cfg.n_blocks > 1 else ''}"
    )
    out = line("model", about)
    out += line("prompt", " ".join(s.prompt))
    out += line("target", s.target)
    out += line("switches", s.switches.describe())
    out += line("lr", f"{s.lr:g}")
    out += line("weights", weights_summary(s.params, m.params))
    out += line("prediction", prediction_text(t))
    out += line("loss", fmt(t.loss))
    out += line("at step", f"{session.step}/{LAST} · {STAGE_BY_NUMBER[session.step].title}")
    return out


def rule(text: str) -> str:
    head = f"=== {text} "
    return head + "=" * max(3, WIDTH - len(head))


def step_text(trace: Trace, step: int) -> str:
    return plain_report(stage_report(trace, STAGE_BY_NUMBER[step]), WIDTH)


def backward_text(session: Session, step: int) -> str:
    """A step of the backward walk: its rules as run and the gradients that arrive, arise and leave."""
    stage = backward_stage_for(step, session.trace.switches)
    report = backward_report(session.gradients, stage, session.model.cfg.n_heads)
    return plain_backward_report(report, WIDTH)


def header_text(session: Session, recorded: str | None) -> str:
    out = ["tinytui session transcript", ""]
    out += state_lines(session)
    if recorded:
        out += line("recorded", recorded)
    out += line("replay", "tinytui replay <this file> (it reads the .jsonl file of the same name beside it)")
    out += ["", rule(f"start · step {session.step}/{LAST}"), step_text(session.trace, session.step)]
    return "\n".join(out) + "\n"


def headline(seq: int, event: Event, changes: int) -> str:
    """The rule line above a block; changes is how many changes the undo history holds."""
    d = event.data
    if event.kind == "step":
        walk = " · backward walk" if d.get("backward") else ""
        return f"{seq} · step {event.step}/{LAST}{walk}"
    if event.kind == "edit":
        return f"{seq} · edit {cell_name(d['param'], tuple(d['index']))} · at step {event.step}"
    if event.kind == "toggle":
        what = "switches" if d.get("switch") == "all" else switch_name(d.get("switch"), d.get("head"))
        return f"{seq} · toggle {what} · at step {event.step}"
    if event.kind in ("undo", "redo"):
        where = "back at the start" if d.get("cursor") == 0 else f"now at change {d.get('cursor')}"
        return f"{seq} · {event.kind} · {where} of {changes} · at step {event.step}"
    if event.kind == "reset":
        return f"{seq} · reset to the model file · at step {event.step}"
    if event.kind == "learn" and isinstance(d.get("steps"), int) and isinstance(d.get("lr"), float):
        noun = "step" if d["steps"] == 1 else "steps"
        return f"{seq} · learn · {d['steps']} SGD {noun} of size {d['lr']:g} · at step {event.step}"
    details = ", ".join(f"{k} {_short(v)}" for k, v in d.items() if _short(v))
    return textwrap.shorten(f"{seq} · {event.kind} {details} · at step {event.step}", WIDTH - 8)


def switch_name(switch: str | None, head: int | None) -> str:
    """A switch as the transcript and the replay status name it: "the causal mask", "head 2 ablation"."""
    names = {
        "causal_mask": "the causal mask",
        "positional_encoding": "the positional encoding",
        "activation": "the activation",
        "norm": "the norm placement",
        "residual": "the residual connections",
    }
    if switch == "ablated_heads":
        return f"head {head} ablation"
    return names.get(switch or "", str(switch))


def _short(v: Any) -> str:
    if isinstance(v, bool) or v is None:
        return ""
    if isinstance(v, (int, float, np.number)):
        return f"{float(v):g}"
    if isinstance(v, str) and len(v) <= 20:
        return v
    return ""


def change_text(seq: int, event: Event, before: State, session: Session) -> str:
    after, n_heads = session.state, session.model.cfg.n_heads
    out = ["", rule(headline(seq, event, len(session.history) - 1))]
    cells = changed_cells(after.params, before.params)
    if event.kind == "edit" and not cells:  # an edit to the value a cell already had
        cell = cell_name(event.data["param"], tuple(event.data["index"]))
        out += line("weights", f"{cell}: {number(event.data['new'])} (already its value: no change)")
    if cells:
        for name, index, value in cells[:MAX_CELLS]:
            old = before.params[name][index]
            out += line("weights", f"{cell_name(name, index)}: {number(old)} → {number(value)}")
        if len(cells) > MAX_CELLS:
            out += line("weights", f"… and {len(cells) - MAX_CELLS} more ({len(cells)} cells in all)")
    old_sw, new_sw = before.switches.labels(), after.switches.labels()
    moved = bool(cells) or old_sw != new_sw or event.kind == "edit"
    moved |= (before.prompt, before.target, before.lr) != (after.prompt, after.target, after.lr)
    if old_sw != new_sw:
        gone = [x for x in old_sw if x not in new_sw]
        came = [x for x in new_sw if x not in old_sw]
        out += line("switches", f"{', '.join(gone) or 'no ablation'} → {', '.join(came) or 'no ablation'}")
    if before.prompt != after.prompt:
        out += line("prompt", f"{' '.join(before.prompt)} → {' '.join(after.prompt)}")
    if before.target != after.target:
        out += line("target", f"{before.target} → {after.target}")
    if before.lr != after.lr:
        out += line("lr", f"{before.lr:g} → {after.lr:g}")
    if not moved:
        out += line("state", "unchanged")
    losses = event.data.get("losses") if event.kind == "learn" else None
    if isinstance(losses, list) and losses and all(isinstance(v, float) for v in losses):
        shown = losses if len(losses) <= 21 else [*losses[:10], None, losses[-1]]
        out += line("losses", " ".join("…" if v is None else fmt(v) for v in shown))
    b, a = event.before, event.after
    out += line("prediction", f"{prediction_text(b)} → {prediction_text(a)}")
    out += line("loss", f"{fmt(b.loss)} → {fmt(a.loss)} ({a.loss - b.loss:+.4f})")
    table = largest_changes(b, a, n_heads)
    out += ["", plain_table(table, WIDTH) if table.rows else "nothing in the sixteen steps changed"]
    return "\n".join(out) + "\n"


def largest_changes(before: Trace, after: Trace, n_heads: int) -> Table:
    """Per step, the one value that moved most (and how many moved): where an edit's effect went."""
    d = diff(before, after)
    rows, cells = [], []
    for stage in STAGES:
        names = [n for n in expand_names(stage.writes, n_heads) if n in d.tensors]
        moved = [d[n] for n in names if d[n].n_changed]
        if not moved:
            continue
        total = sum(after[n].size for n in names)
        changed = sum(t.n_changed for t in moved)
        big = max(moved, key=lambda t: (t.max_abs, t.n_changed))
        if big.reshaped:
            rows.append(f"{stage.number:>2}    (the prompt's length changed)")
            cells.append(("", "", "", f"{changed} of {total}"))
            continue
        flat = int(np.argmax(np.abs(big.delta)))
        index = np.unravel_index(flat, big.delta.shape) if big.delta.ndim else ()
        old, new = float(before[big.name][index]), float(after[big.name][index])
        rows.append(f"{stage.number:>2}    {_where(after, big.name, index)}")
        cells.append((fmt(old), fmt(new), f"{new - old:+.4f}", f"{changed} of {total}"))
    title = f"largest change per step ({len(rows)} of {len(STAGES)} steps changed)"
    cols = ("before", "after", "change", "values changed")
    return Table(title, "step  where", tuple(rows), cols, tuple(cells))


def _where(trace: Trace, name: str, index: tuple[int, ...]) -> str:
    axes = trace.tensor(name).axes
    if not index:
        return name
    return f"{name}[{', '.join(ax.labels[i] for ax, i in zip(axes, index))}]"


def event_text(seq: int, event: Event, before: State, session: Session) -> str:
    """One event's block; before is the state ahead of it, session holds the state after."""
    if event.kind == "step":
        rule_line = rule(headline(seq, event, len(session.history) - 1))
        body = (
            backward_text(session, event.step)
            if event.data.get("backward")
            else step_text(event.after, event.step)
        )
        return "\n".join(["", rule_line, body]) + "\n"
    return change_text(seq, event, before, session)


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
        self._texts: list[str] = []  # header, then one block per event
        self._lines: list[str] = []  # JSON lines, the same
        self._files: tuple[TextIO, TextIO] | None = None
        self._written = (0, 0)
        self._last: State | None = None
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
        if self.session is not None:
            raise RuntimeError("this recorder is already recording a session")
        if self._texts:
            raise RuntimeError("this recorder has finished a recording; make a new one")
        recorded = self.clock() if self.clock else None
        self.session = session
        self._last = session.state
        self._texts.append(header_text(session, recorded))
        self._lines.append(dumps(start_json(session, recorded)))
        session.listeners.append(self._on_event)
        self._write_pending()

    def stop(self) -> None:
        """Stop following the session, close the files; the transcript says how many events it holds."""
        if self.session is None:
            return
        self.session.listeners.remove(self._on_event)
        self.session = None
        noun = "event" if self.events == 1 else "events"
        self._texts.append("\n" + rule(f"recording stopped after {self.events} {noun}") + "\n")
        self._write_pending()
        self._close()

    def set_path(self, path: str | Path) -> str | None:
        """Write everything recorded so far to path (replacing the file) and keep appending there."""
        p = Path(path)
        if p.suffix == ".jsonl":
            return self._fail(
                f"{p}: name the transcript, e.g. {p.with_suffix('.txt').name}; "
                f"the events are written beside it as {p.name}"
            )
        if p.is_dir():
            return self._fail(f"{p} is a folder; name a file such as {p / 'lesson.txt'}")
        self._close()
        try:
            # fresh files, never through a (dangling) symbolic link planted at either name
            files = (open_for_append(p, fresh=True), open_for_append(events_path(p), fresh=True))
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
        session = self.session
        assert session is not None and self._last is not None
        self.events += 1
        after = session.state
        self._lines.append(dumps(event_json(self.events, event, session)))
        self._texts.append(event_text(self.events, event, self._last, session))
        self._last = after
        self._write_pending()

    def _write_pending(self, report: bool = True) -> None:
        if self._files is None:
            return
        text, log = self._files
        done_text, done_log = self._written
        try:
            # the log first: anything the transcript shows can then be replayed
            log.write("".join(self._lines[done_log:]))
            log.flush()
            os.fsync(log.fileno())
            text.write("".join(self._texts[done_text:]))
            text.flush()
            os.fsync(text.fileno())
        except OSError as exc:
            where, self.path = self.path, None
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
            for f in self._files:
                with contextlib.suppress(OSError):  # closing a file on a failed disk can fail too
                    f.close()
        self._files = None
