"""The one snapshot every pane draws from, and the marker for widgets the app re-renders after a change."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple

from tinytui.lesson import step_path as steps
from tinytui.model.diff import TraceDiff
from tinytui.model.generation.sampling import Sampling
from tinytui.model.params import Params
from tinytui.model.switches import Switches
from tinytui.model.trace import Trace
from tinytui.present.grid_spec import KeptSpecs
from tinytui.session.next_token import NewPass, full_line, new_pass
from tinytui.session.session import Session
from tinytui.session.state import Mode, State

if TYPE_CHECKING:  # what only a second run, the backward walk or practice makes
    from tinytui.model.analysis.patching import Patching
    from tinytui.model.backward.gradients import Gradients
    from tinytui.session.practice_state import Shown
    from tinytui.session.second_runs import Comparison, PatchSetting


# a NamedTuple, not a frozen dataclass: loaded as the app starts, and a frozen dataclass compiles
# its methods from source as its class is made (~3 M instructions; a NamedTuple's ~0.5 M)
class Curve(NamedTuple):
    """The losses of the training run that made the current weights (k + 1 values: before, then each step)."""

    steps: int
    lr: float
    losses: tuple[float, ...]


# a NamedTuple, not a frozen dataclass: loaded as the app starts, and a frozen dataclass compiles
# its methods from source as its class is made (~3 M instructions; a NamedTuple's ~0.5 M)
class OtherRuns(NamedTuple):
    """The second runs beside this one as the session had them: a two-run compare's A and the patching
    into a corrupted prompt. Both cost a forward pass (or many), so they are asked for, not taken: the
    callables are the session's own, made when first asked and kept by the session."""

    comparison: Comparison | None = None  # A of a two-run compare (B is the view's own run)
    patch_setting: PatchSetting | None = None  # the corrupted prompt and the foil, when patching is set
    compare_state: Callable[[], State | None] = lambda: None  # A as it stands beside the state now
    compare_trace: Callable[[], Trace | None] = lambda: None  # A's trace
    patching: Callable[[], Patching | None] = lambda: None  # None when off or no longer fitting
    patching_problem: Callable[[], str] = lambda: ""  # why the patching no longer fits ("" when it does)
    compare_gradients: Callable[[], Gradients | None] = lambda: None  # A's, for the backward walk


# a NamedTuple, not a frozen dataclass: loaded as the app starts, and a frozen dataclass compiles
# its methods from source as its class is made (~3 M instructions; a NamedTuple's ~0.5 M)
class Undo(NamedTuple):
    """How many changes undo and redo can take back and bring back."""

    back: int = 0
    forward: int = 0


