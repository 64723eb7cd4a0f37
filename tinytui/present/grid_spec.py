"""A table as the Grid draws it: GridSpec and its parts (CellRef, Cell, the marks), the bars'
LogitsSpec, a step's Section, and KeptSpecs: the specs kept for tables that did not change (one per
app, carried by its View; nothing is kept at module level).

Pure data (no Textual); tinytui.present.cells (with cells_tensors, cells_tokens) and param_grids make these
from a View.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any, Generic, NamedTuple, TypeVar

import numpy as np

from tinytui.report.lazy_rows import LazyRows
from tinytui.report.tables import on_screen_rows, on_screen_text

# Cell marks. Each one is drawn with a glyph as well as a style, so none is carried by colour alone.
EDITED = "edited"  # a weight that differs from the model file
UP = "changed-up"  # went up since the comparison trace
DOWN = "changed-down"  # went down
CHANGED = "changed"  # changed without a direction (a token, or the prompt changed length)
MASKED = "masked"  # blocked by the causal mask
GLYPHS = MappingProxyType({EDITED: "*", UP: "▲", DOWN: "▼", CHANGED: "◆", MASKED: "×"})
PRECEDENCE = (EDITED, UP, DOWN, CHANGED, MASKED)  # which style a cell with several marks takes
# which glyph: the mask's × before a change's, so a blocked cell reads as blocked in every view (a masked
# score that moved still shows its change in the style; it reaches no weight after the softmax)
GLYPH_PRECEDENCE = (EDITED, MASKED, UP, DOWN, CHANGED)


@dataclass(frozen=True)
class CellRef:
    """Where a cell's value lives, so an edit can be sent to the session."""

    kind: str  # "param" (a weight: edit the number) or "token" (a prompt position: pick a token)
    name: str  # the full parameter name, or "prompt"
    index: tuple[int, ...]
    label: str  # as the user reads it, e.g. "W_O[h1.k0, thing]"


Source = tuple[str, tuple[int, ...]]  # a cell of the run: canonical name, full index


T = TypeVar("T")


class Located:
    """Where a table shows each run's cell, (row, col) by source, found the first time it is asked for.
    Made with the sources it indexes and kept with them: every spec made of the same sources (a table
    whose numbers changed, a weight's table patched after an edit) finds its cells without reading
    them all again."""

    __slots__ = ("_cells", "_names", "sources")

    def __init__(self, sources: Sequence[Sequence[Source | None]]) -> None:
        self.sources = sources
        self._cells: dict[Source, tuple[int, int]] | None = None
        self._names: frozenset[str] | None = None

    @property
    def names(self) -> frozenset[str]:
        """The names of the tensors (or weights, gradients) whose cells the table shows: a cell's
        operands are looked for only in the tables that show their tensor."""
        if self._names is None:
            self._names = frozenset(name for name, _ in self.cells)
        return self._names

    @property
    def cells(self) -> dict[Source, tuple[int, int]]:
        if self._cells is None:
            where: dict[Source, tuple[int, int]] = {}
            for r, row in enumerate(self.sources):
                for c, src in enumerate(row):
                    if src is not None:
                        where.setdefault(src, (r, c))
            self._cells = where
        return self._cells


