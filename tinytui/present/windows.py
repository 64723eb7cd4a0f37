"""Which part of a big array a table is built for: a window of rows and columns, never the whole of it.

Pure data like cells.py (no Textual). A table of at most CELLS cells is built whole, as it always was;
a bigger one (GPT-2's E is 50,257 × 768, a block's W_1 768 × 3,072) is built for a window of at most
ROWS × COLS cells; its title says which part is shown, and its title (a tensor's, the parameter
browser's) or its section's heading (a step's weights) where the rest is. A window holds the
TRUE indices of its rows and columns, so the cells' sources and refs name the weight's or tensor's own
cells: an edit in a window lands on the right weight, provenance names the right cell, f finds it.

Which window: E's rows of the prompt's tokens and the target (what steps 2 and 14 read; step 14 adds the
tokens its logit pane shows), a vector over the vocabulary its logit pane's tokens too, anything else its
first rows and columns. The parameter browser moves its window a page at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from tinytui.lesson.panels import LOGITS
from tinytui.lesson.stages import STAGE_BY_NUMBER
from tinytui.lesson.texts.display_names import param_axes
from tinytui.model import names
from tinytui.model.trace import Axis, Tensor
from tinytui.present.view import View
from tinytui.report.lazy_rows import LazyRows
from tinytui.report.tables import NamedTensors, Table, number_rows, tensor_table

# Measured (benchmarks/bench_windows.py, and cells.param_grid at ~8 µs a cell on a loaded 2-core machine):
# the biggest tables today's models show (a 2,000-token E at d 8, a d 64 model's 64 × 256 W_1, 64 tokens
# of its hidden layer) are 16,000-16,384 cells and build in ~110-130 ms; a 64 × 64 window in ~35 ms.
# a table of at most CELLS cells is built whole: the same bound as a printed report's (report_window)
ROWS = 64  # a bigger one: at most this many rows
COLS = 64  # and columns
# where the rest is: a window of a tensor says it in its title; of a weight, in its section's heading (a
# weight's caption is long enough already: E's must fit an 80-column pane)
TENSOR_REST = "all: tinytui trace"
BROWSER_REST = "J K: rows · H L: columns"
WEIGHTS_NOTE = " · all of a big one: ctrl+p → Edit parameter…"


# a NamedTuple, not a frozen dataclass: loaded as the app starts, and a frozen dataclass compiles
# its methods from source as its class is made (~3 M instructions; a NamedTuple's ~0.5 M)
class Window(NamedTuple):
    """The rows and columns of a table that are built: true indices, in the order shown."""

    rows: Sequence[int]  # a range, or the picked rows (a tuple)
    cols: Sequence[int]
    n_rows: int  # the whole table's
    n_cols: int
    picked: str = ""  # what the picked rows are ("the prompt's tokens and the target"); "" = a range
    picked_cols: str = ""  # the same for picked columns
    rest: str = ""  # how to see the rest ("": the section's heading says it)
    head_width: int = 0  # a 3-d weight's per-head width (its heads' columns side by side), else 0

    def caption(self) -> str:
        """'rows 0–63 of 768 · columns 0–63 of 3,072', 'rows of the prompt's tokens and the target (9 of
        50,257)', 'columns 0–63 of 768 (head 1 of 12)'; an axis shown whole is not mentioned."""
        parts = [
            _axis(self.rows, self.n_rows, "rows", self.picked),
            _axis(self.cols, self.n_cols, "columns", self.picked_cols) + self._heads(),
        ]
        return " · ".join(p for p in parts if p)

    def _heads(self) -> str:
        if not self.head_width or len(self.cols) == self.n_cols:
            return ""
        first, last = self.cols[0] // self.head_width + 1, self.cols[-1] // self.head_width + 1
        of = self.n_cols // self.head_width
        return f" (head {first} of {of})" if first == last else f" (heads {first}–{last} of {of})"

    def head_cols(self, head: int) -> list[int]:
        """A 3-d weight's head: its own columns (0 … head_width − 1) that the window shows."""
        lo = head * self.head_width
        return [c - lo for c in self.cols if lo <= c < lo + self.head_width]

    def page(self, d_rows: int, d_cols: int) -> Window:
        """The window moved by whole pages (d_rows, d_cols: −1, 0 or +1), the last page kept full."""
        rows = _moved(self.rows, self.n_rows, d_rows)
        cols = _moved(self.cols, self.n_cols, d_cols)
        return Window(rows, cols, self.n_rows, self.n_cols, rest=self.rest, head_width=self.head_width)

    def at_edge(self, d_rows: int, d_cols: int) -> bool:
        """Whether that page is this one (nothing more that way)."""
        return self.page(d_rows, d_cols) == self

    def edge_note(self, d_rows: int, d_cols: int) -> str:
        """'Rows 704–767 are the last of 768.': why a page that way is not there."""
        shown, n, noun = (self.rows, self.n_rows, "Rows") if d_rows else (self.cols, self.n_cols, "Columns")
        end = "last" if (d_rows or d_cols) > 0 else "first"
        return f"{noun} {shown[0]}–{shown[-1]} are the {end} of {n:,}."


