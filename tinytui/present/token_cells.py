"""The grids of the tokens, read off a View: the prompt's table (position, token, id and the vector a step
makes) and the logits' bars (the whole vocabulary, or its likeliest tokens and the target).

Pure data (no Textual), like the rest of cells; the change marks and "was" notes are cells_tensors'.
"""

from __future__ import annotations

import numpy as np

from tinytui.model import names
from tinytui.present import windows
from tinytui.present.grid_spec import (
    CHANGED,
    Cell,
    CellRef,
    GridSpec,
    LogitRow,
    LogitsSpec,
    _keep,
    _kept,
    grid,
)
from tinytui.present.tensor_cells import _change_marks, _was
from tinytui.present.top_tokens import TOP, shown_tokens
from tinytui.present.view import View
from tinytui.report.display_names import display, pe_columns
from tinytui.report.tables import fmt, title_of


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
    unmarked = all(view.diff.get(n) is None or not view.diff.get(n).changed.any() for n in ("ids", vec) if n)
    made_of = (
        vec,
        trace.prompt,
        trace.target,
        ids,
        None if values is None else windows.part(values, win),
        win,
        trace.cfg,
    )
    key = ("tokens", vec)
    if unmarked and (hit := _kept(key, made_of)) is not None:
        return hit  # the same prompt and vector, nothing to mark: the table shown last time
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
    heads = pe_columns(trace.cfg) if vec == "pe" else dims  # a wave, not the dimension it is added to
    cols = ("token", "id", *(heads[j] for j in at_cols))
    spec = grid("tokens", title, "position", positions, cols, cells, "diverging", "output", groups=groups)
    return _keep(key, made_of, spec) if unmarked else spec


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