@dataclass(frozen=True)
class GridSpec:
    """One table as the Grid draws it: its title and labels, each cell's text, marks and shade, which
    cells can be edited, and which cell of the run each one shows."""

    key: str  # stable across redraws of the same step: lets a redraw keep the cursor and focus
    title: str
    corner: str
    rows: tuple[str, ...]
    cols: tuple[str, ...]
    cells: LazyRows  # formatted text, rows × cols, each row written when first read (given as a tuple too)
    marks: tuple[tuple[frozenset[str], ...], ...]
    # what the shading reads (None = not shaded): a tuple, or the numbers a table's texts are written from
    values: Sequence[Sequence[float | None]]
    shade: str  # "diverging", "heat" or ""
    limit: float  # the diverging scale's ±end
    refs: Sequence[tuple[CellRef | None, ...]]  # editable cells (a weight's: LazyRows, a row made when read)
    details: LazyRows  # the inspector line for each cell (rows × cols, each row written when first read)
    role: str  # "output", "param", "input" or "info"
    groups: tuple[tuple[str, int], ...] = ()  # header spans over the columns
    # which trace tensor, weight or gradient cell each cell shows: (canonical name, full index) or None;
    # the app explains the focused cell (model.provenance) and lights up the cells it reads
    sources: Sequence[Sequence[Source | None]] = ()  # a tuple, or LazyRows made when read
    # where the sources' cells are, shared by the specs made of the same sources (None: found anew)
    located: Located | None = field(default=None, compare=False, repr=False)
    # the tables this one is side by side (cells.side_by_side): too wide, it is shown as them again
    parts: tuple[GridSpec, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        # on screen a number's minus sign is −, as in the formulas and legends (tables.on_screen): in
        # each row when it is first read, a cell's text and an inspector line alike (✓−0.47 too)
        object.__setattr__(self, "cells", on_screen_rows(self.cells))
        object.__setattr__(self, "details", on_screen_rows(self.details))

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.rows), len(self.cols)

    @cached_property
    def shaded(self) -> bool:
        """Whether any cell carries a shade value."""
        return any(v is not None for row in self.values for v in row)

    @cached_property
    def _located(self) -> Located:
        """The Located made with its sources when it came with one (every run of one window of a tensor
        shares them: tensor_cells._sources), else one of its own."""
        located = self.located
        if located is None or located.sources is not self.sources:
            located = Located(self.sources)
        return located

    @property
    def where(self) -> dict[Source, tuple[int, int]]:
        """Where the table shows each run's cell (row, col), looked up when a cell's operands are lit."""
        return self._located.cells

    @property
    def shown_names(self) -> frozenset[str]:
        """The names of the tensors whose cells the table shows (Located.names)."""
        return self._located.names

    def find(self, text: str) -> tuple[int, int] | None:
        """The first cell showing exactly this text (for tests and for placing a cursor)."""
        for r, row in enumerate(self.cells):
            for c, cell in enumerate(row):
                if cell == text:
                    return r, c
        return None


class KeptBySpec(Generic[T]):
    """A value kept for each spec while the spec lives: the spec is held weakly, by its id, and its entry
    goes with it (an id a newer spec reuses never finds the older one's value); at most `limit` entries
    (None: no bound), the oldest going first."""

    def __init__(self, limit: int | None = None) -> None:
        self._kept: dict[int, tuple[weakref.ref, T]] = {}
        self._limit = limit

    def clear(self) -> None:
        self._kept.clear()

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, spec: object) -> T | None:
        kept = self._kept.get(id(spec))
        return kept[1] if kept is not None and kept[0]() is spec else None

    def put(self, spec: object, value: T) -> T:
        if self._limit is not None and len(self._kept) >= self._limit:
            del self._kept[next(iter(self._kept))]
        key = id(spec)
        self._kept[key] = (weakref.ref(spec, lambda ref: self._gone(key, ref)), value)
        return value

    def _gone(self, key: int, ref: weakref.ref) -> None:
        kept = self._kept.get(key)
        if kept is not None and kept[0] is ref:  # not a newer spec's entry under a reused id
            del self._kept[key]


@dataclass(frozen=True)
class LogitRow:
    """One token's row of the logits table: its logit and probability as written, the probability for
    the bar, their marks, and whether it is the target or the prediction."""

    token: str
    logit: str
    prob: str
    p: float  # the probability, for the bar's length
    logit_mark: frozenset[str]
    prob_mark: frozenset[str]
    target: bool
    predicted: bool
    logit_source: Source | None = None  # ("logits", (i,)): what the run's cell is
    prob_source: Source | None = None

    def __post_init__(self) -> None:  # a negative logit's sign is −, as in the tables
        object.__setattr__(self, "logit", on_screen_text(self.logit))
        object.__setattr__(self, "prob", on_screen_text(self.prob))


@dataclass(frozen=True)
class LogitsSpec:
    """The logits table with its probability bars: one LogitRow per token shown, and a line for the
    tokens left out of a long vocabulary."""

    key: str
    title: str
    rows: tuple[LogitRow, ...]
    others: str = ""  # a long vocabulary: the line for the tokens not shown (top_tokens.Shown.line)

    @property
    def number_width(self) -> int:
        """The logit and probability columns' width: 7 (−1.2345), or the widest number's (−16.0692)."""
        return max(7, *(max(len(r.logit), len(r.prob)) for r in self.rows))


