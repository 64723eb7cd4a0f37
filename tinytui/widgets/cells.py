"""What the grids show: labelled cells with their marks, shading and source, read off a View.

Pure data (no Textual): the Grid widget only draws a GridSpec, and tests can read specs directly.
Numbers are the trace's, the session's parameters or tinytui.report's formatting; nothing is computed
here beyond old − new for the inspector line. The spec types and the cache of kept specs are in
grid_spec, a weight's grids in param_grids; this module makes the tensors', the prompt's, the logits'
and a step's sections.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from tinytui.display_names import display
from tinytui.model import names
from tinytui.model.panels import COUNTS, LOGITS, LOSS, STATS, TENSOR, TOKENS, Panel
from tinytui.model.stages import STAGE_BY_NUMBER, Stage, params_read
from tinytui.report import count_tables, fmt, title_of
from tinytui.widgets import windows
from tinytui.widgets.grid_spec import (
    _KEPT,
    _MARKS,
    CHANGED,
    DOWN,
    EDITED,
    GLYPHS,
    MASKED,
    PRECEDENCE,
    UP,
    Cell,
    CellRef,
    Details,
    GridSpec,
    Item,
    LogitRow,
    LogitsSpec,
    Section,
    Source,
    _keep,
    _kept,
    _limit,
    glyph,
    grid,
)
from tinytui.widgets.param_grids import param_grids

# the spec types and marks live in grid_spec; the app's modules import them from here as before
__all__ = [
    "CHANGED",
    "DOWN",
    "EDITED",
    "GLYPHS",
    "MASKED",
    "PRECEDENCE",
    "UP",
    "Cell",
    "CellRef",
    "Details",
    "GridSpec",
    "Item",
    "LogitRow",
    "LogitsSpec",
    "Section",
    "Source",
    "glyph",
    "grid",
    "param_grids",
]
from tinytui.widgets.top_tokens import TOP, shown_tokens
from tinytui.widgets.view import View

PARAM_NAMES = names.PARAMS
HEAT = frozenset({"mask"})  # tensors in [0, 1], shaded on the sequential scale (plus attn.h below)
MASKABLE_PREFIXES = ("scores.", "attn.")


# ---- tensors ---------------------------------------------------------------------------------------


def _tensor_index(view: View, name: str, r: int, c: int) -> tuple[int, ...]:
    t = view.trace.tensor(name)
    if t.values.ndim == 0:
        return ()
    if t.values.ndim == 1:
        return (r,) if t.axes[0].name == "tokens" else (c,)
    return (r, c)


def _change_marks(view: View, name: str, index: tuple[int, ...]) -> set[str]:
    d = view.diff.get(name)
    if d is None or not d.changed[index]:
        return set()
    if d.reshaped:
        return {CHANGED}
    return {UP if d.delta[index] > 0 else DOWN}


def _was(view: View, name: str, index: tuple[int, ...]) -> str:
    """' (was 0.9000, Δ −0.0382)' when the cell changed since the comparison trace, else ''."""
    d = view.diff.get(name)
    if d is None or not d.changed[index] or d.reshaped or name not in view.base.tensors:
        return ""
    old = float(view.base[name][index])
    return f"  (was {fmt(old)}, Δ {float(d.delta[index]):+.4f})"


def _is_masked(view: View, name: str, r: int, c: int) -> bool:
    local = names.split(name)[1]
    if not (local == "mask" or local.startswith(MASKABLE_PREFIXES)):
        return False
    mask = view.trace["mask"]
    return mask.shape == (len(view.trace.prompt),) * 2 and mask[r, c] == 0


def _shade_of(name: str) -> str:
    local = names.split(name)[1]
    return "heat" if local in HEAT or local.startswith("attn.") else "diverging"


def _as_table(a: np.ndarray, by_tokens: bool) -> np.ndarray:
    """A tensor's values laid out as its table (tensor_table): a scalar 1 × 1, a per-token vector one
    column, any other vector one row."""
    if a.ndim == 0:
        return a.reshape(1, 1)
    if a.ndim == 1:
        return a[:, None] if by_tokens else a[None, :]
    return a


def _mark_codes(view: View, name: str, shape: tuple[int, int], by_tokens: bool) -> np.ndarray:
    """Each table cell's change mark as a code of _MARKS (0 none, 1 up, 2 down, 3 changed)."""
    codes = np.zeros(shape, np.int8)
    d = view.diff.get(name)
    if d is None:
        return codes
    changed = _as_table(d.changed, by_tokens)
    if d.reshaped:
        codes[changed] = 3
    else:
        codes[changed] = np.where(_as_table(d.delta, by_tokens) > 0, 1, 2)[changed]
    return codes


