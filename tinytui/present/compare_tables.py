"""A two-run compare as the app shows it, read off a View: beside each of the step's tables, the same
table of the other run (A) and of the difference (B − A), B being the session's own run, the table the
cursor edits. A cell of A or of B − A is found by the run's cell its B table shows (GridSpec.sources):
the same tensor or weight at the same index in A's trace or weights. B − A carries ▲ or ▼ by its sign
(a glyph as well as a colour, like every change) and is shaded on one diverging scale per table; a
state compared with itself is zeros throughout.

Pure data (no Textual): the numbers are the two traces' and weights'; nothing is computed here beyond
the subtraction the table shows.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from tinytui.lesson.texts.display_names import display
from tinytui.model.names import WHOLE_NUMBERS
from tinytui.present.grid_spec import (
    CHANGED,
    DOWN,
    MASKED,
    UP,
    Cell,
    GridSpec,
    Item,
    LogitsSpec,
    Section,
    grid,
)
from tinytui.present.view import View
from tinytui.report.tables import fmt
from tinytui.session.second_runs import counted

NONE = "·"  # a cell A has no number for (a token, a gradient, a cell outside A's shape)
MASKED_ONLY = frozenset({MASKED})


def value_of(trace: Any, params: Any, grads: Any, name: str, index: tuple[int, ...]) -> float | None:
    """A run's cell: a tensor of its trace, one of its weights or one of its gradients (the backward
    walk's tables) — None when it has no such cell. A row of E's gradient is made alone (GPT-2: the whole
    table is 300 MB, and the walk shows some rows of it)."""
    from tinytui.model.backward.rows import ROWS_OF  # comparing in the backward walk

    try:
        if name in params:
            return float(np.asarray(params[name])[tuple(index)])
        if name in trace:
            return float(np.asarray(trace[name])[tuple(index)])
        if name in ROWS_OF:
            row = grads.rows(name, [index[0]])[0]
            return float(row[tuple(index[1:])])
        return float(np.asarray(grads[name])[tuple(index)])
    except (KeyError, IndexError, TypeError, ValueError):
        return None


def cell_name(name: str, n_blocks: int, index: tuple[int, ...]) -> str:
    """A cell as its table and the inspector's formulas name it: 'A_1[0,2]', 'MHA[1,0] (block 2)', a
    gradient's '∂L/∂W_O[0,0]' (not the canonical 'attn.1')."""
    base, sep, block = display(name, n_blocks).partition(" (")
    return base + f"[{','.join(map(str, index))}]" + (f" ({block}" if sep else "")


def signed(d: float) -> str:
    """B − A as the table writes it: its sign always shown, zero as 0.0000. A difference too small for
    four decimals keeps its sign (+0.0000, -0.0000), as its ▲ or ▼ does: only no change at all is 0.0000."""
    text = fmt(d)
    if text == "0.0000" and d:
        return "+0.0000" if d > 0 else "-0.0000"
    return text if text.startswith("-") or text == "0.0000" else "+" + text


def compare_specs(view: View, spec: GridSpec) -> tuple[GridSpec, GridSpec] | None:
    """The A table and the B − A table for one of the step's tables (None: it shows no run's cells).

    Kept with the app's specs while B's table, both runs and what A is stay the same objects: a view is
    made on every key, and at GPT-2 a step's cells read from two runs took a good part of a second."""
    s = view.other
    comparison, a, a_trace = s.comparison, s.compare_state(), s.compare_trace()
    if comparison is None or a is None or a_trace is None or not spec.sources:
        return None
    key = ("compared", spec.key)
    made_of = (spec, comparison, a_trace, a.params, view.trace, view.params)
    if (hit := view.kept.find_made_of(key, made_of)) is not None:
        return (hit[0], hit[1]) if hit else None
    made = _made_compare_specs(view, spec, comparison, a, a_trace)
    view.kept.keep(key, made_of, list(made) if made is not None else [])
    return made


