"""One recorded event re-applied to a session through the same Session call the user made, and said in
words (a status bar's line, or why an event changed nothing)."""

from __future__ import annotations

from tinytui.recording.event_kinds import Recorded
from tinytui.recording.log_values import BadLine, bits
from tinytui.recording.transcript_changes import switch_name
from tinytui.recording.transcript_lines import cell_name, number
from tinytui.session.session import Session
from tinytui.session.state import Event, Refused


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
    caught: list[Event] = []
    session.listeners.append(caught.append)
    try:
        _apply(session, rec)
    except Refused as exc:
        raise BadLine(f"{rec.kind}: {exc}") from None
    finally:
        session.listeners.remove(caught.append)
    if not caught:
        raise BadLine(f"{rec.kind}: {_why_nothing(session, rec)}")
    return caught[-1]


def _why_nothing(session: Session, rec: Recorded) -> str:
    d = rec.data
    if rec.kind == "step":
        return f"the session is already at {_where(d)}"
    if rec.kind == "mode" and d["backward"] and not session.mode.backward:
        return f"the backward walk cannot be entered at step {session.step}"
    if rec.kind == "mode":
        return "the view is already like that"
    if rec.kind in ("undo", "redo"):
        return f"there is nothing to {rec.kind} at this point"
    return "nothing happened"


def _apply(session: Session, rec: Recorded) -> None:
    d = rec.data
    if rec.kind == "step":
        # enters or leaves the walk; a recording without a block (one block, or older) means block 1
        session.goto(d["step"], backward=d.get("backward", False), block=d.get("block", 0))
    elif rec.kind == "mode":
        session.set_mode(backward=d["backward"], gradients=d["gradients"])
    elif rec.kind == "edit":
        current = float(session.params[d["param"]][tuple(d["index"])])
        if bits(current) != bits(d["old"]):
            cell = cell_name(session.params, d["param"], d["index"])
            raise Refused(f"the recording says {cell} was {number(d['old'])}, here it is {number(current)}")
        session.edit(d["param"], tuple(d["index"]), d["new"])
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
        assert rec.kind == "learn" and rec.params is not None
        session.set_params(rec.params, rec.kind, dict(d))


def _where(d: dict) -> str:
    """A step event's step: 'step 8', or 'block 2 · step 8' when it names a block."""
    return f"block {d['block'] + 1} · step {d['step']}" if "block" in d else f"step {d['step']}"


def describe_event(rec: Recorded, params=None) -> str:
    """One event in words; given the model's params, a cell is named as the app does (W_O[h1.k0, thing])."""
    d = rec.data
    if rec.kind == "step":
        return f"backward walk to {_where(d)}" if d.get("backward") else f"go to {_where(d)}"
    if rec.kind == "mode":
        view = "the backward walk" if d["backward"] else "the forward pass"
        return f"show {view}, ∂L/∂w {'shown' if d['gradients'] else 'hidden'}"
    if rec.kind == "edit":
        plain = f"{d['label']}[{','.join(str(i) for i in d['index'])}]"
        where = cell_name(params, d["param"], d["index"]) if params is not None else plain
        return f"edit {where}: {number(d['old'])} → {number(d['new'])}"
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