Item = GridSpec | LogitsSpec


# a NamedTuple, not a frozen dataclass: loaded as the app starts, and a frozen dataclass compiles
# its methods from source as its class is made (~3 M instructions; a NamedTuple's ~0.5 M)
class Section(NamedTuple):
    """One section of a step's tables: its heading, its role, and its tables in rows (a row's tables
    side by side when they fit)."""

    title: str
    role: str  # "output", "param" or "input": how its tables are framed
    rows: tuple[tuple[Item, ...], ...]  # each row's items sit side by side when they fit


# a NamedTuple, not a frozen dataclass: loaded as the app starts, and a frozen dataclass compiles
# its methods from source as its class is made (~3 M instructions; a NamedTuple's ~0.5 M)
class Cell(NamedTuple):
    """One cell as a builder makes it; grid() lays a table of these out as a GridSpec's parallel fields."""

    text: str
    marks: frozenset[str] = frozenset()
    value: float | None = None  # None = not shaded
    ref: CellRef | None = None
    detail: str = ""
    source: Source | None = None  # the run's cell it shows (see GridSpec.sources)


def grid(
    key: str,
    title: str,
    corner: str,
    rows: tuple[str, ...],
    cols: tuple[str, ...],
    cells: list[list[Cell]],
    shade: str,
    role: str,
    limit: float | None = None,  # None: the largest |value|
    groups: tuple[tuple[str, int], ...] = (),
) -> GridSpec:
    def field(name: str) -> tuple:
        return tuple(tuple(getattr(cell, name) for cell in row) for row in cells)

    values = field("value")
    return GridSpec(
        key,
        title,
        corner,
        tuple(rows),
        tuple(cols),
        LazyRows.of(field("text")),
        field("marks"),
        values,
        shade,
        _limit(values) if limit is None else limit,
        field("ref"),
        LazyRows.of(field("detail")),
        role,
        groups,
        field("source"),
    )


def glyph(marks: frozenset[str]) -> str:
    for mark in GLYPH_PRECEDENCE:
        if mark in marks:
            return GLYPHS[mark]
    return " "


def array_limit(values: np.ndarray) -> float:
    """The diverging scale's ±end of an array's numbers: the largest |value| (1 when there is none), as
    _limit reads a table's values, in one pass."""
    largest = float(np.max(np.abs(values))) if values.size else 0.0
    return largest if largest > 0 else 1.0


def _limit(values) -> float:
    flat = [abs(v) for row in values for v in row if v is not None]
    return max(flat) if flat and max(flat) > 0 else 1.0


KEPT_CELLS = 400_000  # the cells the kept specs of one app show at most

_NO_MARKS: frozenset[str] = frozenset()
_EDITED = frozenset({EDITED})
# a cell's marks by code: 0 none, 1 up, 2 down, 3 changed (+4: masked too)
_MARKS = tuple(frozenset(m | extra) for extra in (set(), {MASKED}) for m in (set(), {UP}, {DOWN}, {CHANGED}))


