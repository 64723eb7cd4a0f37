"""What the grids show: labelled cells with their marks, shading and source, read off a View.

Pure data (no Textual): the Grid widget only draws a GridSpec, and tests can read specs directly.
Numbers are the trace's, the session's parameters or tinytui.report.step_report's formatting; nothing is
computed here beyond old − new for the inspector line. The spec types and the cache of kept specs are in
grid_spec, a weight's grids in param_grids, a tensor's grid in cells_tensors, the prompt's and the
logits' in cells_tokens; this module makes a step's sections from them, a panel's rows by its kind.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from itertools import chain
from types import MappingProxyType

from tinytui.lesson.panels import COUNTS, LOGITS, LOSS, STAT_LABELS, STATS, TENSOR, TOKENS, Panel
from tinytui.lesson.stages import STAGE_BY_NUMBER, Stage, params_read
from tinytui.model import names
from tinytui.present import windows
from tinytui.present.grid_spec import (
    Cell,
    GridSpec,
    Item,
    KeptSpecs,
    Located,
    Section,
    Source,
    grid,
)
from tinytui.present.next_token_grids import generation_sections
from tinytui.present.param_grids import param_grids
from tinytui.present.tensor_cells import columns_grid, tensor_grid
from tinytui.present.token_cells import logits_spec, token_grid
from tinytui.present.view import View
from tinytui.report.lazy_rows import LazyRows

PARAM_NAMES = names.PARAMS


# ---- a step's sections ---------------------------------------------------------------------------------


def side_by_side(kept: KeptSpecs, key: str, title: str, parts: list[GridSpec]) -> GridSpec:
    """Several grids with the same rows as one, each under its own group header (one per head); kept:
    the app's kept specs, where the joined sources are kept."""
    first = parts[0]
    if len(parts) == 1:
        return first

    def joined(field: str) -> tuple:
        return tuple(tuple(chain.from_iterable(rows)) for rows in zip(*(getattr(p, field) for p in parts)))

    n_rows = len(first.rows)
    # the heads' sources are the same tuples from one run to the next (tensor_cells._sources): so are
    # theirs side by side, and the table's cells are found again without reading them all (GridSpec.where)
    sources = tuple(p.sources for p in parts)
    located = None
    if not all(sources):
        joined_sources: Sequence[Sequence[Source | None]] = ()
    elif (hit := kept.find(("joined sources", key), sources)) is not None:
        joined_sources, located = hit
    else:
        joined_sources = LazyRows.joined(list(sources), n_rows)
        located = Located(joined_sources)
        kept.keep(("joined sources", key), sources, (joined_sources, located))

    joined_spec = GridSpec(
        key,
        title,
        first.corner,
        first.rows,
        sum((p.cols for p in parts), ()),
        LazyRows.joined([p.cells for p in parts], n_rows),
        joined("marks"),
        joined("values"),
        first.shade,
        max(p.limit for p in parts),  # one scale, so the heads can be compared by shade
        LazyRows.joined([p.refs for p in parts], n_rows),
        LazyRows.joined([p.details for p in parts], n_rows),
        first.role,
        tuple((p.title, len(p.cols)) for p in parts),
        joined_sources,
        located,
        tuple(parts),
    )
    return joined_spec


def short_key_labels(part: GridSpec) -> GridSpec:
    """A query × key grid with the keys' labels stripped of their position ("0:a" -> "a"): the row
    labels carry it, and the heads must fit side by side."""
    if part.rows != part.cols:
        return part
    return replace(part, cols=tuple(c.partition(":")[2] or c for c in part.cols))


def _head_names(view: View, template: str) -> tuple[tuple[str, ...], str]:
    """A per-head template's tensors at the step shown, each head's, and its name: spelled once per step
    and model, not on every key for each of a step's tables."""
    made_of = (view.here, view.trace.cfg)
    if (hit := view.kept.find(("head names", template), made_of)) is not None:
        return hit
    spelled = (view.expanded((template,)), view.name(template))
    return view.kept.keep(("head names", template), made_of, spelled)


def head_grid(view: View, template: str, role: str) -> GridSpec:
    """A per-head tensor ("attn.{h}") as one grid, the heads side by side."""
    heads, name = _head_names(view, template)
    made = tuple(tensor_grid(view, n, role) for n in heads)
    key = ("heads", role, name)
    if (hit := view.kept.find_made_of(key, made)) is not None:
        return hit  # every head's table is one kept: so is the row of them
    parts = [short_key_labels(p) for p in made]
    title = parts[0].title.partition(": ")[2] + " — per head" if len(parts) > 1 else parts[0].title
    return view.kept.keep(key, made, side_by_side(view.kept, f"{role}:{name}", title, parts))


def output_rows(view: View, stage: Stage) -> list[tuple[Item, ...]]:
    """The step's tables in its order, less one: the causal mask, the same for every prompt of a length
    (A's cells carry its × marks), goes after A, so what step 8 computes is on a small screen first."""
    rows = _panel_rows(view, stage.panels, "output")
    mask = f"output:{view.name('mask')}"
    return sorted(rows, key=lambda row: any(getattr(item, "key", "") == mask for item in row))


