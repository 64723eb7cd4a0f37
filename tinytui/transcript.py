"""The transcript's text: what a person reads in lesson.txt (the recorder writes it, replay prints it).

A header (model, prompt, target, switches, the current step), then one block per event, headed by a
sentence saying what happened: a step's title, equation, tables and the weights it uses; for a change
(edit, toggle, prompt, target, undo, redo, reset, learn) what moved — weights, switches, prediction and
loss old → new, the largest change in each step; for a change of view (mode) what is now shown. Names
are the ones people read (tinytui.display_names: x′, h_pre, MHA, W_O[h1.k0, thing]) and numbers have
the app's 4 decimals; the exact values are in the event data.

Each block ends with its event's data: the same JSON object as the .jsonl line, on lines starting with
DATA ("#| ", a record's first line) or MORE ("#|+", its continuation), each with a CRC-32 of its part,
so the transcript alone replays (read_data() gets the records back) and an edited line is named.
Plain text only, every line at most WIDTH columns, so it diffs cleanly.
"""

from __future__ import annotations

import json
import textwrap
import zlib
from typing import Any

import numpy as np

from tinytui.display_names import cell, display
from tinytui.event_log import changed_cells
from tinytui.log_values import BadLine
from tinytui.model import STAGE_BY_NUMBER, Params, Trace, diff, names, steps
from tinytui.model.backward import backward_stage_for
from tinytui.model.stages import LAST
from tinytui.model.switches import WORDS
from tinytui.render import plain_backward_report, plain_report, plain_table
from tinytui.report import Table, backward_report, fmt, stage_report
from tinytui.report_window import picks_of
from tinytui.session import Event, Mode, Session, State

WIDTH = 100
LABEL = 12  # the width of the "prediction  " column in header and change lines
MAX_CELLS = 8  # weight changes listed one by one; beyond this, a count (a learning step moves all 172)


def cell_name(params: Params, name: str, index: tuple[int, ...] | list[int]) -> str:
    """A weight cell as the app labels it: W_O[h1.k0, thing]."""
    full = names.canonical(name)
    shape = params[full].shape if full in params else ()
    return cell(params.cfg, full, index, shape)


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
    shown = ", ".join(f"{cell_name(params, n, i)} = {fmt(v)}" for n, i, v in cells[:MAX_CELLS])
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
    where = steps.of_all(session.here, session.model.cfg.n_blocks, "/").removeprefix("Step ")
    out += line("at step", f"{where} · {STAGE_BY_NUMBER[session.step].title}")
    return out


def rule(text: str) -> str:
    """A heading line: '=== text ====…', never wider than WIDTH (a long text is shortened with …)."""
    if len(text) > WIDTH - 8:
        text = text[: WIDTH - 9] + "…"
    head = f"=== {text} "
    return head + "=" * max(3, WIDTH - len(head))


def step_text(trace: Trace, step: int, params: Params | None = None, block: int | None = None) -> str:
    """A step as text (a block's step: of that block, 0-based); given the run's params, the weights it
    uses are printed under its tables."""
    return plain_report(stage_report(trace, STAGE_BY_NUMBER[step], params, block or 0), WIDTH)


def backward_text(session: Session, step: int, block: int | None = None) -> str:
    """A step of the backward walk: its rules as run and the gradients that arrive, arise and leave."""
    stage = backward_stage_for(step, session.trace.switches, session.trace.cfg)
    picks = picks_of(session.trace)  # a big gradient (GPT-2's ∂L/∂E) is shown in part
    report = backward_report(session.gradients, stage, session.model.cfg.n_heads, block or 0, picks)
    return plain_backward_report(report, WIDTH)


def header_text(session: Session, recorded: str | None) -> str:
    out = ["tinytui session transcript", ""]
    out += state_lines(session)
    if recorded:
        out += line("recorded", recorded)
    where = "its #| lines hold the events, as does the .jsonl beside it"
    out += line("replay", f"tinytui replay <this file> ({where})")
    mode, step, block = session.mode, session.step, session.here.block
    if mode != Mode():  # only then: a recording started in the usual view reads as it always did
        shown = ["in the backward walk"] * mode.backward + ["∂L/∂w shown beside the weights"] * mode.gradients
        out += line("view", " · ".join(shown))
    if mode.backward:
        body = backward_text(session, step, block)
    else:
        body = step_text(session.trace, step, session.params, block)
    walk = " in the backward walk" if mode.backward else ""
    title = STAGE_BY_NUMBER[step].title
    where = _at(session.model.cfg.n_blocks, step, block)
    out += ["", rule(f"start: the recording begins at {where}{walk}, {title}"), body]
    return "\n".join(out) + "\n"


def _at(n_blocks: int, step: int, block: int | None, of_all: bool = True) -> str:
    """'step 8/16' (or 'step 8'); 'block 2 · step 8/16' for a block's step of a model with several."""
    where = steps.Step(step, block)
    text = steps.heading(where, n_blocks)
    return text + f"/{LAST}" if of_all else text