class KeptSpecs:
    """Specs kept for tables that did not change: a step's tables whose tensor (or weight) has the same
    values and marks are the same GridSpec object as last time, so the view redraws nothing. Keyed by
    what the table is; an entry holds what its spec was made from, and is used only when all of that is
    equal again, or when it was kept with the very objects it was made from (find_by: nothing to work
    out or compare beyond them). Each key keeps its last two specs: a switch toggled on and off, or an
    edit and its undo, goes back and forth between two looks of the same table. Bounded by the cells the
    kept specs show (a d_model 64 model's steps, every head of both blocks, fit; a few GPT-2 tables do):
    the least recently used go first.

    One per app (it makes each View with it), so what is kept dies with the app; clear() empties it."""

    def __init__(self, cells: int = KEPT_CELLS) -> None:
        self.limit = cells
        # key -> (what its spec was made of, the spec: a GridSpec or a list, the objects it was made from
        # or None)
        self._newest: OrderedDict[tuple, tuple[tuple, Any, tuple | None]] = OrderedDict()
        self._before: dict[tuple, tuple[tuple, Any, tuple | None]] = {}  # the entry before the newest
        self._cells: dict[tuple, int] = {}  # key -> the cells its specs show
        self._held_weakly: set[tuple] = set()  # keys whose entry is made of something that can be gone

    def clear(self) -> None:
        self._newest.clear()
        self._before.clear()
        self._cells.clear()
        self._held_weakly.clear()

    def __len__(self) -> int:
        return len(self._newest)

    def find(self, key: tuple, made_of: tuple) -> Any:
        """The spec kept under key that was made of what is equal to made_of (None: none was)."""
        return self._find(key, lambda entry: _same(entry[0], made_of))

    def find_made_of(self, key: tuple, objects: tuple) -> Any:
        """The spec kept under key that was made of these very objects (other specs, say)."""
        return self._find(key, lambda entry: _identical(entry[0], objects))

    def find_by(self, key: tuple, objects: tuple) -> Any:
        """The spec kept under key with these very objects as what it was made from (keep's by)."""
        return self._find(key, lambda entry: entry[2] is not None and _identical(entry[2], objects))

    def like(self, key: tuple, made_of: tuple) -> Any:
        """A spec kept under key whose made_of begins with what is equal to this one (None: none), left
        where it is: what else it was made of differs, and a spec made anew can share its parts."""
        for made, spec, _ in self._entries(key):
            if _same(made[: len(made_of)], made_of):
                return spec
        return None

    def newest(self, key: tuple) -> tuple[tuple, Any, tuple | None] | None:
        """(what it was made of, the spec, keep's by) kept last under key, whatever it was made of."""
        return self._newest.get(key)

    def _find(self, key: tuple, matches: Callable[[tuple], bool]) -> Any:
        hit = self._newest.get(key)
        if hit is None:
            return None
        if not matches(hit):
            before = self._before.get(key)
            if before is None or not matches(before):
                return None
            self._newest[key], self._before[key] = before, hit  # the one before is the newest again
            hit = before
        self._newest.move_to_end(key)
        return hit[1]

    def _drop(self, key: tuple) -> None:
        del self._newest[key]
        self._before.pop(key, None)
        self._cells.pop(key, None)
        self._held_weakly.discard(key)

    def _entries(self, key: tuple) -> list[tuple[tuple, Any, tuple | None]]:
        return [e for e in (self._newest.get(key), self._before.get(key)) if e is not None]

    def keep(self, key: tuple, made_of: tuple, spec: T, by: tuple | None = None) -> T:
        """Keep spec under key as made of made_of (the entry it held goes one back); returns spec.
        by: the objects made_of was worked out from, when they alone decide it (find_by finds the spec
        again by them, without working made_of out); none may be held weakly."""
        newest = self._newest.pop(key, None)
        if newest is not None:
            self._before[key] = newest
        self._newest[key] = (made_of, spec, by)
        self._cells[key] = sum(_cells_of(s) for _, s, _ in self._entries(key))
        if any(hasattr(x, "gone") for made, _, _ in self._entries(key) for x in made):
            self._held_weakly.add(key)
        # an entry made of something held weakly that is gone (the gradients of a trace no longer
        # shown) can never be used again: dropped now, not when newer ones push it out (at GPT-2 small
        # a gradient's table is ~2.7 MB of texts, and each round of edit, undo and d left more of them)
        for k in list(self._held_weakly):
            before = self._before.get(k)
            if before is not None and any(getattr(x, "gone", False) for x in before[0]):
                del self._before[k]
                self._cells[k] = _cells_of(self._newest[k][1])
            if any(getattr(x, "gone", False) for x in self._newest[k][0]):
                self._drop(k)
        total = sum(self._cells.values())
        while total > self.limit and len(self._newest) > 1:
            oldest = next(iter(self._newest))
            total -= self._cells[oldest]
            self._drop(oldest)
        return spec


def _cells_of(spec: Any) -> int:
    specs = spec if isinstance(spec, list) else [spec]
    return sum(len(s.rows) * max(len(s.cols), 1) if isinstance(s, GridSpec) else 1 for s in specs)


def _identical(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _same(a: tuple, b: tuple) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x is y:  # an array kept from the run before (trace.run's reuse) is equal to itself
            continue
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            if not (
                isinstance(x, np.ndarray)
                and isinstance(y, np.ndarray)
                and x.dtype == y.dtype
                and np.array_equal(x, y)
            ):
                return False
        elif x != y:
            return False
    return True
