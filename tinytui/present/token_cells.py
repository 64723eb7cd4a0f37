"""The grids of the tokens, read off a View: the prompt's table (position, token, id and the vector a step
makes) and the logits' bars (the whole vocabulary, or its likeliest tokens and the target).

Pure data (no Textual), like the rest of cells; the change marks and "was" notes are cells_tensors'.
"""

from __future__ import annotations

import numpy as np

from tinytui.lesson.texts.display_names import display, pe_columns
from tinytui.model import names
from tinytui.present import windows
from tinytui.present.grid_spec import (
    _NO_MARKS,
    CHANGED,
    CellRef,
    GridSpec,
    LogitRow,
    LogitsSpec,
    array_limit,
)
from tinytui.present.tensor_cells import _change_marks, _mark_codes, _marked_by, _marks_of, _was_in
from tinytui.present.view import View
from tinytui.report.lazy_rows import LazyRows
from tinytui.report.tables import fmt, number_rows, title_of


def token_grid(view: View, vec: str | None = None) -> GridSpec:
    """Position, token and id, plus the vector the step makes (E[id], PE or x), dims labelled."""
    trace = view.trace
    dims = trace.cfg.dims if vec else ()
    shape = (len(trace.prompt), len(dims))
    win = windows.tensor_window(view, shape, ("tokens", "dims")) if vec else None  # None: all of it
    at_rows, at_cols = windows.indices(win, *shape)
    ids = trace["ids"]
    # read once per table, not once per cell: the vector, its names, whether any of it changed
    part = windows.part(trace[vec], win) if vec else None  # the vector inside the window
    moved_ids = view.diff.get("ids")
    marked = _marked_by(view, vec, False, win) if vec else ()
    made_of = (
        vec,
        trace.prompt,
        trace.target,
        ids,
        part,
        win,
        trace.cfg,
        moved_ids.changed if moved_ids is not None and moved_ids.n_changed else None,
        *marked,
    )
    key = ("tokens", vec)
    if (hit := view.kept.find(key, made_of)) is not None:
        return hit  # the same prompt, vector and marks: the table shown last time
    shown, canon = (display(vec), names.canonical(vec)) if vec else ("", "")
    n_rows, n_cols = len(at_rows), len(at_cols)
    tokens = tuple(trace.prompt[p] for p in at_rows)
    id_texts = tuple(str(int(ids[p])) for p in at_rows)
    # the token and its id, then the vector's numbers (tables.number_rows: each row written when drawn)
    head = tuple(zip(tokens, id_texts))
    cells = LazyRows(n_rows, head.__getitem__, (max(map(len, tokens)), max(map(len, id_texts))))
    id_marks = [frozenset({CHANGED}) if _change_marks(view, "ids", (p,)) else _NO_MARKS for p in at_rows]
    blank = (None,) * n_cols
    numbers: tuple = ((),) * n_rows
    vector_marks: tuple = ((),) * n_rows
    limit = 1.0
    if part is not None:
        cells = LazyRows.joined([cells, number_rows(part)], n_rows)
        numbers = tuple(map(tuple, part.tolist()))
        limit = array_limit(part)
        vector_marks = _marks_of(_mark_codes(marked, part.shape))
    marks = tuple((m, m, *row) for m, row in zip(id_marks, vector_marks))
    shaded = tuple((None, None, *row) for row in numbers)
    refs = tuple((CellRef("token", "prompt", (p,), f"position {p}"), None, *blank) for p in at_rows)

    was = _was_in(view, vec) if vec else None

    def detail_row(r: int) -> list[str]:
        p, tok = at_rows[r], tokens[r]
        out = [f"position {p}: {tok!r}  · Enter to choose another token", f"{tok!r} is id {id_texts[r]}"]
        for c, j in enumerate(at_cols):
            out.append(f"{shown}[{p}:{tok}, {dims[j]}] = {fmt(numbers[r][c])}{was((p, j)) if was else ''}")
        return out

    def sources_row(r: int) -> tuple:
        p = at_rows[r]
        return (None, ("ids", (p,)), *((canon, (p, j)) for j in at_cols))

    groups: tuple[tuple[str, int], ...] = ()
    if vec:
        groups = (("", 2), (title_of(vec, trace.cfg, trace.switches) or shown, n_cols))
    title = windows.titled(f"the prompt → target {trace.target!r}", win)
    positions = tuple(str(p) for p in at_rows)
    heads = pe_columns(trace.cfg) if vec == "pe" else dims  # a wave, not the dimension it is added to
    cols = ("token", "id", *(heads[j] for j in at_cols))
    spec = GridSpec(
        "tokens",
        title,
        "position",
        positions,
        cols,
        cells,
        marks,
        shaded,
        "diverging",
        limit,
        refs,
        LazyRows(n_rows, detail_row),
        "output",
        groups,
        LazyRows(n_rows, sources_row),
    )
    return view.kept.keep(key, made_of, spec)


def logits_spec(view: View) -> LogitsSpec:
    """A bar per token; a long vocabulary shows its most likely tokens and the target (top_tokens)."""
    from tinytui.present.top_tokens import TOP, shown_tokens  # the logits' steps only, not the start's

    trace = view.trace
    logits, probs = trace["logits"], trace["probs"]
    vocab = trace.cfg.vocab
    target = vocab.index(trace.target) if trace.target in vocab else None
    predicted = int(np.argmax(probs))
    shown = shown_tokens(probs, target, vocab=vocab)  # its line names a tie the cut leaves out
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
    named = title_of("logits", trace.cfg)  # ℓ = z Eᵀ, or z W_U in a model with its own unembedding
    title = f"{named} and p = softmax(ℓ), one bar per token"
    if shown.ranked:
        title = f"{named} and p = softmax(ℓ): the top {TOP} of {len(vocab):,} tokens and the target"
    return LogitsSpec("logits", title, tuple(rows), shown.line())