def headline(seq: int, event: Event, session: Session) -> str:
    """The heading above a block: a sentence saying what happened (session: where it left things)."""
    n_blocks = session.model.cfg.n_blocks
    d, at, params = event.data, f"(at {_at(n_blocks, event.step, event.block, False)})", session.params
    if event.kind == "step":
        title = STAGE_BY_NUMBER[event.step].title
        where = _at(n_blocks, event.step, event.block)
        if d.get("backward"):
            return f"{seq} · {where}: the backward walk moved to {title}"
        return f"{seq} · {where}: moved to {title}"
    if event.kind == "edit":
        cell_ = cell_name(params, d["param"], tuple(d["index"]))
        return f"{seq} · edit: {cell_} set from {fmt(d['old'])} to {fmt(d['new'])} {at}"
    if event.kind == "toggle":
        if d.get("switch") == "all":
            return f"{seq} · switches set: {session.state.switches.describe()} {at}"
        return f"{seq} · toggle {switch_name(d.get('switch'), d.get('head'))}: now {_now(event)} {at}"
    if event.kind in ("undo", "redo") and isinstance(d.get("cursor"), int):
        c, history = d["cursor"], session.history
        if event.kind == "undo" and c + 1 < len(history):
            return f"{seq} · undo: back to before {change_words(history[c], history[c + 1])} {at}"
        if event.kind == "redo" and c >= 1:
            return f"{seq} · redo: {change_words(history[c - 1], history[c])} made again {at}"
    if event.kind == "reset":
        return f"{seq} · reset: every weight and switch back to the model file {at}"
    if event.kind == "learn" and isinstance(d.get("steps"), int) and isinstance(d.get("lr"), float):
        noun = "step" if d["steps"] == 1 else "steps"
        return f"{seq} · learn: {d['steps']} SGD {noun} of size {d['lr']:g} on all weights {at}"
    if event.kind == "prompt":
        return f"{seq} · prompt changed to “{' '.join(session.state.prompt)}” {at}"
    if event.kind == "target":
        return f"{seq} · target changed to {session.state.target} {at}"
    if event.kind == "lr":
        return f"{seq} · learning rate changed to {session.state.lr:g} {at}"
    details = ", ".join(f"{k} {_short(v)}" for k, v in d.items() if _short(v))
    return textwrap.shorten(f"{seq} · {event.kind} {details} {at}", WIDTH - 8)


def _now(event: Event) -> str:
    """What a toggle switched on: the labels its switches have now that they did not before."""
    old, new = event.before.switches.labels(), event.after.switches.labels()
    came = [x for x in new if x not in old]
    return ", ".join(came) or "no ablation"


def change_words(before: State, after: State) -> str:
    """A change between two states of the undo history in words: "the edit of W_O[h1.k0, thing]"."""
    parts = []
    cells = changed_cells(after.params, before.params)
    if len(cells) == 1:
        parts.append(f"the edit of {cell_name(after.params, cells[0][0], cells[0][1])}")
    elif cells:
        parts.append(f"the change of {len(cells)} weights")
    old_sw, new_sw = before.switches.labels(), after.switches.labels()
    if old_sw != new_sw:
        came = [x for x in new_sw if x not in old_sw]
        parts.append(f"the switch to {', '.join(came) or 'no ablation'}")
    for what, a, b in (
        ("prompt", before.prompt, after.prompt),
        ("target", before.target, after.target),
        ("learning rate", before.lr, after.lr),
    ):
        if a != b:
            parts.append(f"the {what} change")
    return " and ".join(parts) or "a change that changed nothing"


def switch_name(switch: str | None, head: int | None) -> str:
    """A switch as the transcript and the replay status name it: "the causal mask", "head 2 ablation"."""
    if switch == "ablated_heads":
        return f"head {head} ablation"
    return WORDS.get(switch or "", str(switch))


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
    out = ["", rule(headline(seq, event, session))]
    cells = changed_cells(after.params, before.params)
    if event.kind == "edit" and not cells:  # an edit to the value a cell already had
        cell_ = cell_name(after.params, event.data["param"], tuple(event.data["index"]))
        out += line("weights", f"{cell_}: {fmt(event.data['new'])} (already its value: no change)")
    if cells:
        for name, index, value in cells[:MAX_CELLS]:
            old = float(before.params[name][index])
            out += line("weights", f"{cell_name(after.params, name, index)}: {fmt(old)} → {fmt(value)}")
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
    n_blocks = after.cfg.n_blocks
    path = steps.forward(n_blocks)
    for step in path:
        number = steps.short(step, n_blocks)  # "8", or "2·8" for block 2's step 8
        written = [n for n in steps.resolve(step.stage.writes, n_heads, step, n_blocks) if n in d.tensors]
        moved = [d[n] for n in written if d[n].n_changed]
        if not moved:
            continue
        total = sum(after[n].size for n in written)
        changed = sum(t.n_changed for t in moved)
        big = max(moved, key=lambda t: (t.max_abs, t.n_changed))
        if big.reshaped:
            rows.append(f"{number:>2}    (the prompt's length changed)")
            cells.append(("", "", "", f"{changed} of {total}"))
            continue
        flat = int(np.argmax(np.abs(big.delta)))
        index = np.unravel_index(flat, big.delta.shape) if big.delta.ndim else ()
        old, new = float(before[big.name][index]), float(after[big.name][index])
        rows.append(f"{number:>2}    {_where(after, big.name, index)}")
        cells.append((fmt(old), fmt(new), f"{new - old:+.4f}", f"{changed} of {total}"))
    title = f"largest change per step ({len(rows)} of {len(path)} steps changed)"
    cols = ("before", "after", "change", "values changed")
    return Table(title, "step  where", tuple(rows), cols, tuple(cells))