def param_grid(view: View, name: str, window: windows.Window | None = None) -> GridSpec:
    """A weight as one grid (name: short, as a stage reads it, or full); W_Q, W_K and W_V show their heads
    side by side. A big weight shows a window of it: the given one, else the step's (windows.py)."""
    full = view.name(name)
    params = view.params
    win = window or windows.param_window(view, full)  # None: the whole weight
    edited = frozenset(view.edited.get(full, ()))
    original = view.original[full] if edited else None
    part = windows.weight_part
    made_of = (
        part(params[full], win),
        params.cfg,
        edited,
        None if original is None else part(original, win),
        win,
    )
    key = ("param", full)
    if (hit := view.kept.find(key, made_of)) is not None:
        return hit
    parts = param_grids(view, full, win)
    if len(parts) > 1 or (win is not None and params[full].ndim == 3):
        parts = [replace(p, title=p.title.partition(" ")[2]) for p in parts]  # "W_Q head 1" -> "head 1"
        title = windows.titled(names.label(full), win)
        return view.kept.keep(
            key,
            made_of,
            side_by_side(view.kept, f"param:{full}", title, parts)
            if len(parts) > 1
            else replace(parts[0], key=f"param:{full}", title=title),
        )
    return view.kept.keep(key, made_of, replace(parts[0], key=f"param:{full}"))


def param_rows(view: View, stage: Stage) -> list[tuple[Item, ...]]:
    return [(param_grid(view, name),) for name in params_read(stage, view.trace.cfg, view.trace.switches)]


def input_rows(view: View, stage: Stage) -> list[tuple[Item, ...]]:
    return _panel_rows(view, stage.inputs, "input")


def step_sections(view: View) -> list[Section]:
    stage = STAGE_BY_NUMBER[view.step]
    made = f"{view.heading[0].upper()}{view.heading[1:]} makes"  # "Step 9 makes", "Block 2 · step 9 makes"
    sections = [Section(made, "output", tuple(output_rows(view, stage)))]
    if params := param_rows(view, stage):
        reads = params_read(stage, view.trace.cfg, view.trace.switches)
        title = "Weights it uses — Enter edits a cell" + windows.weights_note(view, reads)
        sections.append(Section(title, "param", tuple(params)))
    if inputs := input_rows(view, stage):
        sections.append(Section("From earlier steps", "input", tuple(inputs)))
    sections[1:1] = generation_sections(view)  # the next token (step 14), the KV cache (step 6)
    return sections


def all_items(sections: list[Section]) -> list[Item]:
    return [item for s in sections for row in s.rows for item in row]


# ---- a panel (model.panels) as grids ----------------------------------------------------------------


def _panel_rows(view: View, panels: tuple[Panel, ...], role: str) -> list[tuple[Item, ...]]:
    return [row for panel in panels for row in PANEL_ROWS[panel.kind](view, panel, role)]


def _tensor_rows(view: View, panel: Panel, role: str) -> list[tuple[Item, ...]]:
    """One grid per name; a per-head name ("q.{h}") gives one grid with every head side by side."""
    return [(head_grid(view, one, role),) for template in panel.tensors for one in view.templates(template)]


def _token_rows(view: View, panel: Panel, role: str) -> list[tuple[Item, ...]]:
    _, *vector = panel.tensors
    return [(token_grid(view, *vector),)]


def _stats_rows(view: View, panel: Panel, role: str) -> list[tuple[Item, ...]]:
    trace = view.trace
    shown = view.names(panel.tensors)
    key = f"{role}:{shown[0].rpartition('.')[0]}.stats"  # "output:blocks.0.ln1.stats"
    cols = tuple((STAT_LABELS[n.rpartition(".")[2]], n, True) for n in shown)
    return [(columns_grid(view, key, "row statistics", trace.token_labels, cols),)]


def _loss_rows(view: View, panel: Panel, role: str) -> list[tuple[Item, ...]]:
    before, after = view.names(panel.tensors)
    stepped = f"after one step of lr {view.trace.lr:g}"  # the chapter's step on the logits alone
    cols = (("before", before, False), (stepped, after, False))
    return [(columns_grid(view, f"{role}:loss", "loss L = −log p_target", ("L",), cols),)]


def info_grid(key: str, table) -> GridSpec:
    """A table of plain text (the parameter counts): no marks, no shading, nothing to edit."""
    cells = [
        [Cell(cell, detail=f"{table.title}: {r}, {c} = {cell}") for c, cell in zip(table.cols, row)]
        for r, row in zip(table.rows, table.cells)
    ]
    return grid(key, table.title, table.corner, table.rows, table.cols, cells, "", "info", limit=1.0)


def _count_rows(view: View, panel: Panel, role: str) -> list[tuple[Item, ...]]:
    from tinytui.report.step_report import count_tables  # the counts' step only

    return [(info_grid(f"count:{i}", t),) for i, t in enumerate(count_tables(view.trace))]


PANEL_ROWS: MappingProxyType[str, Callable[[View, Panel, str], list[tuple[Item, ...]]]] = MappingProxyType(
    {
        TOKENS: _token_rows,
        TENSOR: _tensor_rows,
        STATS: _stats_rows,
        LOGITS: lambda view, panel, role: [(logits_spec(view),)],
        LOSS: _loss_rows,
        COUNTS: _count_rows,
    }
)
