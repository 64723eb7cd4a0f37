"""Why this number: the focused cell's provenance in the inspector, its operands lit, and f to follow one.

The grids know which run cell each of theirs shows (GridSpec.sources); model.provenance explains one
cell at a time, so only the focused cell is explained (a wide table has thousands). f jumps to the
chosen operand: in a table on this step when one shows it, else on the step that makes it (the forward
stage that writes it, or the backward walk's step that works out a gradient); F picks the next operand.
"""

from __future__ import annotations

import weakref
from dataclasses import replace
from typing import TYPE_CHECKING

from tinytui.lesson import step_path
from tinytui.lesson.stages import params_read
from tinytui.lesson.texts.display_names import display, in_formula
from tinytui.lesson.walk_stages import backward_stages
from tinytui.model import names
from tinytui.present.compare_tables import twin_cells
from tinytui.present.grid_spec import GridSpec, LogitsSpec, Source
from tinytui.tui.actions import Host
from tinytui.tui.widgets.step_view import StepView

if TYPE_CHECKING:  # the provenance rules are imported when a table's cell is first explained
    from tinytui.lesson.why.why import Operand, Why

EXPLAINED_KEPT = 32  # cells kept explained for one run (a Why is a formula and a few operands)
EXPLAINED_RUNS = 4  # runs whose explained cells are kept: m, o, an edit and its undo go back and forth


