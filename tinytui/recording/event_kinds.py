"""Every kind of event a recording holds, defined once: one class per kind (tinytui.session.state.Kind)
says what the kind's data holds in the log (encode), how a line of it is checked (decode), how replay
re-applies it through the same Session call the user made (apply), why re-applying it could change
nothing (idle), the short sentence the replay's status line shows (describe) and the transcript's
headline for it (headline). Nothing else branches on a kind's name.

KINDS maps each Kind to its definition; decode_event() checks one event line against the recorded
model. Like the rest of the log's decoding it trusts nothing in the file and raises one BadLine naming
the field. The words come from tinytui.recording.recording_words.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from tinytui.lesson.practice.grading import Accepted, grade
from tinytui.lesson.practice.questions import cell_text
from tinytui.lesson.stages import FIRST, LAST, STAGE_BY_NUMBER
from tinytui.model import checks
from tinytui.model.generation import sampling
from tinytui.model.generation.sampling import Sampling
from tinytui.model.io.document import ModelFile
from tinytui.model.names import label
from tinytui.model.params import Params
from tinytui.model.switches import NAMES, came
from tinytui.recording.cell_changes import changed_cells
from tinytui.recording.log_values import (
    BadLine,
    bits,
    boolean,
    cell_index,
    checked,
    computed_close,
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
from tinytui.recording.recording_words import cell_name, change_words, mode_words, step_heading, switch_name
from tinytui.recording.recording_words import number as exact
from tinytui.report.tables import fmt
from tinytui.session.practice_state import Sample, accepted_at
from tinytui.session.session import MAX_NOTE, Session
from tinytui.session.state import WALK_FIRST, WALK_LAST, Event, Kind, Mode, Refused, State

MAX_EVENTS = 50_000  # hours of clicking; replay re-runs each one, so a bound keeps loading finite
SWITCH_NAMES = NAMES


@dataclass(frozen=True)
class Recorded:
    """One validated event from the log."""

    line: int
    seq: int
    kind: Kind
    data: dict[str, Any]  # checked and normalised: only the fields its kind lists
    params: Params | None  # the parameters a learn event set; None for the other kinds
    check: dict[str, Any]  # the state the recorder saw after it


class EventKind:
    """One kind of event. fields: its data's fields in the order written; optional: those older or
    hand-made files may leave out; carries_params: whether the log line also holds the parameters it
    set (as edits against the model file); changes_state: whether it is an undoable change (the
    transcript then says what moved) rather than a move of the view."""

    kind: ClassVar[Kind]
    fields: ClassVar[tuple[str, ...]]
    optional: ClassVar[tuple[str, ...]] = ()
    carries_params: ClassVar[bool] = False
    changes_state: ClassVar[bool] = True

    def encode(self, data: dict[str, Any]) -> dict[str, Any]:
        """The event's data as the log holds it: only this kind's fields, as JSON values."""
        return {k: _plain(v) for k, v in data.items() if k in self.fields}

    def decode(self, d: dict[str, Any], model: ModelFile) -> dict[str, Any]:
        """A log line's data checked field by field (the keys are already checked); BadLine if bad."""
        raise NotImplementedError

    def apply(self, session: Session, rec: Recorded) -> None:
        """Re-apply through the Session call the user made; Refused when the session will not."""
        raise NotImplementedError

    def idle(self, session: Session, d: dict[str, Any]) -> str:
        """Why re-applying it emitted no event."""
        return "nothing happened"

    def describe(self, d: dict[str, Any], params: Params | None) -> str:
        """A few words for the replay's status line: 'edit W_O[h2.k0, wood]: 0.0 → 2.0'."""
        return str(self.kind)

    def headline(self, event: Event, session: Session, was: Mode) -> str:
        """The transcript's sentence for it (session: where it left things; was: the view before)."""
        raise NotImplementedError

    def shows_step(self, event: Event, was: Mode) -> bool:
        """Whether the transcript prints the step on screen under the headline (a move of the view)."""
        return False

    def notes(self, event: Event, before: State, after: State) -> list[tuple[str, str]]:
        """(label, text) lines of its own in a change's block, beside the weights it moved."""
        return []


def _at(event: Event, session: Session) -> str:
    return f"(at {step_heading(session.model.cfg.n_blocks, event.step, event.block, False)})"