def _axis(shown: Sequence[int], n: int, noun: str, picked: str) -> str:
    if picked:
        return f"{len(shown):,} of {n:,} {noun} ({picked})"
    if len(shown) == n:
        return ""
    return f"{noun} {shown[0]}–{shown[-1]} of {n:,}"


def _moved(shown: Sequence[int], n: int, pages: int) -> range:
    size = len(shown)
    start = min(max(shown[0] + pages * size, 0), n - size)
    return range(start, start + size)


def _first(n_rows: int, n_cols: int, rest: str, head_width: int = 0) -> Window | None:
    """The first ROWS × COLS of a table (None: it is small enough to be built whole)."""
    from tinytui.report.print_window import CELLS  # a big table's

    if n_rows * n_cols <= CELLS:
        return None
    return Window(
        range(min(n_rows, ROWS)), range(min(n_cols, COLS)), n_rows, n_cols, rest=rest, head_width=head_width
    )


def table_shape(arr: np.ndarray) -> tuple[int, int, int]:
    """(rows, columns, per-head width) of a weight's table: a 3-d weight's heads sit side by side."""
    if arr.ndim == 3:
        return arr.shape[1], arr.shape[0] * arr.shape[2], arr.shape[2]
    if arr.ndim == 1:
        return 1, arr.shape[0], 0
    return arr.shape[0], arr.shape[1], 0


def browser(arr: np.ndarray) -> Window | None:
    """The parameter browser's first page of a weight (None: the weight fits whole)."""
    n_rows, n_cols, width = table_shape(arr)
    return _first(n_rows, n_cols, BROWSER_REST, width)


def token_ids(view: View) -> tuple[int, ...]:
    """The vocabulary rows a step reads: the prompt's ids in order (each once), then the target's; a step
    that shows the logit pane (14, ℓ = z Eᵀ) adds the tokens the pane shows. At most ROWS of them."""
    trace = view.trace
    ids = [int(i) for i in trace["ids"]]
    vocab = trace.cfg.vocab
    if trace.target in vocab:
        ids.append(vocab.index(trace.target))
    if _shows_logits(view):
        ids.extend(_pane_ids(view))
    return tuple(dict.fromkeys(ids))[:ROWS]


def _shows_logits(view: View) -> bool:
    stage = STAGE_BY_NUMBER[view.step]
    return any(panel.kind == LOGITS for panel in (*stage.panels, *stage.inputs))


def _pane_ids(view: View) -> tuple[int, ...]:
    from tinytui.present.top_tokens import shown_tokens  # the logits' steps only, not the start's

    vocab = view.trace.cfg.vocab
    target = vocab.index(view.trace.target) if view.trace.target in vocab else None
    return shown_tokens(view.trace["probs"], target).ids


def param_window(view: View, full: str) -> Window | None:
    """A step's window of a weight: E's rows of the prompt's tokens and the target, else its first rows and
    columns (None: the weight is built whole)."""
    arr = view.params[full]
    n_rows, n_cols, width = table_shape(arr)
    first = _first(n_rows, n_cols, "", width)
    if first is None or names.split(full)[1] != "E":
        return first
    picked = "prompt, target, top logits" if _shows_logits(view) else "prompt and target"
    return Window(token_ids(view), first.cols, n_rows, n_cols, picked)


def weights_note(view: View, reads: Sequence[str]) -> str:
    """What a step's weights heading adds when one of them is shown in part: where the rest is."""
    shown = [view.name(n) for n in reads if n in names.ALL_PARAMS]
    return WEIGHTS_NOTE if any(param_window(view, full) for full in shown) else ""


def tensor_window(
    view: View, shape: tuple[int, int], axes: Sequence[str], rest: str = TENSOR_REST
) -> Window | None:
    """A tensor's window (its table's shape and axis names): a vector over the vocabulary shows the logit
    pane's tokens, anything else its first rows and columns (None: built whole)."""
    first = _first(*shape, rest)
    if first is None or axes[-1] != "vocab" or shape[0] != 1:
        return first
    ids = _pane_ids(view)
    return Window(range(1), ids, 1, shape[1], picked_cols="top logits and target", rest=rest)


def gradient_window(view: View, t: Tensor, weight: str | None) -> Window | None:
    """A gradient's window: a weight's (weight: its full name; E's shares are E's) as the step shows the
    weight, a tensor's as the step shows the tensor (None: built whole)."""
    if weight is not None:
        return param_window(view, weight)
    shape = (1, t.values.shape[0]) if t.values.ndim == 1 else t.values.shape[-2:]
    return tensor_window(view, shape, [a.name for a in t.axes])


def part(arr: np.ndarray, win: Window | None) -> np.ndarray:
    """A table's values (rows × columns) inside the window: the array itself when there is none."""
    return arr if win is None else at(arr, win.rows, win.cols)


