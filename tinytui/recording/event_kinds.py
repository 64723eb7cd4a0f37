"""The event kinds of the session log (lesson.jsonl): what each event line's data holds, and decoding it.

KINDS describes each kind once: its data's fields (the encoder in tinytui.recording.event_log writes only
these), which of them older or hand-made files may leave out, and the decoder that checks every one of them.
decode_event() checks one event line against the recorded model; like the rest of the log's decoding
it trusts nothing in the file and raises one BadLine naming the field.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tinytui.model import checks
from tinytui.model.io.document import ModelFile
from tinytui.model.names import label
from tinytui.model.params import Params
from tinytui.model.stages import FIRST, LAST
from tinytui.model.switches import NAMES
from tinytui.recording.log_values import (
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
from tinytui.session.state import WALK_FIRST, WALK_LAST

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


def decode_mode(d: dict[str, Any], model: ModelFile) -> dict[str, Any]:
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
    "mode": Kind(("backward", "gradients"), (), decode_mode),
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