def _where(d: dict[str, Any]) -> str:
    """A step event's step: 'step 8', or 'block 2 · step 8' when it names a block."""
    return f"block {d['block'] + 1} · step {d['step']}" if "block" in d else f"step {d['step']}"


class StepKind(EventKind):
    kind = Kind.STEP
    fields = ("step", "block", "backward")
    optional = ("block", "backward")
    changes_state = False

    def decode(self, d, model):
        backward = boolean(d.get("backward", False), "step: backward")
        lo, hi = (WALK_LAST, WALK_FIRST) if backward else (FIRST, LAST)
        out: dict[str, Any] = {"step": integer(d["step"], "step", lo, hi)}
        if "block" in d:  # models of several blocks: which block's step (0-based)
            out["block"] = integer(d["block"], "step: block", 0, model.cfg.n_blocks - 1)
        return {**out, "backward": True} if backward else out

    def apply(self, session, rec):
        # enters or leaves the walk; a recording without a block (one block, or older) means block 1
        d = rec.data
        session.goto(d["step"], backward=d.get("backward", False), block=d.get("block", 0))

    def idle(self, session, d):
        return f"the session is already at {_where(d)}"

    def describe(self, d, params):
        return f"backward walk to {_where(d)}" if d.get("backward") else f"go to {_where(d)}"

    def headline(self, event, session, was):
        title = STAGE_BY_NUMBER[event.step].title
        where = step_heading(session.model.cfg.n_blocks, event.step, event.block)
        if event.data.get("backward"):
            return f"{where}: the backward walk moved to {title}"
        return f"{where}: moved to {title}"

    def shows_step(self, event, was):
        return True


class ModeKind(EventKind):
    kind = Kind.MODE
    fields = ("backward", "gradients")
    changes_state = False

    def decode(self, d, model):
        return decode_mode(d)

    def apply(self, session, rec):
        session.set_mode(backward=rec.data["backward"], gradients=rec.data["gradients"])

    def idle(self, session, d):
        if d["backward"] and not session.mode.backward:
            return f"the backward walk cannot be entered at step {session.step}"
        return "the view is already like that"

    def describe(self, d, params):
        view = "the backward walk" if d["backward"] else "the forward pass"
        return f"show {view}, ∂L/∂w {'shown' if d['gradients'] else 'hidden'}"

    def headline(self, event, session, was):
        return f"view: {mode_words(was, _mode(event), event.step)}"

    def shows_step(self, event, was):
        return _mode(event).backward != was.backward


def _mode(event: Event) -> Mode:
    return Mode(bool(event.data.get("backward")), bool(event.data.get("gradients")))


def decode_mode(d: dict[str, Any]) -> dict[str, Any]:
    """A view (the start line's mode, a mode event's data): both flags checked."""
    return {
        "backward": boolean(d["backward"], "mode: backward"),
        "gradients": boolean(d["gradients"], "mode: gradients"),
    }


class EditKind(EventKind):
    kind = Kind.EDIT
    fields = ("param", "label", "index", "old", "new")
    optional = ("label",)

    def decode(self, d, model):
        name = param(d["param"], model.params, "edit")
        if "label" in d:
            plain(d["label"], "edit: label")  # recomputed below; a wrong type is still a bad file
        index = cell_index(d["index"], model.params[name].shape, label(name), "edit")
        old, new = number(d["old"], "edit: old"), number(d["new"], "edit: new")
        return {"param": name, "label": label(name), "index": list(index), "old": old, "new": new}

    def apply(self, session, rec):
        d = rec.data
        current = float(session.params[d["param"]][tuple(d["index"])])
        if bits(current) != bits(d["old"]):  # what the user set is compared exactly
            cell = cell_name(session.params, d["param"], d["index"])
            raise Refused(f"the recording says {cell} was {exact(d['old'])}, here it is {exact(current)}")
        session.edit(d["param"], tuple(d["index"]), d["new"])

    def describe(self, d, params):
        plain_ = f"{d['label']}[{','.join(str(i) for i in d['index'])}]"
        where = cell_name(params, d["param"], d["index"]) if params is not None else plain_
        return f"edit {where}: {exact(d['old'])} → {exact(d['new'])}"

    def headline(self, event, session, was):
        d = event.data
        cell = cell_name(session.params, d["param"], tuple(d["index"]))
        return f"edit: {cell} set from {fmt(d['old'])} to {fmt(d['new'])} {_at(event, session)}"

    def notes(self, event, before, after):
        if changed_cells(after.params, before.params):
            return []
        d = event.data  # set to the value the cell already had
        cell = cell_name(after.params, d["param"], tuple(d["index"]))
        return [("weights", f"{cell}: {fmt(d['new'])} (already its value: no change)")]