class WhyController:
    def __init__(self, host: Host) -> None:
        self.host = host
        self.chosen = 0  # which operand f follows (F cycles); back to the first on another cell
        self._of: Source | None = None  # the cell `chosen` belongs to
        # the cells explained for each of the last few (trace, params), the latest run first and in each
        # the latest cell last, with its Why and that Why in the tables' names (what the inspector
        # writes): b, Esc and the arrows go back and forth between a few cells, and m, o or an edit and
        # its undo between a few runs (the session keeps their traces), each cell explained and worded
        # once. A run is held weakly: its entry goes with the trace (or the weights) the session drops.
        self._explained_runs: list[tuple[weakref.ref, weakref.ref, dict[Source, tuple[Why, Why] | None]]] = []
        self._pending: Source | None = None  # where f is going once the new step's tables are mounted

    # ---- the focused cell ------------------------------------------------------------------------
    def focused_table(self) -> StepView | None:
        """The step view the keys move a cursor in (its editor open or not), if it has the focus."""
        focused = self.host.focused
        return focused if isinstance(focused, StepView) else None

    def focused_source(self) -> Source | None:
        focused = self.focused_table()
        return focused.source if focused is not None else None

    def current(self) -> Why | None:
        """The Why of the focused cell, or None (no grid focused, a label or a token cell)."""
        explained = self._current_explained()
        return explained[0] if explained is not None else None

    def _current_explained(self) -> tuple[Why, Why] | None:
        """The focused cell's Why and that Why in the tables' names (x′, MHA, A_2, ∂L/∂ℓ), or None."""
        source = self.focused_source()
        if source != self._of:
            self._of, self.chosen = source, 0
        if source is None or names.split(source[0])[1] in names.ALL_PARAMS:
            return None  # a weight is read from the model file: its own line says which cell it is
        s = self.host.session
        trace, params = s.trace, s.params
        cells = self._explained_in(trace, params)
        if source in cells:
            return cells[source]
        from tinytui.lesson.why.explain import CellError, explain

        try:
            why = explain(trace, params, source[0], source[1], s.gradients)
            named = replace(why, formula=in_formula(why.formula), filled=in_formula(why.filled))
            explained: tuple[Why, Why] | None = (why, named)
        except (CellError, KeyError, ValueError, IndexError, ArithmeticError):
            explained = None  # no explanation is better than no app (tests/lesson hold every rule to finite)
        if len(cells) >= EXPLAINED_KEPT:
            del cells[next(iter(cells))]  # the one explained longest ago
        cells[source] = explained
        return explained

    def _explained_in(self, trace: object, params: object) -> dict[Source, tuple[Why, Why] | None]:
        """The cells explained for this run (trace and weights), made the latest run."""
        runs = self._explained_runs
        for i, (trace_ref, params_ref, cells) in enumerate(runs):
            if trace_ref() is trace and params_ref() is params:
                if i:
                    runs.insert(0, runs.pop(i))
                return cells
        # runs whose trace or weights are gone can never be found again
        kept = [run for run in runs if run[0]() is not None and run[1]() is not None]
        cells = {}
        self._explained_runs = [(weakref.ref(trace), weakref.ref(params), cells), *kept[: EXPLAINED_RUNS - 1]]
        return cells

    def operand(self, why: Why | None) -> Operand | None:
        if why is None or not why.operands:
            return None
        return why.operands[self.chosen % len(why.operands)]

    def cell_name(self, name: str, index: tuple[int, ...]) -> str:
        """'Q_2[1,0]' (and '(block 2)' for a later block), as the inspector's formulas write a cell."""
        base, sep, block = display(name, self.host.session.trace.cfg.n_blocks).partition(" (")
        return base + (f"[{','.join(map(str, index))}]" if index else "") + (f" ({block}" if sep else "")

    def can_follow(self) -> bool:
        """Whether f has somewhere to go: the focused cell's formula reads at least one operand (the
        footer shows f then, and F when it reads several)."""
        return self.operand(self.current()) is not None

    def can_cycle(self) -> bool:
        why = self.current()
        return why is not None and len(why.operands) > 1

    def hint(self, why: Why | None) -> str:
        op = self.operand(why)
        if why is None or op is None:
            return ""
        n = len(why.operands)
        more = f" ({self.chosen % n + 1} of {n}; F: next)" if n > 1 else ""
        return f"f: follow {self.cell_name(op.name, op.index)}{more}"

    def show(self) -> None:
        """The inspector and the lit cells for the focused cell (TinyTuiApp.inspect calls this)."""
        from tinytui.tui.widgets.status_bar import Inspector

        host = self.host
        focused = self.focused_table()
        detail = focused.detail if focused is not None else None
        if focused is not None and focused.label is not None:  # a label: its glossary line
            from tinytui.lesson.texts.glossary import for_model
            from tinytui.present.grid_labels import label_line

            cfg = host.session.trace.cfg  # the glossary in this model's sizes
            detail = label_line(focused.label, for_model(GLOSSARY, cfg), cfg.dims)
        # the Why in the tables' names, the same object for the same cell, so the inspector words it once
        why, shown = self._current_explained() or (None, None)
        self.light(why)
        for inspector in host.screen.walk_children(Inspector):
            inspector.describe(detail, shown, self.hint(why))

    def light(self, why: Why | None) -> None:
        """Mark the operands' cells in every table on screen (only the rows that change are drawn)."""
        wanted = {(op.name, op.index) for op in why.operands} if why is not None else set()
        wanted_names = {name for name, _ in wanted}
        # walk_children: the same widgets as query(), without matching a selector against every node
        for view in self.host.screen.walk_children(StepView):
            lit: dict[int, frozenset] = {}
            for box in view.blocks.boxes if wanted else ():
                item = box.item
                if isinstance(item, GridSpec):
                    # a d_model 64 step has some fourteen tables, most of them of other tensors
                    if item.shown_names.isdisjoint(wanted_names):
                        continue
                    where = item.where
                    lit[box.index] = frozenset(where[src] for src in wanted if src in where)
                elif isinstance(item, LogitsSpec):
                    shown = {s for r in item.rows for s in (r.logit_source, r.prob_source) if s is not None}
                    lit[box.index] = frozenset(wanted & shown)
            box = view.cursor_box
            if box is not None and view.on_cell:  # a two-run compare: the cursor's cell in A, B and B − A
                keys = [getattr(b.item, "key", "") for b in view.blocks.boxes]
                for index, cells in twin_cells(keys, box.index, view.row, view.col).items():
                    lit[index] = lit.get(index, frozenset()) | cells
            view.set_lit(lit)

    # ---- following an operand --------------------------------------------------------------------
    def cycle(self) -> None:
        why = self.current()
        if why is None or len(why.operands) < 2:
            self.host.bell()
            return
        self.chosen = (self.chosen + 1) % len(why.operands)
        self.host.inspect()

    def follow(self) -> None:
        why = self.current()
        op = self.operand(why)
        if op is None:
            self.host.bell()
            what = (
                "Nothing goes into it"
                if why is not None
                else "Put the cursor on a computed cell (not a weight)"
            )
            self.host.notify(what + ": f follows a cell the value is computed from.", timeout=3)
            return
        target = (op.name, op.index)
        s = self.host.session
        step, backward = self.step_of(op.name)
        here = (step, backward) == (s.here, s.mode.backward)
        # on this step when it makes the cell, or shows it in a table of its own (a weight, another head);
        # a copy under "From earlier steps" sends you to the step that makes it, where its operands show
        if self._land(target, inputs=here or step is None):
            return
        if step is None:
            self.host.notify(f"{self.cell_name(*target)} is not shown on any step.", timeout=3)
            return
        where = step_path.heading(step, s.model.cfg.n_blocks)
        if backward:
            self.host.learning.walk_to(step.number, step.block)
        else:
            self.host.apply(lambda session: session.goto(step.number, block=step.block), f"go to {where}")
        if (s.here, s.mode.backward) != (step, backward):
            return
        self._pending = target
        self.host.call_after_refresh(self._land_pending, 20)

    def _land_pending(self, tries: int) -> None:
        target = self._pending
        if target is None:
            return
        if self._land(target):
            self.host.call_after_refresh(self._stay, target, 3)
            return
        if tries <= 0:
            self._pending = None
            # a big weight or tensor shows a window of itself: the cell can lie outside it
            self.host.notify(
                f"{self.cell_name(*target)} is not in the part of its table shown here; ctrl+p → Edit "
                "parameter… pages through a weight, tinytui why prints any cell.",
                timeout=5,
            )
            return
        self.host.call_after_refresh(self._land_pending, tries - 1)

    def _stay(self, target: Source, tries: int) -> None:
        """The new step's tables focus their first one once mounted: land again if that took the cursor."""
        if self.focused_source() != target:
            self._land(target)
        if tries > 0:
            self.host.call_after_refresh(self._stay, target, tries - 1)

    def _land(self, target: Source, inputs: bool = True) -> bool:
        """Focus the first table on screen that shows this cell and put the cursor on it (inputs=False:
        not a table of what earlier steps made)."""
        # walk_children: the same widgets as query(), without matching a selector against every node
        for view in self.host.screen.walk_children(StepView):
            for box in view.blocks.boxes:
                item = box.item
                if not isinstance(item, GridSpec) or (not inputs and item.role == "input"):
                    continue
                at = item.where.get(target)
                if at is not None:
                    view.focus()
                    view.move_to(*at, table=box.index)
                    self._pending = None
                    return True
        return False

    def step_of(self, name: str) -> tuple[step_path.Step | None, bool]:
        """The step that makes this cell (with its block): (step, in the backward walk)."""
        s = self.host.session
        cfg = s.trace.cfg
        if name.startswith(names.GRAD):
            walked = {b.number: b for b in backward_stages(s.trace.switches, s.trace.cfg)}
            for step in s.path(backward=True):
                stage = walked[step.number]
                if name in step_path.resolve_for((*stage.within, *stage.params, *stage.outgoing), cfg, step):
                    return step, True
            return None, True
        path = s.path(backward=False)
        for step in path:
            if name in step_path.resolve_for(step.stage.writes, cfg, step):
                return step, False
        for step in path:  # a weight: the first step that uses it (its table is under "Weights it uses")
            weights = params_read(step.stage, s.trace.cfg, s.trace.switches)
            if name in step_path.resolve_for(weights, cfg, step):
                return step, False
        return None, False