def _masked_cells(view: View, name: str, shape: tuple[int, int]) -> np.ndarray | None:
    """Where the causal mask blocks a cell of a scores / attention / mask table (None: not such a table)."""
    local = names.split(name)[1]
    if not (local == "mask" or local.startswith(MASKABLE_PREFIXES)):
        return None
    mask = view.trace["mask"]
    if mask.shape != (len(view.trace.prompt),) * 2:
        return np.zeros(shape, bool)
    return (mask == 0)[: shape[0], : shape[1]]


def tensor_grid(view: View, name: str, role: str) -> GridSpec:
    trace = view.trace
    t = trace.tensor(name)
    arr = t.values
    by_tokens = arr.ndim == 1 and t.axes[0].name == "tokens"
    d = view.diff.get(name)
    unmarked = d is None or not d.changed.any()
    whole = _as_table(arr, by_tokens).shape
    win = windows.tensor_window(view, whole, [a.name for a in t.axes])  # None: the whole tensor
    masked = _masked_cells(view, name, whole)
    masked = None if masked is None else windows.part(masked, win)
    made_of = (
        arr if win is None else windows.part(_as_table(arr, by_tokens), win),
        t.axes,
        trace.cfg.n_blocks,
        masked,
        win,
    )
    key = ("tensor", role, name)
    if unmarked and (hit := _kept(key, made_of)) is not None:
        return hit
    shown = display(name, trace.cfg.n_blocks)  # x′, h_pre, MHA: the transcript's and the handout's names
    table = windows.tensor_part_table(trace, name, shown, win)
    grid_values = windows.part(_as_table(arr, by_tokens), win)
    n_rows, n_cols = len(table.rows), len(table.cols)
    at_rows, at_cols = windows.indices(win, n_rows, n_cols)  # the tensor's own rows and columns
    codes = windows.part(_mark_codes(view, name, whole, by_tokens), win)
    if masked is not None:
        codes = codes + 4 * masked
    marks = tuple(tuple(_MARKS[k] for k in row) for row in codes.tolist())
    values = tuple(tuple(row) for row in grid_values.astype(float).tolist())
    full = names.canonical(name)
    if arr.ndim == 0:
        sources = (((full, ()),),)
    elif arr.ndim == 1:
        sources = (
            tuple(((full, (r,)),) for r in at_rows) if by_tokens else (tuple((full, (c,)) for c in at_cols),)
        )
    else:
        sources = tuple(tuple((full, (r, c)) for c in at_cols) for r in at_rows)

    def detail_row(r: int) -> list[str]:
        row_label, cells = table.rows[r], table.cells[r]
        out = []
        for c, col_label in enumerate(table.cols):
            where = ", ".join(x for x in (row_label, col_label) if x and x != shown)
            out.append(f"{shown}[{where}] = {cells[c]}{_was(view, name, sources[r][c][1])}")
        return out

    spec = GridSpec(
        f"{role}:{name}",
        table.title,
        table.corner,
        tuple(table.rows),
        tuple(table.cols),
        table.cells,
        marks,
        values,
        _shade_of(name),
        _limit(values),
        ((None,) * n_cols,) * n_rows,
        Details(n_rows, detail_row),
        role,
        (),
        sources,
    )
    return _keep(key, made_of, spec) if unmarked else spec