class ToggleKind(EventKind):
    kind = Kind.TOGGLE
    fields = ("switch", "head", "switches", "now")
    optional = ("head", "switches", "now")

    def decode(self, d, model):
        switch = d["switch"]
        if switch != "all" and switch not in SWITCH_NAMES:
            raise BadLine(
                f"toggle: switch: {shown(switch)} is not a switch (known: {', '.join(SWITCH_NAMES)})"
            )
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

    def apply(self, session, rec):
        d = rec.data
        if d["switch"] == "all":
            session.set_switches(d["switches"])
        else:
            session.toggle(d["switch"], d["head"])

    def describe(self, d, params):
        if d["switch"] == "all":
            return f"switches → {d['switches'].describe()}"
        return f"toggle {switch_name(d['switch'], d['head'])}"

    def headline(self, event, session, was):
        d = event.data
        if d.get("switch") == "all":
            return f"switches set: {session.state.switches.describe()} {_at(event, session)}"
        now = ", ".join(came(event.before.switches, event.after.switches)) or "as it was"
        return f"toggle {switch_name(d.get('switch'), d.get('head'))}: now {now} {_at(event, session)}"


class PromptKind(EventKind):
    kind = Kind.PROMPT
    fields = ("old", "new")
    optional = ("old",)

    def decode(self, d, model):
        out = {"new": list(tokens(d["new"], model, "prompt: new"))}
        if "old" in d:
            out["old"] = list(tokens(d["old"], model, "prompt: old"))
        return out

    def apply(self, session, rec):
        session.set_prompt(rec.data["new"])

    def describe(self, d, params):
        return f"prompt → {' '.join(d['new'])}"

    def headline(self, event, session, was):
        return f"prompt changed to “{' '.join(session.state.prompt)}” {_at(event, session)}"


class TargetKind(EventKind):
    kind = Kind.TARGET
    fields = ("old", "new")
    optional = ("old",)

    def decode(self, d, model):
        out = {"new": token(d["new"], model, "target: new")}
        if "old" in d:
            out["old"] = token(d["old"], model, "target: old")
        return out

    def apply(self, session, rec):
        session.set_target(rec.data["new"])

    def describe(self, d, params):
        return f"target → {d['new']}"

    def headline(self, event, session, was):
        return f"target changed to {session.state.target} {_at(event, session)}"


class LrKind(EventKind):
    kind = Kind.LR
    fields = ("old", "new")
    optional = ("old",)

    def decode(self, d, model):
        out = {"new": learning_rate(d["new"], "lr: new")}
        if "old" in d:
            out["old"] = learning_rate(d["old"], "lr: old")
        return out

    def apply(self, session, rec):
        session.set_lr(rec.data["new"])

    def describe(self, d, params):
        return f"learning rate → {exact(d['new'])}"

    def headline(self, event, session, was):
        return f"learning rate changed to {session.state.lr:g} {_at(event, session)}"


class UndoKind(EventKind):
    kind = Kind.UNDO
    fields = ("cursor",)

    def decode(self, d, model):
        return {"cursor": integer(d["cursor"], f"{self.kind}: cursor", 0, 2 * MAX_EVENTS)}

    def apply(self, session, rec):
        session.undo()

    def idle(self, session, d):
        return f"there is nothing to {self.kind} at this point"

    def headline(self, event, session, was):
        c, history = event.data["cursor"], session.history
        if c + 1 < len(history):
            return f"undo: back to before {change_words(history[c], history[c + 1])} {_at(event, session)}"
        return f"undo {_at(event, session)}"


class RedoKind(UndoKind):
    kind = Kind.REDO

    def apply(self, session, rec):
        session.redo()

    def headline(self, event, session, was):
        c, history = event.data["cursor"], session.history
        if c >= 1:
            return f"redo: {change_words(history[c - 1], history[c])} made again {_at(event, session)}"
        return f"redo {_at(event, session)}"


