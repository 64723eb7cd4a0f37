"""The one snapshot every pane draws from, and the marker for widgets the app re-renders after a change."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from tinytui.lesson import step_path as steps
from tinytui.model.backward.gradients import Gradients
from tinytui.model.diff import TraceDiff
from tinytui.model.trace import Trace
from tinytui.present.grid_spec import KeptSpecs
from tinytui.session.practice_state import Shown
from tinytui.session.session import Session
from tinytui.session.state import Mode


@dataclass(frozen=True)
class Curve:
    """The losses of the training run that made the current weights (k + 1 values: before, then each step)."""

    steps: int
    lr: float
    losses: tuple[float, ...]


@dataclass(frozen=True)
class View:
    """(trace, diff, step) plus what goes with them, taken from the session right after a change."""

    session: Session
    trace: Trace
    base: Trace  # what the highlights compare to: the trace before the last change, or the original
    diff: TraceDiff
    step: int
    edited: dict[str, list[tuple[int, ...]]]  # parameter cells that differ from the model file
    mode: Mode  # the backward walk, the gradient overlay (the session's)
    here: steps.Step  # the step shown with its block (step is its stage number)
    curve: Curve | None = None  # set when the current weights came from a learning step or run
    notes: tuple[str, ...] = ()  # status-line pieces from the app: recording, replay, practice
    practice: Shown | None = None  # practice mode: the cells drawn as "?" or with ✓ (present/practice_cells)
    # the tables kept from the views made before (the app's own: the same spec for a table that did not
    # change, so the widgets redraw nothing of it); a view made alone keeps its own
    kept: KeptSpecs = field(default_factory=KeptSpecs, compare=False, repr=False)

    @classmethod
    def of(
        cls,
        session: Session,
        curve: Curve | None = None,
        notes: tuple[str, ...] = (),
        practice: Shown | None = None,
        kept: KeptSpecs | None = None,
    ) -> View:
        s = session
        kept = KeptSpecs() if kept is None else kept
        return cls(
            s, s.trace, s.base, s.diff, s.step, s.edited_cells(), s.mode, s.here, curve, notes, practice, kept
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
        return self.session.gradients

    @property
    def changed(self) -> bool:
        """Whether anything differs from the comparison trace (then old → new is worth showing)."""
        return not self.diff.empty


class ViewPart:
    """Mixin for widgets that redraw from a View. The app calls show() on every one after each change."""

    def show(self, view: View) -> None:
        raise NotImplementedError
