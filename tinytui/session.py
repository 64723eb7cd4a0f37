"""The debugger's state without any UI: params history (undo/redo), switches, prompt, traces, events.

The app and the replayer drive a Session; the recorder listens to its events. Every change makes a new
immutable State and a full recompute, so undo is just moving a cursor. The history stays small at any
model size: States share every array they did not change, and an edited cell is an overlay on the
arrays (Params.with_edit), so an entry of the history holds (name, index, value), not an array copy.
The session holds the current state's arrays, so an edited array is built once per move, not per read.
It holds at most two traces (the current one and the one before the last change; the original model's
only when it is one of those or the highlights compare to it), and lets the older go while a move
computes the next: at GPT-2-small shapes a trace of 64 tokens is 91 MB, as much as 14 % of the weights.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from tinytui.model import ModelFile, Params, Switches, Trace, TraceDiff, checks, diff, learn, run, steps
from tinytui.model.backward import BACKWARD_STAGES, Gradients
from tinytui.model.names import canonical, label
from tinytui.model.stages import FIRST, LAST
from tinytui.model.switches import defaults as default_switches
from tinytui.model.trace import DEFAULT_LR

# The steps of the backward walk in the order it visits them: from the loss (15) back to the embedding (2).
WALK = tuple(s.number for s in BACKWARD_STAGES)
WALK_FIRST, WALK_LAST = WALK[0], WALK[-1]


class Refused(ValueError):
    """A change the session will not make; str() is the message to show the user. Nothing changed."""


@dataclass(frozen=True)
class State:
    params: Params
    prompt: tuple[str, ...]
    target: str
    switches: Switches
    lr: float = DEFAULT_LR


@dataclass(frozen=True)
class Mode:
    """How the steps are shown: the session's, so recording and replay see it (not in the undo history:
    undo takes back changes to the model, not where the user is looking)."""

    backward: bool = False  # walking the gradient back (steps 15 → 2); the walk is at Session.step
    gradients: bool = False  # ∂L/∂w beside each weight matrix


@dataclass(frozen=True)
class Training:
    """k SGD steps computed from start, not yet applied (see Session.plan_training)."""

    start: State
    k: int
    lr: float
    result: learn.TrainResult


@dataclass(frozen=True)
class Event:
    """Something the user did. kind: step, mode, edit, toggle, prompt, target, lr, undo, redo,
    reset, learn."""

    kind: str
    data: dict[str, Any]
    before: Trace
    after: Trace
    step: int  # the current step after the event (its stage number)
    block: int | None = None  # the block of that step when it is one of a block's steps (0-based)


def parse_value(text: str) -> float:
    """A cell value as typed: '0.5', '-1', '1e-3', '1/2'. Anything else raises Refused with the reason."""
    return _checked(checks.number, text)


def _checked(check: Callable[..., Any], *args: Any) -> Any:
    """check(*args) from tinytui.model.checks, its ValueError turned into Refused (same message)."""
    try:
        return check(*args)
    except ValueError as exc:
        raise Refused(str(exc)) from None


class Session:
    def __init__(self, model: ModelFile, state: State | None = None):
        self.model = model
        first = state or State(model.params, model.prompt, model.target, default_switches(model.cfg))
        self.history: list[State] = [first]
        self.cursor = 0
        self.step = FIRST  # the stage number of the step shown (1–16)
        self.block = 0  # which block a block step (5–12) shows, 0-based; kept while outside the blocks
        self.mode = Mode()
        self._original_key = (first.prompt, first.target, first.switches, first.lr)
        original = self._run(State(model.params, *self._original_key))
        # the file's own state (the usual start) is the original trace itself: one trace, not two alike
        self.trace = original if first.params is model.params else self._run(first)
        self.previous = self.trace  # the trace before the last change (what highlights compare to)
        self._previous_state = first  # what made previous: a refused move that let it go runs it again
        self.compare_to_original = False
        self._keep_original(original)
        self.listeners: list[Callable[[Event], None]] = []
        self._gradients: tuple[Trace, Gradients] | None = None
        self._held: tuple[Params, tuple[np.ndarray, ...]] | None = None  # the current params' arrays
        self._edited: tuple[Params, dict[str, list[tuple[int, ...]]]] | None = None

    # ---- reading -------------------------------------------------------------------------------
    @property
    def state(self) -> State:
        return self.history[self.cursor]

    @property
    def params(self) -> Params:
        params = self.state.params
        if self._held is None or self._held[0] is not params:
            self._hold(params, tuple(params.values()))
        return params

    def _hold(self, params: Params, arrays: tuple[np.ndarray, ...]) -> None:
        """Keep the current params' arrays alive: an edited array (built on reading) then stays built."""
        self._held = (params, arrays)

    @property
    def original_trace(self) -> Trace:
        """The model file's own weights on the current prompt, target, switches and lr.

        Held while it costs nothing (it is the trace or the previous one), while the highlights compare
        to it, and once asked for until the next move; otherwise it would be a third trace that nothing
        reads. Let go, it is run again when asked for: the same numbers, bit for bit (the same arithmetic
        on the same inputs), checked finite when first made."""
        trace = self._original()
        if trace is None:
            trace = self._run(State(self.model.params, *self._original_key))
            self._original = weakref.ref(trace)
        self._original_kept = trace
        return trace

    def is_original(self, trace: Trace) -> bool:
        """Whether trace is the original model's trace, without running it again when it was let go (a
        trace that was let go is held by nobody, so it cannot be the one asked about)."""
        return self._original() is trace

    def _keep_original(self, trace: Trace) -> None:
        self._original = weakref.ref(trace)
        self._original_kept = trace if self.compare_to_original else None

    @property
    def base(self) -> Trace:
        """What highlights are relative to: the trace before the last change, or the original model."""
        return self.original_trace if self.compare_to_original else self.previous

    @property
    def diff(self) -> TraceDiff:
        return diff(self.base, self.trace)

    @property
    def can_undo(self) -> bool:
        return self.cursor > 0

    @property
    def can_redo(self) -> bool:
        return self.cursor < len(self.history) - 1

    @property
    def gradients(self) -> Gradients:
        """∂L/∂(every parameter and intermediate) for the current trace, one Gradients per trace: each part
        of the backward is computed when something first reads one of its gradients (step 15 of the walk
        reads only ∂L/∂ℓ; GPT-2's 124 M weight gradients take seconds), then kept."""
        if self._gradients is None or self._gradients[0] is not self.trace:
            self._gradients = (self.trace, Gradients(self.params, self.trace))
        return self._gradients[1]

    def edited_cells(self) -> dict[str, list[tuple[int, ...]]]:
        """Parameter cells that differ from the model file (they stay marked as edited).

        Computed once per change, not per call: from the edited cells alone while the params are the
        file's with cells edited, by comparing arrays (the changed ones only) after a learning step."""
        params = self.params
        if self._edited is None or self._edited[0] is not params:
            self._edited = (params, params.changed_cells(self.model.params))
        return {name: list(cells) for name, cells in self._edited[1].items()}

    # ---- navigation ----------------------------------------------------------------------------
    @property
    def here(self) -> steps.Step:
        """The step shown: its stage number and, for a block's step, the block."""
        return steps.at(self.step, self.block, self.model.cfg.n_blocks)

    def path(self, backward: bool | None = None) -> tuple[steps.Step, ...]:
        """Every step of the forward pass (or of the backward walk) in the order n visits them."""
        n_blocks = self.model.cfg.n_blocks
        walking = self.mode.backward if backward is None else backward
        return steps.backward(n_blocks, WALK) if walking else steps.forward(n_blocks)

    def goto(self, step: int, backward: bool = False, block: int | None = None) -> bool:
        """Move to a step (1–16) of the forward pass, or with backward of the backward walk (2–15);
        block (0-based) says which block's copy of a block step (5–12), the current block if None.

        False (and nothing happens) when the step or block is out of range or already shown that way.
        A step of the walk enters the walk and a forward step leaves it, so a replayed step shows what
        it showed.
        """
        lowest, highest = (WALK_LAST, WALK_FIRST) if backward else (FIRST, LAST)
        n_blocks = self.model.cfg.n_blocks
        block = self.block if block is None else block
        if not lowest <= step <= highest or not 0 <= block < n_blocks:
            return False
        where = steps.at(step, block, n_blocks)
        if (where, backward) == (self.here, self.mode.backward):
            return False
        self.step = step
        if where.block is not None:
            self.block = where.block
        self.mode = replace(self.mode, backward=backward)
        data: dict[str, Any] = {"step": step}
        if where.block is not None and n_blocks > 1:  # one-block recordings stay as they were
            data["block"] = where.block
        if backward:
            data["backward"] = True
        self._emit("step", data, self.trace, self.trace)
        return True

    def move(self, delta: int) -> bool:
        """delta steps along the path shown (the forward pass, or the walk); False past either end."""
        path = self.path()
        here = self.here
        at = path.index(here) if here in path else 0
        if not 0 <= at + delta < len(path):
            return False
        to = path[at + delta]
        return self.goto(to.number, self.mode.backward, to.block)

    def set_mode(self, backward: bool | None = None, gradients: bool | None = None) -> bool:
        """Enter or leave the backward walk where the session is, or show or hide ∂L/∂w; False when
        nothing changes. A walk can only be entered at one of its steps (goto(…, backward=True) moves)."""
        mode = Mode(
            self.mode.backward if backward is None else backward,
            self.mode.gradients if gradients is None else gradients,
        )
        if mode == self.mode or (mode.backward and not WALK_LAST <= self.step <= WALK_FIRST):
            return False
        self.mode = mode
        data = {"backward": mode.backward, "gradients": mode.gradients}
        self._emit("mode", data, self.trace, self.trace)
        return True

    def next(self) -> bool:
        return self.move(1)

    def prev(self) -> bool:
        return self.move(-1)

    # ---- changes -------------------------------------------------------------------------------
    def edit(self, name: str, index: tuple[int, ...], value: float | str) -> Event:
        """Set one parameter cell. name is canonical ("blocks.0.W_O") or an older spelling ("W_O")."""
        full = canonical(name)
        if isinstance(value, str):
            value = parse_value(value)
        try:
            params = self.params.with_edit(full, tuple(index), value)
            old = float(self.params[full][tuple(index)])
        except (ValueError, IndexError) as exc:
            raise Refused(str(exc)) from None
        data = {"param": full, "label": label(full), "index": list(index), "old": old, "new": value}
        return self._change("edit", data, replace(self.state, params=params))

    def toggle(self, switch: str, head: int | None = None) -> Event:
        try:
            switches = self.state.switches.toggled(switch, head)
        except ValueError as exc:
            raise Refused(str(exc)) from None
        if head is not None:
            _checked(checks.head, head, self.model.cfg.n_heads)
        data = {"switch": switch, "head": head, "switches": switches.to_dict(), "now": switches.describe()}
        return self._change("toggle", data, replace(self.state, switches=switches))

    def set_switches(self, switches: Switches) -> Event:
        data = {"switch": "all", "head": None, "switches": switches.to_dict(), "now": switches.describe()}
        return self._change("toggle", data, replace(self.state, switches=switches))

    def set_prompt(self, prompt: tuple[str, ...] | list[str]) -> Event:
        prompt = _checked(checks.prompt, prompt, self.model.cfg.vocab, self.model.cfg.n_ctx)
        data = {"old": list(self.state.prompt), "new": list(prompt)}
        return self._change("prompt", data, replace(self.state, prompt=prompt))

    def swap_positions(self, i: int, j: int) -> Event:
        prompt = list(self.state.prompt)
        if not (0 <= i < len(prompt) and 0 <= j < len(prompt)) or i == j:
            raise Refused(f"cannot swap positions {i} and {j} of a {len(prompt)}-token prompt")
        prompt[i], prompt[j] = prompt[j], prompt[i]
        return self.set_prompt(prompt)

    def set_target(self, target: str) -> Event:
        target = _checked(checks.target, target, self.model.cfg.vocab)
        data = {"old": self.state.target, "new": target}
        return self._change("target", data, replace(self.state, target=target))

    def set_lr(self, lr: float | str) -> Event:
        """The SGD step size for learning steps (and step 15's "after one step"); finite and > 0."""
        value = _checked(checks.lr, lr)
        if value == self.state.lr:
            raise Refused(f"the learning rate is already {value:g}")
        data = {"old": self.state.lr, "new": value}
        return self._change("lr", data, replace(self.state, lr=value))

    def set_params(self, params: Params, kind: str, data: dict[str, Any]) -> Event:
        """Replace all parameters at once (a learning step, a loaded file)."""
        return self._change(kind, data, replace(self.state, params=params))

    def learn_step(self, lr: float | None = None) -> Event:
        """One SGD step on all parameters (lr defaults to the session's); undoable, a "learn" event."""
        return self.train(1, lr)

    def train(self, k: int, lr: float | None = None) -> Event:
        """k SGD steps as one undoable change. The event's data has lr, steps, loss_old, loss_new and
        losses (the k + 1 losses, for a sparkline)."""
        return self.apply_training(self.plan_training(k, lr))

    def plan_training(self, k: int, lr: float | None = None) -> Training:
        """Compute k SGD steps from the current state without changing anything.

        Reads only the immutable current State, so the app can run it in a thread; apply_training()
        then makes it one undoable change (or refuses, if the state moved on meanwhile).
        """
        s = self.state
        lr = s.lr if lr is None else lr
        try:
            result = learn.train(s.params, s.prompt, s.target, s.switches, k, lr)
        except ValueError as exc:
            raise Refused(str(exc)) from None
        return Training(s, int(k), float(lr), result)

    def apply_training(self, training: Training) -> Event:
        if self.state is not training.start:
            raise Refused(
                "the model changed while the training ran, so its result was not applied; train again"
            )
        r = training.result
        data = {
            "lr": training.lr,
            "steps": training.k,
            "loss_old": r.loss_old,
            "loss_new": r.loss_new,
            "losses": list(r.losses),
        }
        return self.set_params(r.params, kind="learn", data=data)

    def undo(self) -> Event | None:
        if not self.can_undo:
            return None
        return self._move(self.cursor - 1, "undo")

    def redo(self) -> Event | None:
        if not self.can_redo:
            return None
        return self._move(self.cursor + 1, "redo")

    def reset_state(self) -> State:
        """What reset() goes back to: the model file as loaded, default switches, the starting lr."""
        start = default_switches(self.model.cfg)
        return State(self.model.params, self.model.prompt, self.model.target, start, self.history[0].lr)

    def reset(self) -> Event:
        """Back to the model file as loaded, kept as one more undoable change."""
        return self._change("reset", {}, self.reset_state())

    def set_compare_to_original(self, on: bool) -> None:
        self.compare_to_original = on

    # ---- internals -----------------------------------------------------------------------------
    def _run(self, state: State) -> Trace:
        with np.errstate(all="ignore"):  # overflow is checked below and refused with a message
            trace = run(state.params, state.prompt, state.target, state.switches, state.lr)
        if not _all_finite(trace):
            bad = next(n for n, t in trace.tensors.items() if not np.isfinite(t.values).all())
            shown = label(bad, state.params.cfg.n_blocks)
            raise Refused(f"that makes {shown} overflow to a non-finite number; nothing was changed")
        return trace

    def _compute(self, state: State) -> tuple[Trace, tuple[Any, Trace] | None]:
        """Everything a move to state needs, computed without touching the session: its trace and the
        original model's trace on its prompt and switches (None: the one the session has still holds).
        Raises Refused (the session unchanged)."""
        trace = self._run(state)
        key = (state.prompt, state.target, state.switches, state.lr)
        if state.params is self.model.params:  # the file's own weights: the trace is the original
            return trace, (key, trace)
        if key == self._original_key:
            return trace, None
        # "relative to the original model" means the file's weights on today's prompt and switches
        try:
            return trace, (key, self._run(State(self.model.params, *key)))
        except Refused as exc:
            raise Refused(f"with the model file's own weights (kept for comparing), {exc}") from None

    def _change(self, kind: str, data: dict[str, Any], state: State) -> Event:
        with self._room_for_a_trace():
            held = tuple(state.params.values())  # built once: the run and then the session read these
            trace, original = self._compute(state)  # raises Refused before anything is touched
        del self.history[self.cursor + 1 :]
        self.history.append(state)
        self.cursor += 1
        self._hold(state.params, held)
        return self._settle(kind, data, trace, original)

    def _move(self, cursor: int, kind: str) -> Event:
        state = self.history[cursor]
        with self._room_for_a_trace():
            held = tuple(state.params.values())
            trace, original = self._compute(state)  # before the cursor moves
        self.cursor = cursor
        self._hold(state.params, held)
        return self._settle(kind, {"cursor": cursor}, trace, original)

    @contextmanager
    def _room_for_a_trace(self) -> Iterator[None]:
        """While a move computes its trace, let go of what nothing reads after the move: the trace before
        the last change, the current state's edited arrays and (unless the highlights compare to it) the
        original model's trace, so the next trace is made beside one
        other (two with compare-to-original on), not three (the GPT-2-small benchmark's peak). A
        refused move gets them back: the previous trace as it was if something else still holds it,
        else run again from the state that made it."""
        dropped, made_by = weakref.ref(self.previous), self._previous_state
        self.previous, self._previous_state, self._held = self.trace, self.state, None
        if not self.compare_to_original:
            self._original_kept = None
        try:
            yield
        except Exception:
            previous = dropped()
            self.previous = self._run(made_by) if previous is None else previous
            self._previous_state = made_by
            raise

    def _settle(
        self, kind: str, data: dict[str, Any], trace: Trace, original: tuple[Any, Trace] | None
    ) -> Event:
        """Make the move computed by _compute; nothing here can refuse."""
        before = self.trace
        self.previous, self.trace = before, trace
        if self._gradients is not None and self._gradients[0] is not trace:
            self._gradients = None  # of a trace no longer shown: its computed ∂L/∂w (GPT-2: ≤ 1 GB) let go
        if original is not None:
            self._original_key = original[0]
            self._keep_original(original[1])
        return self._emit(kind, data, before, trace)

    def _emit(self, kind: str, data: dict[str, Any], before: Trace, after: Trace) -> Event:
        event = Event(kind, data, before, after, self.step, self.here.block)
        for listener in list(self.listeners):
            listener(event)
        return event


def _all_finite(trace: Trace) -> bool:
    """Every value of every tensor finite, without one isfinite pass (and bool array) per tensor.

    A small trace: one isfinite over all of it. A large one: sums, which allocate nothing. A sum is
    inf or NaN whenever any value is (finite + inf is inf, inf − inf and anything + NaN are NaN), so a
    finite total proves all finite; a non-finite total (also: finite values overflowing) is checked."""
    values = [t.values for t in trace.tensors.values()]
    if sum(v.size for v in values) <= 1 << 16:
        return bool(np.isfinite(np.concatenate([v.ravel() for v in values])).all()) if values else True
    with np.errstate(over="ignore", invalid="ignore"):
        total = sum(np.add.reduce(v, axis=None) for v in values)
    return bool(np.isfinite(total)) or all(np.isfinite(v).all() for v in values)
