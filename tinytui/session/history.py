"""The undo history behind a Session and the traces it keeps: every move computes before it touches.

A move (a change, an undo or a redo) first computes its trace and, when the highlights may need it, the
original model's trace on the new prompt and switches; only then does it enter the history, settle the
traces and emit one Event, so a refused move (Refused) changes nothing. The history stays small at any
model size: States share every array they did not change, and an edited cell is an overlay on the
arrays (Params.with_edit), so an entry of the history holds (name, index, value), not an array copy.
The session holds the current state's arrays, so an edited array is built once per move, not per read.
A move computes only what it changes: the run reuses the current trace's tensors up to the first part the
move touches (trace.run's reuse: an edit of block 12 runs block 12 and the head), and an undo or redo to
the state that made the trace before the last change, or to the model file's weights while their trace
is held, takes that trace as it is and computes nothing.
The traces it holds stay within TRACE_BUDGET (bytes of tensor values, an array shared by two traces
counted once): the current one and the one before the last change always, and beside them the traces of
the most recent states still in the history while all of them together fit, one trace for states that
run alike (the same weights on the same inputs: a switch flipped and flipped back), so on a small model
an undo chain (or its redo) takes each trace back as it was and computes nothing (benchmarks/bench_view.py's
d_model 64 model on 16 tokens: 0.23 MB a trace, and KEPT_TRACES of them fit). GPT-2 small's two traces
pass the budget on their own (a trace of 64 tokens is 91 MB, as much as 14 % of the weights): there it
holds those two only, the original model's only when it is one of them or the highlights compare to it,
and lets the older go while a move computes the next.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np

from tinytui.lesson import step_path
from tinytui.lesson.stages import FIRST
from tinytui.model.diff import TraceDiff, Unchanged, diff, turned
from tinytui.model.io.document import ModelFile
from tinytui.model.names import label
from tinytui.model.params import Params
from tinytui.model.switches import defaults as default_switches
from tinytui.model.trace import Trace, first_stale, run
from tinytui.session.state import Event, Kind, Mode, Refused, State

if TYPE_CHECKING:  # the backward is imported when a gradient is first asked for
    from tinytui.model.backward.gradients import Gradients


class TracedHistory:
    """The states a session has been in (undo and redo move a cursor), where it is (step, block, mode),
    the traces it holds and the listeners its events go to. tinytui.session.Session builds on it with
    what a user can ask for."""

    _original: weakref.ref[Trace]  # the original trace while something holds it (original_trace)
    _original_kept: Trace | None  # held on purpose: while the highlights compare to it

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
        # (trace, its Gradients) for the trace and, when traces are small, the one before the last change
        # (a switch flipped back and forth asks for the same two again); both traces are held anyway
        self._gradients: list[tuple[Trace, Gradients]] = []
        self._held: tuple[Params, tuple[np.ndarray, ...]] | None = None  # the current params' arrays
        # (base, trace, their diff) as last asked, and when the traces are small the pairs before, up to
        # KEPT_TRACES (a switch flipped back and forth compares the same two traces again; an undo chain
        # and its redo the pairs its changes compared); weak: a diff holds no trace alive
        self._diffs: list[tuple[weakref.ref[Trace], weakref.ref[Trace], TraceDiff]] = []
        self._unchanged = Unchanged()  # the diffs of tensors a change did not move, shared by its diffs
        self._edited: tuple[Params, dict[str, list[tuple[int, ...]]]] | None = None
        self.trace_budget = TRACE_BUDGET  # bytes of tensor values the held traces may take together
        # (state, the trace it made, that trace's arrays: id -> bytes) for recent states still in the
        # history, the most recent last: what an undo or redo takes back without computing; bounded by
        # trace_budget and KEPT_TRACES
        self._kept: list[tuple[State, Trace, dict[int, int]]] = [(first, self.trace, _arrays_of(self.trace))]

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
            trace = self._run(State(self.model.params, *self._original_key), self.trace)
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
        """What changed from base to the trace: computed once per pair of traces, not per read (the app
        reads it for the view and again for the note of a change)."""
        base, trace = self.base, self.trace
        for kept_base, kept_trace, kept in self._diffs:
            if kept_base() is base and kept_trace() is trace:
                return kept
        made = next((turned(d, trace) for b, t, d in self._diffs if b() is trace and t() is base), None)
        if made is None:
            made = diff(base, trace, unchanged=self._unchanged)
        older = self._diffs[: KEPT_TRACES - 1] if _values_in(trace) <= SMALL_TRACE else []  # GPT-2: one diff
        self._diffs = [(weakref.ref(base), weakref.ref(trace), made), *older]
        return made

    def diff_between(self, before: Trace, after: Trace) -> TraceDiff:
        """What changed from before to after: the diff kept for the view when they are its pair (a
        change's note compares the traces either side of it, which the view compares too)."""
        if before is self.base and after is self.trace:
            return self.diff
        return diff(before, after, unchanged=self._unchanged)

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
        trace = self.trace
        for kept_trace, kept in self._gradients:
            if kept_trace is trace:
                return kept
        from tinytui.model.backward.gradients import Gradients

        made = Gradients(self.params, trace)
        self._gradients = [(trace, made), *self._gradients]
        return made

    def edited_cells(self) -> dict[str, list[tuple[int, ...]]]:
        """Parameter cells that differ from the model file (they stay marked as edited).

        Computed once per change, not per call: from the edited cells alone while the params are the
        file's with cells edited, by comparing arrays (the changed ones only) after a learning step."""
        params = self.params
        if self._edited is None or self._edited[0] is not params:
            self._edited = (params, params.changed_cells(self.model.params))
        return {name: list(cells) for name, cells in self._edited[1].items()}

    @property
    def here(self) -> step_path.Step:
        """The step shown: its stage number and, for a block's step, the block."""
        return step_path.at(self.step, self.block, self.model.cfg.n_blocks)

    # ---- moves: computed first, then entered in the history and settled ------------------------
    def _run(self, state: State, *reusable: Trace | None) -> Trace:
        """The trace of state, computed from whichever of the reusable traces it has most in common with
        (bit for bit what a run from nothing gives); refused if any value it computed is not finite."""
        reuse = _most_in_common(state, reusable)
        with np.errstate(all="ignore"):  # overflow is checked below and refused with a message
            trace = run(state.params, state.prompt, state.target, state.switches, state.lr, reuse=reuse)
        if trace is reuse:
            return trace
        if not _all_finite(trace, reuse):
            bad = next(n for n, t in trace.tensors.items() if not np.isfinite(t.values).all())
            shown = label(bad, state.params.cfg.n_blocks)
            raise Refused(f"that makes {shown} overflow to a non-finite number; nothing was changed")
        return trace

    def _made(self, state: State) -> Trace | None:
        """A trace the session holds of a run like state's (its very weights on the same inputs: the
        state itself, a switch flipped back and forth, or the file's weights on the original trace's
        inputs), so a move to it computes nothing; None if there is none."""
        if _same_run(state, self._previous_state):
            return self.previous
        if state.params is self.model.params and _inputs(state) == self._original_key:
            return self._original()
        for kept_state, trace, _ in reversed(self._kept):
            if _same_run(kept_state, state):
                return trace
        return None

    def _kept_original(self, key: tuple) -> Trace | None:
        """A kept trace of the model file's own weights on these inputs (key), or None."""
        for state, trace, _ in reversed(self._kept):
            if state.params is self.model.params and key == (
                state.prompt,
                state.target,
                state.switches,
                state.lr,
            ):
                return trace
        return None

    def _compute(self, state: State, made: Trace | None = None) -> tuple[Trace, tuple[Any, Trace] | None]:
        """Everything a move to state needs, computed without touching the session: its trace (made: one
        the session already has) and the original model's trace on its prompt and switches (None: the
        one the session has still holds). Raises Refused (the session unchanged)."""
        trace = made if made is not None else self._run(state, self.trace, self._original())
        key = _inputs(state)
        if state.params is self.model.params:  # the file's own weights: the trace is the original
            return trace, (key, trace)
        if key == self._original_key:
            return trace, None
        if (kept := self._kept_original(key)) is not None:
            return trace, (key, kept)
        # "relative to the original model" means the file's weights on today's prompt and switches
        try:
            return trace, (key, self._run(State(self.model.params, *key), self._original(), trace))
        except Refused as exc:
            raise Refused(f"with the model file's own weights (kept for comparing), {exc}") from None

    def _change(self, kind: Kind, data: dict[str, Any], state: State) -> Event:
        made = self._made(state)
        with self._room_for_a_trace():
            held = tuple(state.params.values())  # built once: the run and then the session read these
            trace, original = self._compute(state, made)  # raises Refused before anything is touched
        del self.history[self.cursor + 1 :]
        self.history.append(state)
        self.cursor += 1
        self._hold(state.params, held)
        return self._settle(kind, data, trace, original)

    def _move(self, cursor: int, kind: Kind) -> Event:
        state = self.history[cursor]
        made = self._made(state)  # an undo or redo back to the trace before the last change: kept
        with self._room_for_a_trace():
            held = tuple(state.params.values())
            trace, original = self._compute(state, made)  # before the cursor moves
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
            self.previous = self._run(made_by, self.trace) if previous is None else previous
            self._previous_state = made_by
            raise

    def _settle(
        self, kind: Kind, data: dict[str, Any], trace: Trace, original: tuple[Any, Trace] | None
    ) -> Event:
        """Make the move computed by _compute; nothing here can refuse."""
        before = self.trace
        self.previous, self.trace = before, trace
        self._diffs = [(b, t, d) for b, t, d in self._diffs if b() is not None and t() is not None]
        # of a trace no longer held, or no longer shown on a big model: its computed ∂L/∂w (GPT-2: ≤ 1 GB)
        # let go
        held = (trace, before) if _values_in(trace) <= SMALL_TRACE else (trace,)
        self._gradients = [(t, g) for t, g in self._gradients if any(t is h for h in held)]
        if original is not None:
            self._original_key = original[0]
            self._keep_original(original[1])
        self._keep(self.state, trace)
        return self._emit(kind, data, before, trace)

    def _keep(self, state: State, trace: Trace) -> None:
        """Keep state's trace for a later undo or redo, one entry per run (a switch flipped and flipped
        back twenty times holds two traces, not forty); let go at once of the traces no undo or redo
        can reach (no state of the history runs like them: a change after undos cut them off), then of
        the least recent while the traces held pass the budget (the current and previous ones are held
        whatever their size)."""
        reachable = {_run_key(s) for s in self.history}
        now = _run_key(state)
        kept = [e for e in self._kept if (key := _run_key(e[0])) in reachable and key != now]
        kept.append((state, trace, _arrays_of(trace)))
        del kept[: max(0, len(kept) - KEPT_TRACES)]
        always = self._arrays_held_anyway(kept)
        bound = sum(always.values()) + sum(sum(arrays.values()) for _, _, arrays in kept)
        if bound > self.trace_budget:  # within it counting shared arrays twice: within it counting them once
            while kept and _total(always, *(arrays for _, _, arrays in kept)) > self.trace_budget:
                del kept[0]  # at GPT-2's size every entry goes: its two traces alone pass the budget
        self._kept = kept

    def _arrays_held_anyway(self, kept: list[tuple[State, Trace, dict[int, int]]]) -> dict[int, int]:
        """The arrays of the current and the previous trace (id -> bytes), from kept when it has them."""
        held: dict[int, int] = {}
        for trace in (self.trace, self.previous):
            found = next((arrays for _, t, arrays in kept if t is trace), None)
            held |= found or _arrays_of(trace)
        return held

    def held_trace_bytes(self) -> int:
        """Bytes of tensor values in the traces the history holds (an array shared by two counted once):
        within trace_budget unless the current and previous traces alone pass it."""
        return _total(self._arrays_held_anyway(self._kept), *(arrays for _, _, arrays in self._kept))

    def _emit(self, kind: Kind, data: dict[str, Any], before: Trace, after: Trace) -> Event:
        event = Event(kind, data, before, after, self.step, self.here.block)
        for listener in list(self.listeners):
            listener(event)
        return event


def _inputs(state: State) -> tuple:
    """What a run takes beside the weights."""
    return (state.prompt, state.target, state.switches, state.lr)


def _same_run(a: State, b: State) -> bool:
    """Whether two states run alike: the very same weights (a Params object is never changed) on the
    same inputs, so the trace of one is the other's, bit for bit."""
    return a is b or (a.params is b.params and _inputs(a) == _inputs(b))


def _run_key(state: State) -> tuple:
    """_same_run as a key (the weights by identity: valid while the state holds them)."""
    return (id(state.params), *_inputs(state))


def _most_in_common(state: State, traces: tuple[Trace | None, ...]) -> Trace | None:
    """Of traces, the one whose tensors a run of state can keep the most of (None: none given)."""
    best, start = None, -1
    for trace in traces:
        if trace is None:
            continue
        at = first_stale(trace, state.params, state.prompt, state.target, state.switches, state.lr)
        if at > start:
            best, start = trace, at
    return best


SMALL_TRACE = 1 << 20  # values: a trace this small keeps two diffs (a d_model 64 step: about 80,000)
# Bytes of tensor values the history's traces may take together: more than KEPT_TRACES traces of
# bench_view's d_model-64 model (0.23 MB each, 16 of them after 15 edits 2.4 MB with the arrays they share);
# not two of GPT-2 small's past a prompt of two tokens (by its shapes, some 2 MB of values a token).
TRACE_BUDGET = 8 * 2**20
# Traces kept at most, whatever their size: a chapter's trace is a few kilobytes of values, but its labels
# and Python objects, which the budget does not count, are some tens of kilobytes more
KEPT_TRACES = 32


def _arrays_of(trace: Trace) -> dict[int, int]:
    """A trace's tensor values: id -> bytes (valid while the trace holds them)."""
    return {id(t.values): t.values.nbytes for t in trace.tensors.values()}


def _total(*arrays: dict[int, int]) -> int:
    """Bytes of the arrays, each once (a run reuses the tensors before what a move touched, so
    successive traces share them)."""
    union: dict[int, int] = {}
    for a in arrays:
        union |= a
    return sum(union.values())


def _bytes_of(*traces: Trace) -> int:
    """Bytes of tensor values in traces, each array once."""
    return _total(*(_arrays_of(t) for t in traces))


def _values_in(trace: Trace) -> int:
    return sum(t.values.size for t in trace.tensors.values())


def _all_finite(trace: Trace, reuse: Trace | None = None) -> bool:
    """Every value of every tensor finite (those kept from reuse were checked when it was made), without
    one isfinite pass (and bool array) per tensor.

    A small trace: one isfinite over all of it. A large one: sums, which allocate nothing. A sum is
    inf or NaN whenever any value is (finite + inf is inf, inf − inf and anything + NaN are NaN), so a
    finite total proves all finite; a non-finite total (also: finite values overflowing) is checked."""
    kept = reuse.tensors if reuse is not None else {}
    values = [t.values for name, t in trace.tensors.items() if kept.get(name) is not t]
    if sum(v.size for v in values) <= 1 << 16:
        return bool(np.isfinite(np.concatenate([v.ravel() for v in values])).all()) if values else True
    with np.errstate(over="ignore", invalid="ignore"):
        total = sum(np.add.reduce(v, axis=None) for v in values)
    return bool(np.isfinite(total)) or all(np.isfinite(v).all() for v in values)