class ResetKind(EventKind):
    kind = Kind.RESET
    fields = ()

    def decode(self, d, model):
        return {}

    def apply(self, session, rec):
        session.reset()

    def headline(self, event, session, was):
        return f"reset: every weight and switch back to the model file {_at(event, session)}"


class LearnKind(EventKind):
    kind = Kind.LEARN
    fields = ("lr", "steps", "loss_old", "loss_new", "losses")
    carries_params = True

    def decode(self, d, model):
        """All of it is shown (status line, transcript, loss curve), so all of it is checked."""
        lr = learning_rate(d["lr"], "learn: lr")
        if isinstance(d["steps"], bool) or not isinstance(d["steps"], int):
            raise BadLine(f"learn: steps: expected a whole number, got {shown(d['steps'])}")
        steps = checked(checks.steps, d["steps"], "learn: steps")
        loss_old, loss_new = (
            number(d["loss_old"], "learn: loss_old"),
            number(d["loss_new"], "learn: loss_new"),
        )
        losses = d["losses"]
        if not isinstance(losses, list) or len(losses) != steps + 1:
            raise BadLine(f"learn: losses: expected a list of {steps + 1} losses (before, then each step)")
        losses = [number(v, f"learn: losses[{i}]") for i, v in enumerate(losses)]
        if bits(losses[0]) != bits(loss_old) or bits(losses[-1]) != bits(loss_new):
            raise BadLine("learn: losses: the first and last must be loss_old and loss_new")
        return {"lr": lr, "steps": steps, "loss_old": loss_old, "loss_new": loss_new, "losses": losses}

    def apply(self, session, rec):
        # the recorded weights themselves, not computed again: a learning step replays exactly
        assert rec.params is not None
        session.set_params(rec.params, self.kind, dict(rec.data))

    def headline(self, event, session, was):
        d = event.data
        noun = "step" if d["steps"] == 1 else "steps"
        return f"learn: {d['steps']} SGD {noun} of size {d['lr']:g} on all weights {_at(event, session)}"

    def notes(self, event, before, after):
        losses = event.data["losses"]  # the loss before, then after each step
        shown = losses if len(losses) <= 21 else [*losses[:10], None, losses[-1]]
        return [("losses", " ".join("…" if v is None else fmt(v) for v in shown))]


