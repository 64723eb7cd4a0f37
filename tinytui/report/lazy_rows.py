"""A table's rows made the first time each is read: LazyRows.

A step at d_model 64 shows thousands of numbers, and a screen shows a few dozen lines of them; the rows
off screen need never be written, and a table's column widths can be known from its numbers alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any


class LazyRows(Sequence):
    """Rows × cols (each row a tuple: texts, or the numbers texts are written from), each row made the
    first time it is read. Reads like a tuple of tuples: indexing, slicing, len, iteration, == with a
    tuple.

    widths: each column's widest text, when the maker knows it without writing the texts (fmt's
    numbers: from each column's extremes); otherwise measured, reading every row, when first asked.
    basis: the numbers each row is written from (by tables.fmt, one text per number), when a row
    depends on nothing else: two rows with equal bases read the same, so a redraw compares numbers and
    writes no text to do it.
    on_screen: the texts are already as the app shows them (tables.on_screen_text).
    part: (r, a, b) -> columns a..b of row r made alone, for a row not yet made (part below)."""

    __slots__ = ("_n", "_part", "_row", "_rows", "_widths", "basis", "on_screen")

    def __init__(
        self,
        n: int,
        row: Callable[[int], Sequence[Any]],
        widths: tuple[int, ...] | None = None,
        basis: Sequence[Sequence[float]] | None = None,
        on_screen: bool = False,
        part: Callable[[int, int, int], Sequence[Any]] | None = None,
    ) -> None:
        self._n = n
        self._row = row  # r -> that row
        self._rows: dict[int, tuple] = {}
        self._widths = widths
        self.basis = basis
        self.on_screen = on_screen
        self._part = part

    @classmethod
    def of(cls, rows: Sequence[Sequence[Any]]) -> LazyRows:
        """Rows already made (a tuple of rows, or other LazyRows kept as they are)."""
        if isinstance(rows, LazyRows):
            return rows
        made = tuple(tuple(r) for r in rows)
        return cls(len(made), made.__getitem__)

    @classmethod
    def joined(cls, parts: Sequence[Sequence[Sequence[Any]]], n: int) -> LazyRows:
        """Several tables' rows side by side: row r is every part's row r, in order."""
        lazy = [LazyRows.of(p) for p in parts]
        known = [p._widths for p in lazy if p._widths is not None]
        widths = tuple(w for part in known for w in part) if len(known) == len(lazy) else None
        bases = [p.basis for p in lazy if p.basis is not None]
        basis = (
            LazyRows(n, lambda r: tuple(x for b in bases for x in b[r])) if len(bases) == len(lazy) else None
        )
        return cls(
            n,
            lambda r: tuple(x for p in lazy for x in p[r]),
            widths,
            basis,
            all(p.on_screen for p in lazy),
        )

    def columns(self, a: int, b: int) -> LazyRows:
        """Columns a..b of every row."""
        widths = None if self._widths is None else self._widths[a:b]
        kept = self.basis
        basis = None if kept is None else LazyRows(self._n, lambda r: tuple(kept[r][a:b]))
        part = None if self._part is None else lambda r, x, y: self.part(r, a + x, a + min(y, b - a))
        return LazyRows(self._n, lambda r: self[r][a:b], widths, basis, self.on_screen, part)

    def written(self, write: Callable[[tuple], Sequence[Any]], on_screen: bool) -> LazyRows:
        """Every row through write, which keeps each text's length (so the widths and basis hold) and
        writes each text on its own (so a part of a row is written as the row would write it)."""
        part = None if self._part is None else lambda r, a, b: write(self.part(r, a, b))
        return LazyRows(self._n, lambda r: write(self[r]), self._widths, self.basis, on_screen, part)

    def part(self, r: int, a: int, b: int) -> tuple:
        """Columns a..b of row r, as row r reads them: from the row when it is made, else made alone when
        the maker can (a d_model 64 row has 64 numbers; the screen shows some ten, the inspector one).
        A part is not kept: the row stays unmade until it is read whole."""
        row = self._rows.get(r)
        if row is not None or self._part is None or not 0 <= r < self._n:
            return tuple(self[r][a:b])
        return tuple(self._part(r, a, b))

    def widths(self) -> tuple[int, ...]:
        """Each column's widest text (no rows: no columns)."""
        if self._widths is None:
            self._widths = tuple(max(map(len, column)) for column in zip(*self)) if self._n else ()
        return self._widths

    def same_row(self, other: Sequence[Sequence[Any]], r: int) -> bool:
        """Whether row r reads the same in both: by the numbers when both rows are written from them."""
        if isinstance(other, LazyRows) and self.basis is not None and other.basis is not None:
            return self.basis[r] == other.basis[r]
        return self[r] == tuple(other[r])

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, r):
        if isinstance(r, slice):
            return tuple(self[i] for i in range(self._n)[r])
        if r < 0:
            r += self._n
        if not 0 <= r < self._n:
            raise IndexError(r)
        row = self._rows.get(r)
        if row is None:
            row = self._rows[r] = tuple(self._row(r))
        return row

    def __iter__(self) -> Iterator[tuple]:
        return (self[r] for r in range(self._n))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyRows | tuple | list):
            return len(self) == len(other) and tuple(self) == tuple(tuple(r) for r in other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"LazyRows({tuple(self)!r})"