def columns_grid(
    view: View, key: str, title: str, rows: tuple[str, ...], cols: tuple[tuple[str, str, bool], ...]
) -> GridSpec:
    """A grid whose columns come from several per-row tensors: (label, tensor name, indexed by row)."""
    cells = []
    for r, row_label in enumerate(rows):
        row = []
        for label, name, by_row in cols:
            idx = (r,) if by_row else ()
            v = float(view.trace[name][idx])
            shown = display(name, view.trace.cfg.n_blocks)
            detail = f"{label} ({shown}) for {row_label} = {fmt(v)}{_was(view, name, idx)}"
            marks = frozenset(_change_marks(view, name, idx))
            row.append(Cell(fmt(v), marks, v, detail=detail, source=(names.canonical(name), idx)))
        cells.append(row)
    return grid(key, title, "", rows, tuple(c[0] for c in cols), cells, "", "output", limit=1.0)


# ---- the prompt --------------------------------------------------------------------------------------


def token_grid(view: View, vec: str | None = None) -> GridSpec:
    """Position, token and id, plus the vector the step makes (E[id], PE or x), dims labelled."""
    trace = view.trace
    dims = trace.cfg.dims if vec else ()
    shape = (len(trace.prompt), len(dims))
    win = windows.tensor_window(view, shape, ("tokens", "dims")) if vec else None  # None: all of it
    at_rows, at_cols = windows.indices(win, *shape)
    ids = trace["ids"]
    # read once per table, not once per cell: the vector, its names, whether any of it changed
    values = trace[vec] if vec else None
    shown, canon = (display(vec), names.canonical(vec)) if vec else ("", "")
    changed = vec is not None and view.diff.get(vec) is not None
    cells = []
    for p in at_rows:
        tok = trace.prompt[p]
        id_marks = frozenset({CHANGED}) if _change_marks(view, "ids", (p,)) else frozenset()
        ref = CellRef("token", "prompt", (p,), f"position {p}")
        row = [
            Cell(tok, id_marks, ref=ref, detail=f"position {p}: {tok!r}  · Enter to choose another token"),
            Cell(str(int(ids[p])), id_marks, detail=f"{tok!r} is id {int(ids[p])}", source=("ids", (p,))),
        ]
        if vec:
            row_values = values[p].tolist()
            for j in at_cols:
                dim, v = dims[j], row_values[j]
                marks = frozenset(_change_marks(view, vec, (p, j))) if changed else frozenset()
                was = _was(view, vec, (p, j)) if changed else ""
                text = fmt(v)
                detail = f"{shown}[{p}:{tok}, {dim}] = {text}{was}"
                row.append(Cell(text, marks, v, detail=detail, source=(canon, (p, j))))
        cells.append(row)
    groups: tuple[tuple[str, int], ...] = ()
    if vec:
        groups = (("", 2), (title_of(vec, trace.cfg), len(at_cols)))
    title = windows.titled(f"the prompt → target {trace.target!r}", win)
    positions = tuple(str(p) for p in at_rows)
    cols = ("token", "id", *(dims[j] for j in at_cols))
    return grid("tokens", title, "position", positions, cols, cells, "diverging", "output", groups=groups)