class PracticeKind(EventKind):
    """Practice mode (tinytui.session.practice_state): on (with a lesson's cells or a sample of one step)
    or off, an answer typed for a cell and how it was graded, one more hint. "shown" is what the learner
    was told, so the transcript says what was asked, answered and shown.

    Replay grades an answer again: the typed text exactly as recorded, against a range computed from
    floating-point values. A grade that differs is refused, except for an answer within replay's
    tolerance for computed numbers (log_values.computed_close: a relative COMPUTED_TOLERANCE, 1e-9) of an
    end of its range, where another machine's last bits can decide: that one keeps its recorded grade."""

    kind = Kind.PRACTICE
    fields = ("action", "cells", "sample", "name", "index", "text", "correct", "rung", "shown")
    optional = fields[1:]
    changes_state = False
    ACTIONS = ("on", "off", "answer", "hint")

    def decode(self, d, model):
        action = d["action"]
        if action not in self.ACTIONS:
            raise BadLine(f"practice: action: {shown(action)} is not one of {', '.join(self.ACTIONS)}")
        out: dict[str, Any] = {"action": action}
        if action == "on" and "cells" in d:
            cells = d["cells"]
            if not isinstance(cells, list) or len(cells) > MAX_PRACTICE_CELLS:
                raise BadLine(f"practice: cells: expected a list of at most {MAX_PRACTICE_CELLS} cells")
            out["cells"] = [_practice_cell(c, f"practice: cells[{i}]") for i, c in enumerate(cells)]
        if action == "on" and "sample" in d:
            out["sample"] = _sample(d["sample"], model)
        if action in ("answer", "hint"):
            for key in ("name", "index", "rung", "shown") + (
                ("text", "correct") if action == "answer" else ()
            ):
                if key not in d:
                    raise BadLine(f"practice: {key}: missing")
            out["name"], out["index"] = _practice_cell([d["name"], d["index"], ""], "practice")[:2]
            out["rung"] = integer(d["rung"], "practice: rung", 0, 3)
            out["shown"] = plain(d["shown"], "practice: shown")
        if action == "answer":
            out["text"] = plain(d["text"], "practice: text")
            out["correct"] = boolean(d["correct"], "practice: correct")
        return out

    def apply(self, session, rec):
        d = rec.data
        if d["action"] in ("on", "off"):
            cells = d.get("cells")
            lesson = tuple((n, tuple(ix), note) for n, ix, note in cells) if cells is not None else None
            sample = Sample(**d["sample"]) if "sample" in d else None
            session.set_practice(d["action"] == "on", lesson, sample)
        elif d["action"] == "hint":
            session.more_hint(d["name"], d["index"])
        else:
            cell = (d["name"], d["index"])
            session.cell_value(cell)  # Refused for a cell the run does not have
            ok = accepted_at(session.trace, session.params, session.gradients, cell)
            now = grade(d["text"], ok)
            if now.correct != d["correct"] and not _on_an_end(now.answer, ok):
                right = "right" if d["correct"] else "wrong"
                raise Refused(f"the answer {d['text']!r} was {right} when recorded, and is not now")
            session.answer(d["name"], d["index"], d["text"], d["correct"])

    def idle(self, session, d):
        return f"practice is already {d['action']}"

    def describe(self, d, params):
        if d["action"] in ("on", "off"):
            return f"practice {d['action']}"
        cell = cell_text(d["name"], d["index"], params.cfg.n_blocks if params is not None else 1)
        if d["action"] == "hint":
            return f"practice: hint {d['rung']} for {cell}"
        return f"practice: answer {d['text']} for {cell}"

    def headline(self, event, session, was):
        d = event.data
        if d["action"] == "off":
            return f"practice off: every value shown again {_at(event, session)}"
        if d["action"] == "on":
            if d.get("cells") is not None:
                what = f"a lesson's {len(d['cells'])} cells"
            elif "sample" in d:
                s = d["sample"]
                what = f"step {s['number']}" + (f", {s['count']} of its cells" if "count" in s else "")
            else:
                what = "what each step computes"
            return f"practice on: {what} hidden as ? until worked out {_at(event, session)}"
        cell = cell_text(d["name"], d["index"], session.model.cfg.n_blocks)
        if d["action"] == "hint":
            return f"practice: asked for a hint on {cell} {_at(event, session)}"
        return f"practice: answered {cell} = {d['text']}, {_verdict(d['text'], d['correct'])}"

    def notes(self, event, before, after):
        """What the learner was told: the value with ✓, or why not and the next hint; for a lesson, each
        question with the teacher's note on it, whole."""
        d = event.data
        if d["action"] == "on" and d.get("cells"):
            n_blocks = after.params.cfg.n_blocks
            cells = [cell_text(n, ix, n_blocks) for n, ix, _ in d["cells"]]
            listed = ", ".join(cells[:MAX_LISTED]) + (
                f" … and {len(cells) - MAX_LISTED} more" if len(cells) > MAX_LISTED else ""
            )
            out = [("asks", listed)]
            out += [("note", f"{cell}: {note}") for cell, (_, _, note) in zip(cells, d["cells"]) if note]
            return out
        shown = d.get("shown")
        return [("shown", shown)] if shown else []


MAX_PRACTICE_CELLS = 10_000
MAX_LISTED = 40  # a lesson's cells named in its "asks" line (every note is given whole)


class SamplingKind(EventKind):
    """How the next token is chosen: greedy, or drawn with a temperature, top-k, top-p and seed
    (tinytui.model.generation.sampling). A setting like the mode, so no change of state; recorded so a
    replay's step 14 and next token are chosen as they were."""

    kind = Kind.SAMPLING
    fields = ("temperature", "top_k", "top_p", "seed")
    changes_state = False

    def decode(self, d, model):
        return decode_sampling(d, model)

    def apply(self, session, rec):
        session.set_sampling(Sampling(**rec.data))

    def idle(self, session, d):
        return f"the next token is already chosen {Sampling(**d).describe()}"

    def describe(self, d, params):
        return f"next token: {Sampling(**d).describe()}"

    def headline(self, event, session, was):
        return f"the next token is now chosen {Sampling(**event.data).describe()} {_at(event, session)}"


