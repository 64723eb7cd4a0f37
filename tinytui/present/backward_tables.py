"""What the backward walk and the gradient overlay show, read off a View: gradients as labelled grids.

Pure data like cells.py (no Textual). Every number is the session's Gradients (model.backward) in
tinytui.report.step_report's format; the rules, the explanations and which gradient belongs to which step
come from model.backward's table of the walk. The walk goes 15 → 2, and "next" in the walk is the step before.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import NamedTuple

from tinytui.lesson import step_path
from tinytui.lesson.panels import LOGITS_GRADIENT
from tinytui.lesson.stages import STAGE_BY_NUMBER
from tinytui.lesson.walk_stages import BackwardStage, backward_stages
from tinytui.model.names import grad as grad_name
from tinytui.present.analysis_sections import with_analysis
from tinytui.present.cells import param_grid, step_sections
from tinytui.present.compare_tables import with_comparison
from tinytui.present.gradient_grids import _weight_of, gradient_grid, logits_gradient_grid
from tinytui.present.grid_spec import GridSpec, Item, Section
from tinytui.present.practice_cells import conceal
from tinytui.present.view import View
from tinytui.session.state import WALK


def walk_steps(view: View) -> tuple[int, ...]:
    """The forward steps the walk visits, in walk order (15, 14, …, 2): the same for every switch and
    architecture (only the rules are spelled for them)."""
    return WALK


def _stages(view: View) -> tuple[BackwardStage, ...]:
    """The walk's stages spelled for the trace's switches and architecture, kept with the app's tables:
    the status bar, the step's words and its tables all read them on every key of the walk."""
    made_of = (view.trace.switches, view.trace.cfg)
    if (hit := view.kept.find(("walk stages",), made_of)) is not None:
        return hit
    return view.kept.keep(("walk stages",), made_of, backward_stages(*made_of))


def backward_stage(view: View) -> BackwardStage:
    """The stage of the walk at the view's step (the rules spelled for the trace's switches)."""
    return next(s for s in _stages(view) if s.number == view.step)


def in_walk(view: View) -> bool:
    return view.mode.backward and view.step in WALK


# ---- naming ------------------------------------------------------------------------------------------


# The panels (model.panels) a forward stage can show in place of its walk step's outgoing gradients.
PASSED_BACK = MappingProxyType({LOGITS_GRADIENT: logits_gradient_grid})


# ---- the walk's sections -----------------------------------------------------------------------------


def _sources(stages: tuple[BackwardStage, ...], stage: BackwardStage, grads: tuple[str, ...]) -> list[int]:
    """The walk steps before this one (higher numbers) whose outgoing gradients are these."""
    return sorted({s.number for s in stages if s.number > stage.number and set(s.outgoing) & set(grads)})


def _destinations(stages: tuple[BackwardStage, ...], stage: BackwardStage) -> list[int]:
    """The steps later in the walk (lower numbers) that start from this step's outgoing gradients."""
    out = set(stage.outgoing)
    return sorted(
        {s.number for s in stages if s.number < stage.number and set(s.incoming) & out}, reverse=True
    )


def _steps(numbers: list[int]) -> str:
    words = [str(n) for n in numbers]
    if len(words) == 1:
        return f"step {words[0]}"
    return "steps " + ", ".join(words[:-1]) + " and " + words[-1]


def backward_sections(view: View) -> list[Section]:
    stages = _stages(view)
    stage = backward_stage(view)
    grids = lambda grads, role: tuple((gradient_grid(view, n, role),) for n in grads)  # noqa: E731
    sections: list[Section] = []
    if stage.incoming:
        sources = _sources(stages, stage, stage.incoming)
        title = f"Arriving from {_steps(sources)}" if sources else "Arriving"
        sections.append(Section(title, "input", grids(stage.incoming, "input")))
    if stage.within:
        sections.append(Section("Worked out on the way", "input", grids(stage.within, "input")))
    if stage.params:
        rows: list[tuple[Item, ...]] = []
        paired: set[str] = set()
        for name in stage.params:
            row: list[Item] = [gradient_grid(view, name, "param")]
            weight = _weight_of(name)
            if view.mode.gradients and weight not in paired:  # d: the weight itself beside its gradient
                paired.add(weight)
                row.append(param_grid(view, weight))
            rows.append(tuple(row))
        hint = "the weight beside each (d hides it)" if view.mode.gradients else "d shows each weight beside"
        sections.append(Section(f"Gradients of this step's weights — {hint}", "param", tuple(rows)))
    if stage.outgoing:
        title = f"Passed back to {_steps(_destinations(stages, stage))}"
        shown = STAGE_BY_NUMBER[stage.number].passed_back  # the forward stage's own panels, if any
        items = tuple((PASSED_BACK[p.kind](view),) for p in shown) or grids(stage.outgoing, "output")
        sections.append(Section(title, "output", items))
    if not sections:
        sections.append(Section("No gradient is made or changed at this step", "info", ()))
    return sections


# ---- the overlay in the forward steps ----------------------------------------------------------------


def with_gradients(view: View, sections: list[Section]) -> list[Section]:
    """Every weight table gets its gradient ∂L/∂w in its row: beside it, or below when they do not fit."""
    out = []
    for section in sections:
        if section.role != "param":
            out.append(section)
            continue
        rows = []
        for row in section.rows:
            extra = [
                gradient_grid(view, grad_name(item.key.removeprefix("param:")), "param")
                for item in row
                if isinstance(item, GridSpec) and item.key.startswith("param:")
            ]
            rows.append((*row, *extra))
        out.append(section._replace(title=section.title + " · ∂L/∂w with each (d hides)", rows=tuple(rows)))
    return out


def pane_sections(view: View) -> list[Section]:
    """What the step panes show: the walk's sections in the backward pass, else the step's own (either
    as A, B and B − A while two runs are compared); in practice, the cells still to work out as "?"
    (present/practice_cells.py)."""
    if in_walk(view):
        sections = backward_sections(view)
        sections = sections if view.practice is not None else with_comparison(view, sections)
    else:
        sections = step_sections(view)
        sections = with_gradients(view, sections) if view.mode.gradients else sections
        sections = with_analysis(view, sections)  # the lens, patching, a two-run compare
    return conceal(view, sections) if view.practice is not None else sections


# ---- the heading ---------------------------------------------------------------------------------------


# a NamedTuple, not a frozen dataclass: loaded as the app starts, and a frozen dataclass compiles
# its methods from source as its class is made (~3 M instructions; a NamedTuple's ~0.5 M)
class Heading(NamedTuple):
    """The heading of one step of the backward walk: its title, its gradient rules, its explanation,
    and the keys that move along the walk."""

    title: str
    rules: tuple[str, ...]
    explain: str
    hint: str


def heading(view: View) -> Heading:
    stage = backward_stage(view)
    numbers = walk_steps(view)
    n_blocks = view.trace.cfg.n_blocks
    path = step_path.backward(n_blocks, WALK)  # the walk's steps, as n visits them
    at = path.index(view.here) if view.here in path else 0
    title = f"Backward pass · {view.heading} (walking {numbers[0]} → {numbers[-1]}) · {stage.title}"
    moves = []
    if at + 1 < len(path):
        moves.append(f"n: on to {step_path.heading(path[at + 1], n_blocks)}")
    if at > 0:
        moves.append(f"p: back to {step_path.heading(path[at - 1], n_blocks)}")
    moves.append("b or Esc: back to the forward pass")
    moves.append("L: one learning step down this gradient")
    return Heading(title, stage.rules, stage.explain, " · ".join(moves))