@dataclass(frozen=True, eq=False)
class View:
    """Everything the panes draw, taken from the session right after a change: the trace and its diff,
    the step, the weights (the current ones and the model file's), the settings (switches, learning
    rate, sampling), what undo can do, and the app's notes. A snapshot: it holds no session. It is made
    on every key, so what costs a computation (the gradients, a second run) is a callable the session
    gives, run when a pane first asks and kept by the session; everything else is a value read off it."""

    trace: Trace
    base: Trace  # what the highlights compare to: the trace before the last change, or the original
    diff: TraceDiff
    step: int
    edited: dict[str, list[tuple[int, ...]]]  # parameter cells that differ from the model file
    mode: Mode  # the backward walk, the gradient overlay (the session's)
    here: steps.Step  # the step shown with its block (step is its stage number)
    params: Params  # the current weights (the trace's)
    original: Params  # the model file's weights, for "was …" beside an edited cell
    switches: Switches  # the session's switches (the trace was run under them)
    lr: float  # the learning rate a learning step would use
    sampling: Sampling  # how the next token is chosen
    new_pass: NewPass | None  # the last change appended one token: what its pass computed and reused
    full_line: str  # why nothing can be appended once the prompt fills the context
    undo: Undo
    compare_to_original: bool  # the highlights compare to the model file (else to the last change)
    gradients_of: Callable[[], Gradients] = field(repr=False)  # the session's, for this trace: gradients
    other: OtherRuns = OtherRuns()  # noqa: RUF009 (a NamedTuple: immutable, so one default serves all)
    curve: Curve | None = None  # set when the current weights came from a learning step or run
    notes: tuple[str, ...] = ()  # status-line pieces from the app: recording, replay, practice
    practice: Shown | None = None  # practice mode: the cells drawn as "?" or with ✓ (present/practice_cells)
    # the tables kept from the views made before (the app's own: the same spec for a table that did not
    # change, so the widgets redraw nothing of it); a view made alone keeps its own
    kept: KeptSpecs = field(default_factory=KeptSpecs, repr=False)

    @classmethod
    def of(
        cls,
        session: Session,
        curve: Curve | None = None,
        notes: tuple[str, ...] = (),
        practice: Shown | None = None,
        kept: KeptSpecs | None = None,
    ) -> View:
        """The snapshot of the session now (the one place a View reads a session)."""
        s = session
        state = s.state
        other = OtherRuns(
            s.comparison, s.patch_setting, s.compare_state, s.compare_trace, s.patching, s.patching_problem,
            lambda: s.second_runs.compare_gradients(s.compare_state(), s.compare_trace()),
        )  # fmt: skip
        return cls(
            trace=s.trace,
            base=s.base,
            diff=s.diff,
            step=s.step,
            edited=s.edited_cells(),
            mode=s.mode,
            here=s.here,
            params=s.params,
            original=s.model.params,
            switches=state.switches,
            lr=state.lr,
            sampling=s.sampling,
            new_pass=new_pass(s),
            full_line=full_line(s),
            undo=Undo(s.cursor, len(s.history) - 1 - s.cursor),
            compare_to_original=s.compare_to_original,
            gradients_of=lambda: s.gradients,
            other=other,
            curve=curve,
            notes=notes,
            practice=practice,
            kept=KeptSpecs() if kept is None else kept,
        )

    @property
    def practising(self) -> bool:
        """Cells of this step are still to answer: nothing around the tables may quote their values."""
        return self.practice is not None and bool(self.practice.hidden)

    def name(self, local: str) -> str:
        """A stage table's name (no "{h}") as the canonical name it means at the step shown."""
        return steps.name(local, self.here, self.trace.cfg.n_blocks)

    def names(self, templates: tuple[str, ...]) -> tuple[str, ...]:
        """A stage table's names as the step's canonical names, "{h}" expanded to every head."""
        return steps.resolve_for(templates, self.trace.cfg, self.here)

    def templates(self, template: str) -> tuple[str, ...]:
        """A stage table's name as the names it stands for in this model at the step shown, one table
        each (step_path.templates_for)."""
        return steps.templates_for(template, self.trace.cfg, self.here)

    def expanded(self, templates: tuple[str, ...]) -> tuple[str, ...]:
        """Names already spelled for the model as the step's canonical names, heads expanded."""
        return steps.expand(templates, self.trace.cfg, self.here)

    @cached_property  # read by the step text and by its facts: the remapped names are built once
    def focused(self) -> Trace:
        """The trace as the step's texts read it: a block step's block-0 names mean its own block's."""
        return steps.focus(self.trace, self.here)

    @property
    def heading(self) -> str:
        """'step 8', or 'block 2 · step 8' for a block's step of a model with several blocks."""
        return steps.heading(self.here, self.trace.cfg.n_blocks)

    @property
    def gradients(self) -> Gradients:
        """∂L/∂(every parameter and tensor) of the current trace (the session computes it once per trace).

        Views are built right before they are drawn, so this is the gradient of this view's trace."""
        return self.gradients_of()

    @property
    def changed(self) -> bool:
        """Whether anything differs from the comparison trace (then old → new is worth showing)."""
        return not self.diff.empty


class ViewPart:
    """Mixin for widgets that redraw from a View. The app calls show() on every one after each change."""

    def show(self, view: View) -> None:
        raise NotImplementedError