def _made_compare_specs(
    view: View, spec: GridSpec, comparison: Any, a: Any, a_trace: Any
) -> tuple[GridSpec, GridSpec] | None:
    """compare_specs' tables, made."""
    b_trace, b_params, a_params, a_prompt = view.trace, view.params, a.params, a.prompt
    a_grads, b_grads = view.other.compare_gradients(), view.gradients
    n_blocks = b_trace.cfg.n_blocks
    words = comparison.words_after(view.undo.back)
    a_rows: list[list[Cell]] = []
    d_rows: list[list[Cell]] = []
    any_value = False
    for r, row in enumerate(spec.sources):
        a_row, d_row = [], []
        for c, source in enumerate(row):
            masked = spec.marks[r][c] & MASKED_ONLY  # the causal mask is the same in A: its × stays
            ref = spec.refs[r][c] if spec.refs else None
            if source is None and ref is not None and ref.kind == "token":
                a_cell, d_cell = token_cells(ref.index[0], a_prompt, b_trace.prompt, words)
                a_row.append(a_cell)
                d_row.append(d_cell)
                continue
            if source is None:
                a_row.append(Cell(NONE, detail="A: no number of the run here"))
                d_row.append(Cell(NONE, detail="B − A: no number of the run here"))
                continue
            name, index = source
            a = value_of(a_trace, a_params, a_grads, name, index)
            b = value_of(b_trace, b_params, b_grads, name, index)
            cell = cell_name(name, n_blocks, index)
            if a is None or b is None:
                why = f"{cell}: A ({words}) has no such cell"
                a_row.append(Cell(NONE, detail=why))
                d_row.append(Cell(NONE, detail=why))
                continue
            any_value = True
            d = b - a
            whole = name in WHOLE_NUMBERS and "." not in spec.cells[r][c]
            if whole:  # written as B's table writes them: an id 5, not 5.0000 (the mask as B's table has it)
                a_text, b_text, d_text = f"{a:.0f}", f"{b:.0f}", f"{d:+.0f}" if d else "0"
            else:
                a_text, b_text, d_text = fmt(a), fmt(b), signed(d)
            line = f"{cell}: A ({words}) = {a_text}, B (now) = {b_text}, B − A = {d_text}"
            shaded = spec.values[r][c] is not None  # A shades what B's table shades, no more
            a_row.append(Cell(a_text, masked, a if shaded else None, detail=f"A · {line}"))
            mark = frozenset({UP}) if d > 0 else frozenset({DOWN}) if d < 0 else frozenset()
            if name == "ids" and d:  # another token, not a bigger or smaller one
                mark = frozenset({CHANGED})
            moved = None if name in WHOLE_NUMBERS else d  # a difference of ids is no amount to shade
            d_row.append(Cell(d_text, mark | masked, moved, detail=f"B − A · {line}"))
        a_rows.append(a_row)
        d_rows.append(d_row)
    if not any_value:
        return None
    a_spec = grid(
        f"compare-a:{spec.key}",
        f"A · {a_title(spec, a_trace)}",
        spec.corner,
        spec.rows,
        spec.cols,
        a_rows,
        spec.shade,
        spec.role,
        spec.limit if spec.shade else None,
        spec.groups,
    )
    d_spec = grid(f"compare-d:{spec.key}", f"B − A · {spec.title}", spec.corner, spec.rows, spec.cols, d_rows,
                  "diverging", spec.role, None, spec.groups)  # fmt: skip
    return a_spec, d_spec


def a_title(spec: GridSpec, a_trace: Any) -> str:
    """The title of A's copy of a table: B's, but where B's names B's own outcome (the next token's
    pick: "greedy → 'how'"), what A's rows are and what A itself would pick."""
    if spec.key == "next-token" and spec.sources:
        return f"the tokens B's table shows (→: B's pick); A's likeliest is {a_trace.prediction!r}"
    return spec.title


