"""The session log (lesson.jsonl) both ways: what the recorder writes and what replay accepts.

Line 1 is the start (the whole model file, or a GPT-2 checkpoint's folder and sha256: see
tinytui.recorded_model; the undo history, the cursor, the step, a check of the state); then one object
per event: {"seq", "kind", "data", ["edits",] "check"}. Each kind's data is described once, in KINDS:
the fields it has, which may be missing, and the decoder that checks every one of them. The encoder
writes only those fields, so anything the recorder writes, replay reads back.

Decoding never trusts the file: numbers are bounded before Python turns them into ints, NaN and
Infinity are refused, strings that could reach a transcript carry no control characters, and every
problem is one BadLine whose text names the field (the reader adds the file and the line).
Floats are written with repr (json's way), so every value round-trips bit for bit.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tinytui.log_values import (
    BadLine,
    bits,
    boolean,
    cell_index,
    checked,
    edited,
    integer,
    keys,
    learning_rate,
    number,
    param,
    plain,
    shown,
    switches_of,
    token,
    tokens,
)
from tinytui.model import ModelFile, Params, checks
from tinytui.model.names import label
from tinytui.model.stages import FIRST, LAST
from tinytui.model.switches import NAMES
from tinytui.recorded_model import model_from_json, model_json
from tinytui.session import WALK_FIRST, WALK_LAST, Event, Mode, Session, State
from tinytui.state_digest import is_legacy_digest, legacy_params_digest, params_digest

FORMAT = "tinytui-session/1"
MAX_EVENTS = 50_000  # hours of clicking; replay re-runs each one, so a bound keeps loading finite
SWITCH_NAMES = NAMES


@dataclass(frozen=True)
class Recorded:
    """One validated event from the log."""

    line: int
    seq: int
    kind: str
    data: dict[str, Any]  # checked and normalised: only the fields KINDS lists
    params: Params | None  # the parameters a learn event set; None for the other kinds
    check: dict[str, Any]  # the state the recorder saw after it


@dataclass(frozen=True)
class Start:
    """The decoded first line: where the recording began."""

    model: ModelFile
    history: tuple[State, ...]
    cursor: int
    step: int
    mode: Mode
    recorded: str | None
    check: Any
    block: int = 0  # the block of a block step (0-based); recordings of one-block models leave it out


# ---- encoding -----------------------------------------------------------------------------------


def changed_cells(params: Params, base: Params) -> list[tuple[str, tuple[int, ...], float]]:
    """(name, index, value) where params differ from base bit for bit (so −0.0 vs 0.0 counts)."""
    out = []
    for name in params:
        a, b = params[name], base[name]
        if a is b:  # shared, unchanged (Params never copies an array it does not change)
            continue
        for idx in np.argwhere(a.view(np.int64) != b.view(np.int64)):
            index = tuple(int(i) for i in idx)
            out.append((name, index, float(a[index])))
    return out


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
        "model": model_json(session.model),  # a checkpoint: its folder and sha256, not its weights
        "history": [state_json(s, base) for s in session.history],
        "cursor": session.cursor,
        "step": session.step,
        **({"block": session.block} if session.model.cfg.n_blocks > 1 else {}),
        "mode": {"backward": session.mode.backward, "gradients": session.mode.gradients},
        "check": check_json(session),
    }


def event_json(seq: int, event: Event, session: Session) -> dict[str, Any]:
    """One event as the log holds it; session is where the event left it."""
    spec = KINDS.get(event.kind)
    data = event.data if spec is None else {k: v for k, v in event.data.items() if k in spec.fields}
    doc: dict[str, Any] = {"seq": seq, "kind": event.kind, "data": _plain(data)}
    if spec is None or spec.carries_params:
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


# ---- decoding the start -------------------------------------------------------------------------

START_KEYS = ("format", "recorded", "model", "history", "cursor", "step", "block", "mode", "check")


def decode_start(head: Any) -> Start:
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        raise BadLine(f"not a tinytui session (the first line should be a {FORMAT} object)")
    keys(head, START_KEYS, ("recorded", "block", "mode"), "the start")  # older files have no mode, block
    model = model_from_json(head["model"])
    history = head["history"]
    if not isinstance(history, list) or not history:
        raise BadLine("history: expected a non-empty list of states")
    if len(history) > MAX_EVENTS:
        raise BadLine(f"history: {len(history)} states is more than the {MAX_EVENTS} replay holds")
    states = tuple(_state(s, model, f"history[{i}]") for i, s in enumerate(history))
    cursor = integer(head["cursor"], "cursor", 0, len(states) - 1)
    step = integer(head["step"], "step", FIRST, LAST)
    mode = Mode()
    if "mode" in head:
        if not isinstance(head["mode"], dict):
            raise BadLine("mode: expected an object")
        keys(head["mode"], ("backward", "gradients"), (), "mode")
        mode = Mode(**_mode(head["mode"], model))
        if mode.backward and not WALK_LAST <= step <= WALK_FIRST:
            raise BadLine(f"mode: the backward walk has no step {step} ({WALK_LAST}–{WALK_FIRST})")
    recorded = head.get("recorded")
    if recorded is not None:
        recorded = plain(recorded, "recorded")
    block = integer(head.get("block", 0), "block", 0, model.cfg.n_blocks - 1)
    return Start(model, states, cursor, step, mode, recorded, head["check"], block)


def _state(doc: Any, model: ModelFile, where: str) -> State:
    if not isinstance(doc, dict):
        raise BadLine(f"{where}: expected an object")
    keys(doc, ("prompt", "target", "switches", "lr", "edits"), (), where)
    cfg = model.cfg
    prompt = tokens(doc["prompt"], model, f"{where}.prompt")
    target = token(doc["target"], model, f"{where}.target")
    switches = switches_of(doc["switches"], model, f"{where}.switches")
    lr = number(doc["lr"], f"{where}.lr")
    params = edited(model.params, doc["edits"], f"{where}.edits")
    if not 1 <= len(prompt) <= cfg.n_ctx:
        raise BadLine(f"{where}.prompt: needs 1 to {cfg.n_ctx} tokens, has {len(prompt)}")
    return State(params, prompt, target, switches, lr)


# ---- decoding events ----------------------------------------------------------------------------

Decoder = Callable[[dict[str, Any], ModelFile], dict[str, Any]]


@dataclass(frozen=True)
class Kind:
    """One event kind in the log: its data's fields (in the order written), which of them old or
    hand-made files may leave out, the decoder that checks them all, and whether the event carries
    the parameters it set (as edits against the model file)."""

    fields: tuple[str, ...]
    optional: tuple[str, ...]
    decode: Decoder
    carries_params: bool = False


def _step(d: dict[str, Any], model: ModelFile) -> dict[str, Any]:
    backward = boolean(d.get("backward", False), "step: backward")
    lo, hi = (WALK_LAST, WALK_FIRST) if backward else (FIRST, LAST)
    step = integer(d["step"], "step", lo, hi)
    out: dict[str, Any] = {"step": step}
    if "block" in d:  # models of several blocks: which block's step (0-based)
        out["block"] = integer(d["block"], "step: block", 0, model.cfg.n_blocks - 1)
    return {**out, "backward": True} if backward else out


def _mode(d: dict[str, Any], model: ModelFile) -> dict[str, Any]:
    return {
        "backward": boolean(d["backward"], "mode: backward"),
        "gradients": boolean(d["gradients"], "mode: gradients"),
    }


def _edit(d: dict[str, Any], model: ModelFile) -> dict[str, Any]:
    name = param(d["param"], model.params, "edit")
    if "label" in d:
        plain(d["label"], "edit: label")  # recomputed below; a wrong type is still a bad file
    index = cell_index(d["index"], model.params[name].shape, label(name), "edit")
    old, new = number(d["old"], "edit: old"), number(d["new"], "edit: new")
    return {"param": name, "label": label(name), "index": list(index), "old": old, "new": new}


def _toggle(d: dict[str, Any], model: ModelFile) -> dict[str, Any]:
    switch = d["switch"]
    if switch != "all" and switch not in SWITCH_NAMES:
        raise BadLine(f"toggle: switch: {shown(switch)} is not a switch (known: {', '.join(SWITCH_NAMES)})")
    out: dict[str, Any] = {"switch": switch, "head": None}
    head = d.get("head")
    if switch == "ablated_heads" or (switch != "all" and head is not None):
        out["head"] = integer(head, "toggle: head", 1, model.cfg.n_heads)
    elif head is not None:
        raise BadLine(f"toggle: head: expected null when all switches are set, got {shown(head)}")
    if switch == "all" and "switches" not in d:
        raise BadLine("toggle: switches: missing (the switches it set)")
    if "switches" in d:
        out["switches"] = switches_of(d["switches"], model, "toggle: switches")
    if "now" in d:
        out["now"] = plain(d["now"], "toggle: now")
    return out


def _prompt(d: dict[str, Any], model: ModelFile) -> dict[str, Any]:
    out = {"new": list(tokens(d["new"], model, "prompt: new"))}
    if "old" in d:
        out["old"] = list(tokens(d["old"], model, "prompt: old"))
    return out


def _target(d: dict[str, Any], model: ModelFile) -> dict[str, Any]:
    out = {"new": token(d["new"], model, "target: new")}
    if "old" in d:
        out["old"] = token(d["old"], model, "target: old")
    return out


def _lr(d: dict[str, Any], model: ModelFile) -> dict[str, Any]:
    out = {"new": learning_rate(d["new"], "lr: new")}
    if "old" in d:
        out["old"] = learning_rate(d["old"], "lr: old")
    return out


def _cursor(kind: str) -> Decoder:
    def decode(d: dict[str, Any], model: ModelFile) -> dict[str, Any]:
        return {"cursor": integer(d["cursor"], f"{kind}: cursor", 0, 2 * MAX_EVENTS)}

    return decode


def _nothing(d: dict[str, Any], model: ModelFile) -> dict[str, Any]:
    return {}


def _learn(d: dict[str, Any], model: ModelFile) -> dict[str, Any]:
    """All of it is shown (status line, transcript, loss curve), so all of it is checked."""
    lr = learning_rate(d["lr"], "learn: lr")
    if isinstance(d["steps"], bool) or not isinstance(d["steps"], int):
        raise BadLine(f"learn: steps: expected a whole number, got {shown(d['steps'])}")
    steps = checked(checks.steps, d["steps"], "learn: steps")
    loss_old, loss_new = number(d["loss_old"], "learn: loss_old"), number(d["loss_new"], "learn: loss_new")
    losses = d["losses"]
    if not isinstance(losses, list) or len(losses) != steps + 1:
        raise BadLine(f"learn: losses: expected a list of {steps + 1} losses (before, then each step)")
    losses = [number(v, f"learn: losses[{i}]") for i, v in enumerate(losses)]
    if bits(losses[0]) != bits(loss_old) or bits(losses[-1]) != bits(loss_new):
        raise BadLine("learn: losses: the first and last must be loss_old and loss_new")
    return {"lr": lr, "steps": steps, "loss_old": loss_old, "loss_new": loss_new, "losses": losses}


# Every kind a Session emits; replay re-applies each through the matching Session call.
KINDS: dict[str, Kind] = {
    "step": Kind(("step", "block", "backward"), ("block", "backward"), _step),
    "mode": Kind(("backward", "gradients"), (), _mode),
    "edit": Kind(("param", "label", "index", "old", "new"), ("label",), _edit),
    "toggle": Kind(("switch", "head", "switches", "now"), ("head", "switches", "now"), _toggle),
    "prompt": Kind(("old", "new"), ("old",), _prompt),
    "target": Kind(("old", "new"), ("old",), _target),
    "lr": Kind(("old", "new"), ("old",), _lr),
    "undo": Kind(("cursor",), (), _cursor("undo")),
    "redo": Kind(("cursor",), (), _cursor("redo")),
    "reset": Kind((), (), _nothing),
    "learn": Kind(("lr", "steps", "loss_old", "loss_new", "losses"), (), _learn, carries_params=True),
}


def decode_event(doc: Any, line: int, seq: int, model: ModelFile) -> Recorded:
    """Line `line` of the log, which should hold event number seq."""
    if not isinstance(doc, dict):
        raise BadLine("expected an event object")
    keys(doc, ("seq", "kind", "data", "check", "edits"), ("edits",), "event")
    got = doc["seq"]
    if got != seq or isinstance(got, bool):
        raise BadLine(f"event {shown(got)} where event {seq} should be: a line is missing or out of order")
    kind = doc["kind"]
    spec = KINDS.get(kind) if isinstance(kind, str) else None
    if spec is None:
        raise BadLine(f"unknown event kind {shown(kind)} (known: {', '.join(KINDS)})")
    data = doc["data"]
    if not isinstance(data, dict) or not isinstance(doc["check"], dict):
        raise BadLine(f"{kind}: data and check must be objects")
    keys(data, spec.fields, spec.optional, kind)
    params = None
    if spec.carries_params:
        if "edits" not in doc:
            raise BadLine(f"{kind}: edits: missing (the parameters it set)")
        params = edited(model.params, doc["edits"], f"{kind}: edits")
    elif "edits" in doc:
        raise BadLine(f"{kind}: edits: unknown key (only {', '.join(_params_kinds())} carry edits)")
    return Recorded(line, seq, kind, spec.decode(data, model), params, doc["check"])


def _params_kinds() -> list[str]:
    return [k for k, spec in KINDS.items() if spec.carries_params]


def compare_check(check: Any, session: Session, what: str) -> None:
    """The state the session reached must be the one recorded, bit for bit."""
    if not isinstance(check, dict):
        raise BadLine(f"{what}: check: expected an object")
    now = check_json(session)
    if is_legacy_digest(check.get("params")):  # recorded before DIGEST: compare in its own format
        now["params"] = legacy_params_digest(session.params)
    for key, value in now.items():
        if key not in check:
            raise BadLine(f"{what}: check: {key}: missing")
        recorded = check[key]
        if isinstance(value, float) and isinstance(recorded, (int, float)) and not isinstance(recorded, bool):
            same = bits(value) == bits(float(recorded))
        else:
            same = type(recorded) is type(value) and recorded == value
        if not same:
            raise BadLine(f"replaying {what} does not reach the recorded state ({key} is different)")