def logits_spec(view: View) -> LogitsSpec:
    """A bar per token; a long vocabulary shows its most likely tokens and the target (top_tokens)."""
    trace = view.trace
    logits, probs = trace["logits"], trace["probs"]
    vocab = trace.cfg.vocab
    target = vocab.index(trace.target) if trace.target in vocab else None
    predicted = int(np.argmax(probs))
    shown = shown_tokens(probs, target)
    rows = []
    for i in shown.ids:
        rows.append(
            LogitRow(
                vocab[i],
                fmt(float(logits[i])),
                fmt(float(probs[i])),
                float(probs[i]),
                frozenset(_change_marks(view, "logits", (i,))),
                frozenset(_change_marks(view, "probs", (i,))),
                i == target,
                i == predicted,
                ("logits", (i,)),
                ("probs", (i,)),
            )
        )
    title = "ℓ = z Eᵀ and p = softmax(ℓ), one bar per token"
    if shown.ranked:
        title = f"ℓ = z Eᵀ and p = softmax(ℓ): the top {TOP} of {len(vocab):,} tokens and the target"
    return LogitsSpec("logits", title, tuple(rows), shown.line())


def info_grid(key: str, table) -> GridSpec:
    """A table of plain text (the parameter counts): no marks, no shading, nothing to edit."""
    cells = [
        [Cell(cell, detail=f"{table.title}: {r}, {c} = {cell}") for c, cell in zip(table.cols, row)]
        for r, row in zip(table.rows, table.cells)
    ]
    return grid(key, table.title, table.corner, table.rows, table.cols, cells, "", "info", limit=1.0)


# ---- a step's sections ---------------------------------------------------------------------------------


def side_by_side(key: str, title: str, parts: list[GridSpec]) -> GridSpec:
    """Several grids with the same rows as one, each under its own group header (one per head)."""
    first = parts[0]
    if len(parts) == 1:
        return first

    def joined(field: str) -> tuple:
        return tuple(sum((tuple(getattr(p, field)[r]) for p in parts), ()) for r in range(len(first.rows)))

    return GridSpec(
        key,
        title,
        first.corner,
        first.rows,
        sum((p.cols for p in parts), ()),
        joined("cells"),
        joined("marks"),
        joined("values"),
        first.shade,
        max(p.limit for p in parts),  # one scale, so the heads can be compared by shade
        joined("refs"),
        Details.joined([p.details for p in parts], len(first.rows)),
        first.role,
        tuple((p.title, len(p.cols)) for p in parts),
        joined("sources") if all(p.sources for p in parts) else (),
    )


def short_key_labels(part: GridSpec) -> GridSpec:
    """A query × key grid with the keys' labels stripped of their position ("0:a" -> "a"): the row
    labels carry it, and the heads must fit side by side."""
    if part.rows != part.cols:
        return part
    return replace(part, cols=tuple(c.partition(":")[2] or c for c in part.cols))


def head_grid(view: View, template: str, role: str) -> GridSpec:
    """A per-head tensor ("attn.{h}") as one grid, the heads side by side."""
    made = tuple(tensor_grid(view, n, role) for n in view.names((template,)))
    key = ("heads", role, view.name(template))
    hit = _KEPT.get(key)
    if hit is not None and len(hit[0]) == len(made) and all(a is b for a, b in zip(hit[0], made)):
        _KEPT.move_to_end(key)
        return hit[1]  # every head's table is the one kept: so is the row of them
    parts = [short_key_labels(p) for p in made]
    title = parts[0].title.partition(": ")[2] + " — per head" if len(parts) > 1 else parts[0].title
    return _keep(key, made, side_by_side(f"{role}:{view.name(template)}", title, parts))


def output_rows(view: View, stage: Stage) -> list[tuple[Item, ...]]:
    return _panel_rows(view, stage.panels, "output")


