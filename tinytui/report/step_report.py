"""A stage as labelled tables of formatted numbers — one source for the printer, recorder and handouts.

Nothing here draws: renderers for plain text, Rich and Markdown turn these tables into output. A step of
the forward pass is a StageReport (its panels' tables, facts, formula and weights), a step of the
backward walk a BackwardReport (the gradients arriving, worked out, for its weights and passed back).
The tables themselves, and the one number format, are tinytui.report.tables'.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tinytui.lesson import step_path
from tinytui.lesson.panels import COUNTS, LOGITS, LOSS, STAT_LABELS, STATS, TENSOR, TOKENS, Panel
from tinytui.lesson.stages import Stage, equation_words, formula_as_run, latex_for, params_read, title_for
from tinytui.lesson.texts.display_names import display, in_words
from tinytui.lesson.texts.facts import stage_facts
from tinytui.lesson.walk_stages import BackwardStage
from tinytui.model import count
from tinytui.model.switches import defaults
from tinytui.model.trace import Trace
from tinytui.report.print_window import Picks, picks_of
from tinytui.report.tables import Table, fmt, param_table, tensor_table, windowed

if TYPE_CHECKING:  # the backward walk's reports are given the gradients
    from tinytui.model.backward.gradients import Gradients


@dataclass(frozen=True)
class StageReport:
    """One step of the forward pass for one run, as the printer, recorder and handouts write it: its
    tables, facts, formula and explanation, and the weights it reads."""

    stage: Stage
    tables: tuple[Table, ...]
    facts: tuple[str, ...]
    formula: str  # as the switches of the run make the model compute it
    explain: str  # the stage's explanation for this run (stage.explain(trace))
    weights: tuple[Table, ...] = ()  # the parameters the step reads, when the report was given them
    heading: str = ""  # 'Step 9/16', or 'Block 2/3 · step 9/16' for a block's step of a deeper model
    title: str = ""  # the stage's title in this model (stages.title_for); "" reads the stage's own
    latex: str = ""  # its equation in LaTeX in this model (stages.latex_for); "" reads the stage's own
    equation: str = ""  # the chapter's equation beside it in this model ("17.3"; stages.equation_words)
    # False when the run's switches change what the step computes (mask off, PE off, post-norm, …): the
    # LaTeX is the model's own equation, so a handout writes the formula as run instead
    latex_holds: bool = True


def stage_report(trace: Trace, stage: Stage, params=None, block: int = 0) -> StageReport:
    """The step's tables with display names; given the run's params, also the weights it reads. A block's
    step (5–12) is reported for the given block (0-based)."""
    n_blocks = trace.cfg.n_blocks
    where = step_path.at(stage.number, block, n_blocks)
    picks = picks_of(trace)  # what a big table keeps (report_window): GPT-2's are never printed whole
    tables = [t for panel in stage.panels for t in PANEL_TABLES[panel.kind](trace, panel, where, picks)]
    focused = step_path.focus(trace, where)
    facts = tuple(stage_facts(focused, stage))
    as_run = formula_as_run(stage, trace.switches, trace.cfg)
    formula = in_words(as_run)  # x′ as the tables write it
    latex_holds = as_run == formula_as_run(stage, defaults(trace.cfg), trace.cfg)
    weights = () if params is None else weight_tables(trace, params, stage, where, picks)
    heading = step_path.of_all(where, n_blocks, "/")
    title, latex = title_for(stage, trace.cfg, trace.switches), latex_for(stage, trace.cfg)
    explain = stage.explain(focused)
    equation = equation_words(stage, trace.cfg, "")
    return StageReport(
        stage, tuple(tables), facts, formula, explain, weights, heading, title, latex, equation, latex_holds
    )


def weight_tables(
    trace: Trace, params, stage: Stage, where: step_path.Step | None = None, picks: Picks | None = None
) -> tuple[Table, ...]:
    """The weights a step uses (its reads that are parameters), one table each (W_Q: one per head); given
    picks, a big one in part (E's rows at the step that shows the logits add the most likely tokens)."""
    where = where or step_path.at(stage.number, 0, trace.cfg.n_blocks)
    reads = [
        step_path.name(n, where, trace.cfg.n_blocks) for n in params_read(stage, trace.cfg, trace.switches)
    ]
    logits = any(panel.kind == LOGITS for panel in (*stage.panels, *stage.inputs))
    return tuple(t for name in reads for t in param_table(trace, params, name, picks, logits))


# ---- a panel (model.panels) as tables --------------------------------------------------------------


def _names(trace: Trace, panel: Panel, where: step_path.Step) -> tuple[str, ...]:
    return step_path.resolve_for(panel.tensors, trace.cfg, where)


def _tensor_tables(trace: Trace, panel: Panel, where: step_path.Step, picks: Picks | None) -> list[Table]:
    n_blocks = trace.cfg.n_blocks
    return [
        tensor_table(trace, name, shown=display(name, n_blocks), picks=picks)
        for name in _names(trace, panel, where)
    ]


def _token_tables(trace: Trace, panel: Panel, where: step_path.Step, picks: Picks | None) -> list[Table]:
    """The prompt's ids as a table; a step that makes a vector beside them prints only the vector."""
    _, *vector = panel.tensors
    if vector:
        return _tensor_tables(trace, Panel(TENSOR, tuple(vector)), where, picks)
    cells = tuple((tok, str(int(i))) for tok, i in zip(trace.prompt, trace["ids"]))
    return [Table("prompt", "position", tuple(str(p) for p in range(len(cells))), ("token", "id"), cells)]


def _stats_tables(trace: Trace, panel: Panel, where: step_path.Step, picks: Picks | None) -> list[Table]:
    shown = _names(trace, panel, where)
    cols = tuple(STAT_LABELS[n.rpartition(".")[2]] for n in shown)
    rows = tuple(tuple(fmt(v) for v in row) for row in zip(*(trace[n] for n in shown)))
    return [Table("row statistics", "tokens", trace.token_labels, cols, rows)]


def _loss_tables(trace: Trace, panel: Panel, where: step_path.Step, picks: Picks | None) -> list[Table]:
    """The scalars read better together than as 1×1 tables."""
    before, after = (float(trace[n]) for n in _names(trace, panel, where))
    return [Table("loss", "", ("L",), ("before", "after one step"), ((fmt(before), fmt(after)),))]


PANEL_TABLES: dict[str, Callable[[Trace, Panel, step_path.Step, Picks | None], list[Table]]] = {
    TOKENS: _token_tables,
    TENSOR: _tensor_tables,
    STATS: _stats_tables,
    LOGITS: _tensor_tables,  # printed as the two vectors ℓ and p
    LOSS: _loss_tables,
    COUNTS: lambda trace, panel, where, picks: count_tables(trace),
}


def count_tables(trace: Trace) -> list[Table]:
    sizes = count.four_sizes(trace.cfg)
    ours = sizes[0].components()
    per = Table(
        "parameters of this model",
        "component",
        tuple(ours),
        ("count",),
        tuple((str(v),) for v in ours.values()),
    )
    per = Table(per.title, per.corner, (*per.rows, "total"), per.cols, (*per.cells, (str(sizes[0].total()),)))
    comps = tuple(ours)
    four = Table(
        f"four sizes, one formula: {count.sizes_formula(trace.cfg)}",
        "",
        ("vocab", "d_model", "blocks", "heads", "d_ff", *comps, "total"),
        tuple(s.name for s in sizes),
        tuple(
            tuple(_count(getattr(s, f)) for s in sizes)
            for f in ("vocab", "d_model", "n_blocks", "n_heads", "d_ff")
        )
        + tuple(tuple(_count(s.components()[c]) for s in sizes) for c in comps)
        + (tuple(_count(s.total()) for s in sizes),),
    )
    return [per, four]


def _count(n: int) -> str:
    return f"{n:,}"


@dataclass(frozen=True)
class BackwardReport:
    """One step of the backward walk as text and tables: what arrives, the rules, what leaves."""

    stage: BackwardStage
    tables: tuple[Table, ...]
    heading: str = ""  # 'Step 9/16', or 'Block 2/3 · step 9/16'


BACKWARD_GROUPS = (
    ("incoming", "arriving"),
    ("within", "worked out on the way"),
    ("params", "for this step's weights"),
    ("outgoing", "passed back"),
)


def backward_report(
    grads: Gradients, stage: BackwardStage, n_heads: int, block: int = 0, picks: Picks | None = None
) -> BackwardReport:
    """A step of the backward walk; a block's step (5–12) for the given block (0-based). Given the run's
    picks (report_window.picks_of), a big gradient is shown in part."""
    n_blocks = grads.cfg.n_blocks
    where = step_path.at(stage.number, block, n_blocks)
    tables: list[Table] = []
    for field, group in BACKWARD_GROUPS:
        for name in step_path.resolve_for(getattr(stage, field), grads.cfg, where):
            tables.extend(gradient_tables(grads, name, group, picks))
    return BackwardReport(stage, tuple(tables), step_path.of_all(where, n_blocks, "/"))


def gradient_tables(grads: Gradients, name: str, group: str, picks: Picks | None = None) -> list[Table]:
    """∂L/∂name as tables; a per-head weight gradient (heads × d × d_head) gives one table per head;
    given picks, a big one in part."""
    shown = display(name, grads.cfg.n_blocks)
    title = f"{shown} ({group})"
    t = grads.tensor(name)
    if t.values.ndim != 3:
        return [tensor_table(grads, name, title, shown, picks)]
    _, rows, cols = t.axes
    return [
        windowed(f"{title}, head {h + 1}", rows.name, rows.labels, cols.labels, t.values[h], name, picks)
        for h in range(t.values.shape[0])
    ]
