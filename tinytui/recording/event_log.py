"""The session log (lesson.jsonl) both ways: what the recorder writes and what replay accepts.

Line 1 is the start (the whole model file, or a GPT-2 checkpoint's folder and sha256: see
tinytui.recording.recorded_model; the undo history, the cursor, the step, a check of the state); then one
object per event: {"seq", "kind", "data", ["edits",] "check"}. Each kind's data is defined once, in KINDS
(tinytui.recording.event_kinds): the fields it has, which may be missing, its encoder, which writes only
those fields, and its decoder, which checks every one of them, so anything the recorder writes, replay
reads back. This module holds the event line's frame, the start line both ways and the check that a
replayed event reached the recorded state.

Decoding never trusts the file: numbers are bounded before Python turns them into ints, NaN and
Infinity are refused, strings that could reach a transcript carry no control characters, and every
problem is one BadLine whose text names the field (the reader adds the file and the line).
Floats are written with repr (json's way), so every value round-trips bit for bit.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from tinytui.lesson.stages import FIRST, LAST
from tinytui.model.generation.sampling import Sampling
from tinytui.model.io.document import ModelFile
from tinytui.model.params import Params
from tinytui.recording.cell_changes import changed_cells
from tinytui.recording.event_kinds import KINDS, MAX_EVENTS, decode_mode, decode_sampling
from tinytui.recording.log_values import (
    COMPUTED_TOLERANCE,
    BadLine,
    bits,
    computed_close,
    edited,
    integer,
    keys,
    number,
    plain,
    switches_of,
    token,
    tokens,
)
from tinytui.recording.recorded_model import model_from_json, model_json
from tinytui.recording.state_digest import Digests, is_legacy_digest, legacy_params_digest
from tinytui.session.session import Session
from tinytui.session.state import WALK_FIRST, WALK_LAST, Event, Kind, Mode, State

FORMAT = "tinytui-session/1"


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
    sampling: Sampling = field(default_factory=Sampling)  # how the next token was chosen (greedy: left out)


# ---- encoding -----------------------------------------------------------------------------------


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


def check_json(session: Session, digests: Digests) -> dict[str, Any]:
    """The state an event reached; replay must reach exactly the same."""
    s = session.state
    return {
        "cursor": session.cursor,
        "step": session.step,
        "params": digests.of(s.params),
        "prompt": list(s.prompt),
        "target": s.target,
        "switches": s.switches.to_dict(),
        "lr": float(s.lr),
        "loss": session.trace.loss,
    }


def start_json(session: Session, recorded: str | None, digests: Digests) -> dict[str, Any]:
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
        **({"sampling": asdict(session.sampling)} if session.sampling != Sampling() else {}),
        "check": check_json(session, digests),
    }


def event_json(seq: int, event: Event, session: Session, digests: Digests) -> dict[str, Any]:
    """One event as the log holds it; session is where the event left it."""
    spec = KINDS[event.kind]
    doc: dict[str, Any] = {"seq": seq, "kind": str(event.kind), "data": spec.encode(event.data)}
    if spec.carries_params:
        doc["edits"] = edits_json(session.params, session.model.params)
    doc["check"] = check_json(session, digests)
    return doc


def dumps(doc: dict[str, Any]) -> str:
    return json.dumps(doc, ensure_ascii=False, allow_nan=False) + "\n"


# ---- decoding the start -------------------------------------------------------------------------

START_KEYS = (
    "format", "recorded", "model", "history", "cursor", "step", "block", "mode", "sampling", "check",
)  # fmt: skip


def decode_start(head: Any) -> Start:
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        raise BadLine(f"not a tinytui session (the first line should be a {FORMAT} object)")
    # older files have no mode or block; a greedy session no sampling
    keys(head, START_KEYS, ("recorded", "block", "mode", "sampling"), "the start")
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
        mode = Mode(**decode_mode(head["mode"]))
        if mode.backward and not WALK_LAST <= step <= WALK_FIRST:
            raise BadLine(f"mode: the backward walk has no step {step} ({WALK_LAST}–{WALK_FIRST})")
    recorded = head.get("recorded")
    if recorded is not None:
        recorded = plain(recorded, "recorded")
    block = integer(head.get("block", 0), "block", 0, model.cfg.n_blocks - 1)
    chosen = Sampling()
    if "sampling" in head:
        if not isinstance(head["sampling"], dict):
            raise BadLine("sampling: expected an object")
        keys(head["sampling"], KINDS[Kind.SAMPLING].fields, (), "sampling")
        chosen = Sampling(**decode_sampling(head["sampling"], model))
    return Start(model, states, cursor, step, mode, recorded, head["check"], block, chosen)


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


# What the recorder saw after an event, and how replay compares it: what the user typed or chose is
# compared exactly; what the machine computed through BLAS (the loss of a forward pass) within a
# relative COMPUTED_TOLERANCE (log_values.computed_close), since another machine's kernels round the
# last bits differently. Learned weights are never computed again on replay: a learn event carries
# them, so they are exact.
COMPUTED = ("loss",)


def compare_check(check: Any, session: Session, what: str, digests: Digests) -> None:
    """The state the session reached must be the one recorded: exactly, but for computed numbers."""
    if not isinstance(check, dict):
        raise BadLine(f"{what}: check: expected an object")
    now = check_json(session, digests)
    if is_legacy_digest(check.get("params")):  # recorded before DIGEST: compare in its own format
        now["params"] = legacy_params_digest(session.params)
    for key, value in now.items():
        if key not in check:
            raise BadLine(f"{what}: check: {key}: missing")
        recorded = check[key]
        is_number = isinstance(recorded, (int, float)) and not isinstance(recorded, bool)
        if isinstance(value, float) and is_number and key in COMPUTED:
            if not computed_close(value, float(recorded)):
                raise BadLine(
                    f"replaying {what} does not reach the recorded state ({key} is different: "
                    f"{float(recorded)!r} recorded, {value!r} here, more than a relative "
                    f"{COMPUTED_TOLERANCE:g} apart)"
                )
            continue
        if isinstance(value, float) and is_number:
            same = bits(value) == bits(float(recorded))
        else:
            same = type(recorded) is type(value) and recorded == value
        if not same:
            raise BadLine(f"replaying {what} does not reach the recorded state ({key} is different)")