class NoteKind(EventKind):
    """A teacher's note for the class (N, or ctrl+p → "Add a note for the class…"), kept where it was
    made: the transcript and the handout print it under its headline, a replay shows it in turn."""

    kind = Kind.NOTE
    fields = ("text",)
    changes_state = False

    def decode(self, d, model):
        text = plain(d["text"], "note: text")
        if not text.strip() or len(text) > MAX_NOTE:
            raise BadLine(f"note: text: expected 1 to {MAX_NOTE} characters, got {len(text.strip())}")
        return {"text": text}

    def apply(self, session, rec):
        session.add_note(rec.data["text"])

    def describe(self, d, params):
        return f"note: {d['text']}"

    def headline(self, event, session, was):
        return f"note for the class {_at(event, session)}"

    def notes(self, event, before, after):
        return [("note", event.data["text"])]


def decode_sampling(d: dict[str, Any], model: ModelFile) -> dict[str, Any]:
    """Sampling settings (a sampling event's data, the start line's): each checked as the debugger's
    own dialog checks what is typed into it."""
    where = "sampling"
    top_k = d["top_k"]
    if top_k is not None:  # a whole number from 1 to the vocabulary's size, as sampling.top_k asks
        top_k = integer(top_k, f"{where}: top_k", 1, model.cfg.n_vocab)
    temperature = number(d["temperature"], f"{where}: temperature")
    return {
        "temperature": checked(sampling.temperature, temperature, where),
        "top_k": top_k,
        "top_p": checked(sampling.top_p, number(d["top_p"], f"{where}: top_p"), where),
        "seed": integer(d["seed"], f"{where}: seed", 0, sampling.MAX_SEED),
    }


def _verdict(text: str, correct: bool) -> str:
    """How an answer went: right, wrong, or refused unread (text that is no number is not graded)."""
    if correct:
        return "right"
    try:
        checks.number(text)
    except checks.Invalid:
        return "refused: not a number"
    return "wrong"


def _on_an_end(answer: float | None, ok: Accepted) -> bool:
    """Whether a typed number lies on an end of its accepted ranges, within replay's tolerance for
    computed numbers: there a range computed on another machine can grade it otherwise."""
    return answer is not None and any(computed_close(answer, end) for ends in ok.bounds() for end in ends)


def _practice_cell(x: Any, where: str) -> tuple[str, tuple[int, ...], str]:
    """[name, index, note] of a practice cell; whether the run has it is the session's to say."""
    if not isinstance(x, list) or len(x) != 3:
        raise BadLine(f"{where}: expected [name, index, note]")
    name, index, note = x
    name = plain(name, f"{where}: name")
    if not isinstance(index, list) or len(index) > 8:
        raise BadLine(f"{where}: index: expected a list of at most 8 whole numbers")
    index = tuple(integer(i, f"{where}: index", 0, 2**31 - 1) for i in index)
    return name, index, plain(note, f"{where}: note")


def _sample(x: Any, model: ModelFile) -> dict[str, Any]:
    if not isinstance(x, dict):
        raise BadLine("practice: sample: expected an object")
    keys(
        x, ("number", "backward", "block", "count", "seed"), ("backward", "block", "count", "seed"), "sample"
    )
    out: dict[str, Any] = {"number": integer(x["number"], "practice: sample: number", FIRST, LAST)}
    if "backward" in x:
        out["backward"] = boolean(x["backward"], "practice: sample: backward")
    if "block" in x:
        out["block"] = integer(x["block"], "practice: sample: block", 0, model.cfg.n_blocks - 1)
    if "count" in x:
        out["count"] = integer(x["count"], "practice: sample: count", 1, 2**31 - 1)
    if "seed" in x:
        out["seed"] = integer(x["seed"], "practice: sample: seed", 0, 2**63 - 1)
    return out


