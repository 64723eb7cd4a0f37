"""What the transcript says about an event: the headline above its block (a sentence for every kind),
and for a change (edit, toggle, prompt, target, lr, undo, redo, reset, learn) the block of what moved:
weights, switches, prediction and loss old → new, and the largest change in each step.
"""

from __future__ import annotations

import textwrap
from typing import Any

import numpy as np

from tinytui.model import step_path
from tinytui.model.diff import diff
from tinytui.model.stages import STAGE_BY_NUMBER
from tinytui.model.switches import WORDS
from tinytui.model.trace import Trace
from tinytui.recording.event_log import changed_cells
from tinytui.recording.transcript_lines import (
    MAX_CELLS,
    WIDTH,
    cell_name,
    line,
    prediction_text,
    rule,
    step_heading,
)
from tinytui.report.display_names import display
from tinytui.report.render import plain_table
from tinytui.report.tables import Table, fmt
from tinytui.session.session import Session
from tinytui.session.state import Event, State


def headline(seq: int, event: Event, session: Session) -> str:
    """The heading above a block: a sentence saying what happened (session: where it left things)."""
    n_blocks = session.model.cfg.n_blocks
    d, params = event.data, session.params
    at = f"(at {step_heading(n_blocks, event.step, event.block, False)})"
    if event.kind == "step":
        title = STAGE_BY_NUMBER[event.step].title
        where = step_heading(n_blocks, event.step, event.block)
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
    path = step_path.forward(n_blocks)
    for step in path:
        number = step_path.short(step, n_blocks)  # "8", or "2·8" for block 2's step 8
        written = [n for n in step_path.resolve(step.stage.writes, n_heads, step, n_blocks) if n in d.tensors]
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