def at(arr: np.ndarray, rows: Sequence[int], cols: Sequence[int]) -> np.ndarray:
    """These rows and columns of a 2-d array (the array itself when they are all of it, in order)."""
    if rows == range(arr.shape[0]) and cols == range(arr.shape[1]):
        return arr
    return arr[np.ix_(np.asarray(rows, dtype=int), np.asarray(cols, dtype=int))]


def weight_part(arr: np.ndarray, win: Window | None) -> np.ndarray:
    """A weight's cells inside the window, as a copy (what a kept table was made of)."""
    if win is None:
        return np.array(arr)
    if arr.ndim == 1:
        return arr[np.asarray(win.cols, dtype=int)].copy()
    if arr.ndim == 2:
        return part(arr, win).copy()
    cols = np.asarray(win.cols, dtype=int)
    rows = np.asarray(win.rows, dtype=int)
    return arr[cols[None, :] // win.head_width, rows[:, None], cols[None, :] % win.head_width]


def indices(win: Window | None, n_rows: int, n_cols: int) -> tuple[Sequence[int], Sequence[int]]:
    """The true rows and columns a table shows: all of them when there is no window."""
    if win is None:
        return range(n_rows), range(n_cols)
    return win.rows, win.cols


def titled(title: str, win: Window | None) -> str:
    """A table's title with the part it shows and where the rest is ('W_1 — rows 0–63 of 768 · …')."""
    if win is None:
        return title
    return f"{title} — {win.caption()}" + (f" · {win.rest}" if win.rest else "")


def table(
    title: str,
    corner: str,
    rows: Sequence[str],
    cols: Sequence[str],
    arr: np.ndarray,
    at_rows: Sequence[int],
    at_cols: Sequence[int],
) -> Table:
    """The window of a table as report.Table: its labels and its numbers (at_rows × at_cols of arr)."""
    values = at(arr, at_rows, at_cols)
    return Table(
        title,
        corner,
        tuple(rows[r] for r in at_rows),
        tuple(cols[c] for c in at_cols),
        number_rows(values),
    )


def numbers_of(table: Table) -> tuple[LazyRows, Sequence[Sequence[float]]]:
    """A table of numbers' cells and the numbers they are written from: every table here and report's
    tensor_table and param_table write theirs with tables.number_rows, which keeps them (LazyRows.basis)."""
    cells = table.cells
    assert isinstance(cells, LazyRows) and cells.basis is not None, "a table not written by number_rows"
    return cells, cells.basis


def param_tables(
    view: View, full: str, win: Window | None, whole
) -> list[tuple[int, Table, Sequence, Sequence]]:
    """(head, table, its true rows, its true columns) for each table of a weight: whole(), report's
    param_table, when there is no window; else the window's part, a 3-d weight's heads outside it left out."""
    arr = view.params[full]
    if win is None:
        return [(h, t, range(len(t.rows)), range(len(t.cols))) for h, t in enumerate(whole())]
    cfg = view.trace.cfg
    label = names.label(full, cfg.n_blocks)
    corner, rows, cols = param_axes(cfg, full, arr.ndim, arr.shape[-1])

    def made(head: int, title: str, row_labels, values: np.ndarray, at_rows, at_cols):
        return head, table(title, corner, row_labels, cols, values, at_rows, at_cols), at_rows, at_cols

    if arr.ndim == 3:
        heads = [(h, win.head_cols(h)) for h in range(arr.shape[0])]
        return [made(h, f"{label} head {h + 1}", rows, arr[h], win.rows, mine) for h, mine in heads if mine]
    if arr.ndim == 1:
        return [made(0, titled(label, win), (label,), arr[None, :], range(1), win.cols)]
    title = f"{label} (vocab × dims)" if names.split(full)[1] == "E" else label
    return [made(0, titled(title, win), rows, arr, win.rows, win.cols)]


class _Part:
    """One tensor's window, read as report.tensor_table reads a trace (so the window's table has the
    whole table's title, labels and number format)."""

    def __init__(self, t: Tensor, win: Window) -> None:
        rows, cols = np.asarray(win.rows, dtype=int), np.asarray(win.cols, dtype=int)
        if t.values.ndim == 1:
            at = rows if t.axes[0].name == "tokens" else cols
            self.part = Tensor(t.name, t.values[at], (_labels(t.axes[0], at),))
        else:
            values = t.values[np.ix_(rows, cols)]
            self.part = Tensor(t.name, values, (_labels(t.axes[0], rows), _labels(t.axes[1], cols)))

    def tensor(self, name: str) -> Tensor:
        return self.part


def _labels(axis: Axis, at: np.ndarray) -> Axis:
    return Axis(axis.name, tuple(axis.labels[i] for i in at))


def tensor_part_table(trace: NamedTensors, name: str, shown: str, win: Window | None) -> Table:
    """report.tensor_table of the whole tensor, or of the window's part with the window in its title."""
    if win is None:
        return tensor_table(trace, name, shown=shown)
    made = tensor_table(_Part(trace.tensor(name), win), name, shown=shown)
    return made._replace(title=titled(made.title, win))