# Every label the screens use, one line each (the ? screen lists them).
GLOSSARY: tuple[tuple[str, str], ...] = (
    ("position, 0:how", "a place in the prompt; a row label 1:much is position 1, the token much"),
    ("thing action quantifier wood", "the four named dimensions of every vector (d_model = 4)"),
    ("k0, k1", "a head's own dimensions: each head's q, k and v rows have d_head = 2 of them"),
    ("h1.k0", "row k0 of head 1 inside W_O: where head 1's k0 output enters the model's vector"),
    ("h1, h2, head 1", "the two attention heads; each reads its own q, k and v"),
    ("unit 3", "one of the feed-forward layer's d_ff = 8 hidden units (a column of W_1, a row of W_2)"),
    ("E[id], PE, x", "a token's embedding row, its position's vector, and their sum x = E[id] + PE"),
    ("x_n, x′_n", "a row after layer norm: mean 0, variance 1 across the dimensions"),
    ("Q_1 K_1 V_1, S_1, A_1", "head 1's queries, keys and values, its scores, its attention weights"),
    ("MHA, x′", "the heads' outputs mixed by W_O, and the vector after the first residual add: x + MHA"),
    ("h_pre, hidden, FFN", "the feed-forward layer before its activation, after it, and its output"),
    ("y, z", "the block's output, and its last position after the final norm"),
    ("ℓ, logits; p, probs", "a score per vocabulary token, and those scores turned into probabilities"),
    ("L, loss, nats", "−log of the target's probability; natural-log units, so 0 nats is certainty"),
    ("∂L/∂w", "how fast the loss moves when that cell moves: a gradient"),
    ("lr, SGD", "the learning rate, and the plain learning step: each weight moves by −lr × its gradient"),
    ("Δ59 (step list)", "59 cells of that step changed since the comparison trace (c switches it)"),
    ("▸ / ◀ (step list)", "the step you are on; ◀ while walking the gradient backwards"),
    ("▲ ▼ ◆", "went up, went down, changed (no direction: a token or the prompt's length)"),
    ("* ×", "a weight edited away from the model file; an entry blocked by the causal mask"),
    ("▸ before a number", "a cell the focused value is computed from (f follows one, F picks which)"),
    ("mask on/off, PE on/off", "the causal mask, the positional encoding: each can be switched off (m, o)"),
    ("ablated h1", "head 1's output replaced by zeros, to see what it alone contributes"),
    ("ReLU, GELU, SiLU", "the feed-forward's activation: negatives to 0 (ReLU) or smoothly near 0"),
    ("pre-norm, post-norm", "the norm before each sub-layer (the chapter's), or after its residual add"),
    ("residual on/off", "whether each sub-layer's output is added to its input or replaces it"),
    ("RMSNorm, LayerNorm", "the norm switched in for the model's own (l): RMSNorm takes no mean away"),
    ("RoPE, sinusoids", "the positions switched in for the model's own (O): q and k turned, or added to x"),
    ("Q_pre, K_pre", "a head's queries and keys before RoPE turns them by position (Q and K after)"),
    ("kv head 1", "a key/value head: its keys and values are read by several query heads (grouped-query)"),
    ("(was …, Δ …)", "the cell's value before the last change (or in the original model) and the difference"),
)