def param_grid(view: View, name: str, window: windows.Window | None = None) -> GridSpec:
    """A weight as one grid (name: short, as a stage reads it, or full); W_Q, W_K and W_V show their heads
    side by side. A big weight shows a window of it: the given one, else the step's (windows.py)."""
    full = view.name(name)
    params = view.session.params
    win = window or windows.param_window(view, full)  # None: the whole weight
    edited = frozenset(view.edited.get(full, ()))
    original = view.session.model.params[full] if edited else None
    part = windows.weight_part
    made_of = (
        part(params[full], win),
        params.cfg,
        edited,
        None if original is None else part(original, win),
        win,
    )
    key = ("param", full)
    if (hit := _kept(key, made_of)) is not None:
        return hit
    parts = param_grids(view, full, win)
    if len(parts) > 1 or (win is not None and params[full].ndim == 3):
        parts = [replace(p, title=p.title.partition(" ")[2]) for p in parts]  # "W_Q head 1" -> "head 1"
        title = windows.titled(names.label(full), win)
        return _keep(
            key,
            made_of,
            replace(side_by_side(f"param:{full}", title, parts), key=f"param:{full}", title=title),
        )
    return _keep(key, made_of, replace(parts[0], key=f"param:{full}"))


def param_rows(view: View, stage: Stage) -> list[tuple[Item, ...]]:
    return [(param_grid(view, name),) for name in params_read(stage, view.trace.cfg)]


def input_rows(view: View, stage: Stage) -> list[tuple[Item, ...]]:
    return _panel_rows(view, stage.inputs, "input")


def step_sections(view: View) -> list[Section]:
    stage = STAGE_BY_NUMBER[view.step]
    made = f"{view.heading[0].upper()}{view.heading[1:]} makes"  # "Step 9 makes", "Block 2 · step 9 makes"
    sections = [Section(made, "output", tuple(output_rows(view, stage)))]
    if params := param_rows(view, stage):
        title = "Weights it uses — Enter edits a cell" + windows.weights_note(view, stage.reads)
        sections.append(Section(title, "param", tuple(params)))
    if inputs := input_rows(view, stage):
        sections.append(Section("From earlier steps", "input", tuple(inputs)))
    return sections


def all_items(sections: list[Section]) -> list[Item]:
    return [item for s in sections for row in s.rows for item in row]


# ---- a panel (model.panels) as grids ----------------------------------------------------------------


def _panel_rows(view: View, panels: tuple[Panel, ...], role: str) -> list[tuple[Item, ...]]:
    return [row for panel in panels for row in PANEL_ROWS[panel.kind](view, panel, role)]


def _tensor_rows(view: View, panel: Panel, role: str) -> list[tuple[Item, ...]]:
    """One grid per name; a per-head name ("q.{h}") gives one grid with every head side by side."""
    return [(head_grid(view, template, role),) for template in panel.tensors]


def _token_rows(view: View, panel: Panel, role: str) -> list[tuple[Item, ...]]:
    _, *vector = panel.tensors
    return [(token_grid(view, *vector),)]


def _stats_rows(view: View, panel: Panel, role: str) -> list[tuple[Item, ...]]:
    trace = view.trace
    mean, var = view.names(panel.tensors)
    key = f"{role}:{mean.rpartition('.')[0]}.stats"  # "output:blocks.0.ln1.stats"
    cols = (("mean μ", mean, True), ("variance σ²", var, True))
    return [(columns_grid(view, key, "row statistics", trace.token_labels, cols),)]


def _loss_rows(view: View, panel: Panel, role: str) -> list[tuple[Item, ...]]:
    before, after = view.names(panel.tensors)
    stepped = f"after one step of lr {view.trace.lr:g}"  # the chapter's step on the logits alone
    cols = (("before", before, False), (stepped, after, False))
    return [(columns_grid(view, f"{role}:loss", "loss L = −log p_target", ("L",), cols),)]


def _count_rows(view: View, panel: Panel, role: str) -> list[tuple[Item, ...]]:
    return [(info_grid(f"count:{i}", t),) for i, t in enumerate(count_tables(view.trace))]


PANEL_ROWS: dict[str, Callable[[View, Panel, str], list[tuple[Item, ...]]]] = {
    TOKENS: _token_rows,
    TENSOR: _tensor_rows,
    STATS: _stats_rows,
    LOGITS: lambda view, panel, role: [(logits_spec(view),)],
    LOSS: _loss_rows,
    COUNTS: _count_rows,
}