class PatchKind(EventKind):
    """Activation patching (A, or ctrl+p → "Patch a corrupted prompt…"): the corrupted prompt and the
    foil set, or patching off (corrupt null). A setting like the mode: recorded so a replay's step 14
    shows the same heatmap."""

    kind = Kind.PATCH
    fields = ("corrupt", "foil")
    changes_state = False

    def decode(self, d, model):
        if d["corrupt"] is None:
            return {"corrupt": None, "foil": None}
        return {
            "corrupt": list(tokens(d["corrupt"], model, "patch: corrupt")),
            "foil": token(d["foil"], model, "patch: foil"),
        }

    def apply(self, session, rec):
        d = rec.data
        session.set_patching(d["corrupt"], d["foil"] or "")

    def describe(self, d, params):
        if d["corrupt"] is None:
            return "patching off"
        return f"patch into “{' '.join(d['corrupt'])}”, foil {d['foil']}"

    def headline(self, event, session, was):
        d = event.data
        if d["corrupt"] is None:
            return f"activation patching turned off {_at(event, session)}"
        return f"patching into “{' '.join(d['corrupt'])}”, foil {d['foil']} {_at(event, session)}"


COMPARED = ("file", "before", "pinned", "prompt", "model", "off")


class CompareKind(EventKind):
    """A two-run compare (C, or the palette's "Compare …" commands): the state now (B) beside another
    (A) — the model file, the state before the last change, a pinned state, another prompt, another
    model file — or comparing stopped. A setting like the mode; a replay compares with the same A (a
    model file is read again from its path)."""

    kind = Kind.COMPARE
    fields = ("with", "prompt", "path")
    optional = ("prompt", "path")
    changes_state = False

    def decode(self, d, model):
        what = d["with"]
        if what not in COMPARED:
            raise BadLine(f"compare: with: expected one of {', '.join(COMPARED)}, got {shown(what)}")
        out: dict[str, Any] = {"with": what}
        if what == "prompt":
            out["prompt"] = list(tokens(d.get("prompt"), model, "compare: prompt"))
        if what == "model":
            out["path"] = plain(d.get("path"), "compare: path")
        return out

    def apply(self, session, rec):
        d = rec.data
        session.compare_with(d["with"], d.get("prompt"), d.get("path", ""))

    def describe(self, d, params):
        return "stop comparing" if d["with"] == "off" else f"compare with {_compared(d)}"

    def headline(self, event, session, was):
        if event.data["with"] == "off":
            return f"the two-run compare stopped {_at(event, session)}"
        return f"compare: A is {_compared(event.data)}, B the state now {_at(event, session)}"


def _compared(d: dict[str, Any]) -> str:
    if d["with"] == "prompt":
        return f"the prompt “{' '.join(d['prompt'])}”"
    if d["with"] == "model":
        return f"the model file {d['path']}"
    return {
        "file": "the model file",
        "before": "the state before the last change",
        "pinned": "a pinned state",
    }[d["with"]]


# Every kind a Session emits, each defined once; a test checks none is missing.
KINDS: dict[Kind, EventKind] = {
    spec.kind: spec
    for spec in (
        StepKind(),
        ModeKind(),
        EditKind(),
        ToggleKind(),
        PromptKind(),
        TargetKind(),
        LrKind(),
        UndoKind(),
        RedoKind(),
        ResetKind(),
        LearnKind(),
        PracticeKind(),
        SamplingKind(),
        NoteKind(),
        PatchKind(),
        CompareKind(),
    )
}


def decode_event(doc: Any, line: int, seq: int, model: ModelFile) -> Recorded:
    """Line `line` of the log, which should hold event number seq."""
    if not isinstance(doc, dict):
        raise BadLine("expected an event object")
    keys(doc, ("seq", "kind", "data", "check", "edits"), ("edits",), "event")
    got = doc["seq"]
    if got != seq or isinstance(got, bool):
        raise BadLine(f"event {shown(got)} where event {seq} should be: a line is missing or out of order")
    name = doc["kind"]
    spec = KINDS[Kind(name)] if isinstance(name, str) and name in KINDS else None  # a Kind is its name
    if spec is None:
        raise BadLine(f"unknown event kind {shown(name)} (known: {', '.join(KINDS)})")
    kind = spec.kind
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
        carriers = ", ".join(k for k, s in KINDS.items() if s.carries_params)
        raise BadLine(f"{kind}: edits: unknown key (only {carriers} carry edits)")
    return Recorded(line, seq, kind, spec.decode(data, model), params, doc["check"])


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