def _where(trace: Trace, name: str, index: tuple[int, ...]) -> str:
    axes = trace.tensor(name).axes
    shown = display(name, trace.cfg.n_blocks)
    if not index:
        return shown
    return f"{shown}[{', '.join(ax.labels[i] for ax, i in zip(axes, index))}]"


def mode_words(was: Mode, now: Mode, step: int) -> str:
    """A change of view in words: "entered the backward walk at step 9", "∂L/∂w hidden (at step 9)"."""
    parts = []
    if now.backward != was.backward:
        parts.append(f"{'entered' if now.backward else 'left'} the backward walk at step {step}")
    if now.gradients != was.gradients:
        parts.append("∂L/∂w now shown beside the weights" if now.gradients else "∂L/∂w now hidden")
    words = " and ".join(parts)
    return words if now.backward != was.backward else f"{words} (at step {step})"


def mode_text(seq: int, event: Event, was: Mode, session: Session) -> str:
    """A mode event's block: its words, then the step as it is now shown if the walk was entered or left."""
    now = Mode(bool(event.data.get("backward")), bool(event.data.get("gradients")))
    out = ["", rule(f"{seq} · view: {mode_words(was, now, event.step)}")]
    if now.backward != was.backward:
        forward = step_text(event.after, event.step, session.params, event.block)
        out.append(backward_text(session, event.step, event.block) if now.backward else forward)
    return "\n".join(out) + "\n"


def event_text(seq: int, event: Event, before: State, session: Session, was: Mode | None = None) -> str:
    """One event's block; before is the state ahead of it (was: the mode), session holds the state after."""
    if event.kind == "mode":
        return mode_text(seq, event, was or Mode(), session)
    if event.kind == "step":
        rule_line = rule(headline(seq, event, session))
        body = (
            backward_text(session, event.step, event.block)
            if event.data.get("backward")
            else step_text(event.after, event.step, session.params, event.block)
        )
        return "\n".join(["", rule_line, body]) + "\n"
    return change_text(seq, event, before, session)


# ---- the event data the transcript carries ------------------------------------------------------

DATA = "#| "  # the first line of a record
MORE = "#|+"  # a record's later lines
EDITED = "this line of event data was changed after it was recorded (its checksum does not match)"
CHUNK = WIDTH - len(DATA) - 9  # the JSON on one line: after the marker, 8 hex digits and a space


def data_lines(doc: dict[str, Any]) -> str:
    """An event-log record as transcript lines: ASCII JSON (so no escape code, one column a character)
    cut into parts that fit WIDTH, each line marker + CRC-32 of its part + the part. A part never ends
    with a space, so an editor that trims trailing blanks changes nothing."""
    text = json.dumps(doc, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    out, start = [], 0
    while start < len(text):
        end = min(start + CHUNK, len(text))
        while end < len(text) and end - start > 1 and text[end - 1] == " ":
            end -= 1
        part = text[start:end]
        out.append(f"{DATA if not out else MORE}{zlib.crc32(part.encode()):08x} {part}")
        start = end
    return "\n" + "\n".join(out) + "\n"


class DataLineError(BadLine):
    """A line of a transcript's event data that cannot be read; .line is its number (from 1)."""

    def __init__(self, line: int, message: str):
        super().__init__(message)
        self.line = line


def has_data(lines: list[str]) -> bool:
    return any(raw.startswith(DATA) for raw in lines)


def read_data(lines: list[str]) -> list[tuple[int, str]]:
    """The records a transcript carries: (line number of its first line, its JSON text), in order.
    A line whose part does not match its checksum raises DataLineError naming it (line numbers from
    1); so does a continuation with no record before it. Lines without a marker are the text: skipped."""
    records: list[tuple[int, list[str]]] = []
    previous = False  # whether the line before was event data
    for n, raw in enumerate(lines, start=1):
        first = raw.startswith(DATA)
        if not first and not raw.startswith(MORE):
            previous = False
            continue
        crc, part = raw[3:11], raw[12:]
        if raw[11:12] != " " or crc != f"{zlib.crc32(part.encode()):08x}":
            raise DataLineError(n, EDITED)
        if first:
            records.append((n, [part]))
        elif previous:
            records[-1][1].append(part)
        else:
            raise DataLineError(n, "this event data line continues no record (a line before it is missing)")
        previous = True
    return [(n, "".join(parts)) for n, parts in records]