def token_cells(
    position: int, a_prompt: tuple[str, ...], b_prompt: tuple[str, ...], words: str
) -> tuple[Cell, Cell]:
    """A prompt position's token in A, and in B − A whether it is the same ("=") or which it became
    ("a→the", marked as a change without a direction): a token is a word, not a number to subtract."""
    b_token = b_prompt[position]
    if position >= len(a_prompt):
        why = f"position {position}: A ({words}) has no token here"
        return Cell(NONE, detail=f"A · {why}"), Cell(NONE, detail=f"B − A · {why}")
    a_token = a_prompt[position]
    line = f"position {position}: A ({words}) reads {a_token!r}, B (now) reads {b_token!r}"
    if a_token == b_token:
        return Cell(a_token, detail=f"A · {line}"), Cell("=", detail=f"B − A · {line}: the same token")
    changed = Cell(f"{a_token}→{b_token}", frozenset({CHANGED}), detail=f"B − A · {line}")
    return Cell(a_token, detail=f"A · {line}"), changed


def with_comparison(view: View, sections: list[Section]) -> list[Section]:
    """Each table of the step as A, B and B − A side by side (under each other when too wide)."""
    s = view.other
    if s.comparison is None:
        return sections
    out = []
    for section in sections:
        rows: list[tuple[Item, ...]] = []
        for row in section.rows:
            items: list[Item] = []
            for item in row:
                if isinstance(item, LogitsSpec):
                    made = compare_specs(view, logits_table(item))
                else:
                    made = compare_specs(view, item)
                if made is None:
                    items.append(b_only(item))
                    continue
                a_spec, d_spec = made
                items += [a_spec, replace(item, title=f"B · {item.title}"), d_spec]
            rows.append(tuple(items))
        out.append(section._replace(rows=tuple(rows)))
    return [compare_heading(view), *out]


B_ONLY = ("lens", "patch:")  # tables of the run's analyses: made of B's run alone, never of A's


def b_only(item: Item) -> Item:
    """A table left as it is while comparing: the lens and the patching read B's run alone, and say so
    (under the heading "A: … · B: now" an unmarked table would leave which run it shows to a guess)."""
    if isinstance(item, GridSpec) and item.key.startswith(B_ONLY):
        return replace(item, title=f"B only · {item.title}")
    return item


def logits_table(item: LogitsSpec) -> GridSpec:
    """The bars' logits and probabilities as a table of the run's cells, so A's and B − A's can be made of
    it like any step's; its rows are the tokens the bars show (a long vocabulary: B's likeliest)."""
    cells = [
        [Cell(r.logit, source=r.logit_source), Cell(r.prob, value=r.p, source=r.prob_source)]
        for r in item.rows
    ]
    rows = tuple(r.token for r in item.rows)
    title = "ℓ and p of the tokens the bars show"
    return grid("logits-table", title, "token", rows, ("ℓ", "p"), cells, "heat", "output", 1.0)


def compare_heading(view: View) -> Section:
    """What is compared, as the step's first heading."""
    s = view.other
    assert s.comparison is not None
    words = s.comparison.words_after(view.undo.back)
    a = s.compare_state()
    assert a is not None
    a_prompt, b_prompt = a.prompt, view.trace.prompt
    note = ""
    n, m = len(a_prompt), len(b_prompt)
    last = "; z, ℓ and p are each run's own last position"  # the final norm reads the last row alone
    if n < m:
        note = f" — A's prompt has {counted(n)} and B's {m}: A has no cell past position {n - 1} (·){last}"
    elif n > m:  # the tables are B's shape: A's last positions have no row in them
        note = (
            f" — A's prompt has {counted(n)} and B's {m}: A's rows past position {m - 1} are not shown{last}"
        )
    title = f"Two runs — A: {words} · B: now · B − A: ▲ up, ▼ down (C){note}"
    return Section(title, "info", ())


A_KEY, D_KEY = "compare-a:", "compare-d:"


def twin_cells(keys: list[str], at: int, row: int, col: int) -> dict[int, frozenset[tuple[int, int]]]:
    """Where the cursor's cell is in the other two tables of A, B and B − A: {box number: {(row, col)}},
    keys being every box's key in order and at the cursor's box (nothing when it is in none of them)."""
    key = keys[at]
    base = key.removeprefix(A_KEY).removeprefix(D_KEY)
    family = {base, A_KEY + base, D_KEY + base}
    if A_KEY + base not in keys:
        return {}
    return {i: frozenset({(row, col)}) for i, k in enumerate(keys) if k in family and i != at}
