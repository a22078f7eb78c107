"""The candidate state of a generalized N×N Sudoku (any a×b blocks) during deduction.

The state is held in Python integers used as bit masks, which at 9×9 beat numpy's per-call
overhead for the small, frequent operations of the rule engine (issue 27) and stay exact at
any N (an integer has as many bits as it needs):

* ``packed`` — one integer for all N³ (cell, digit) facts: bit d·N² + c is set while digit
  d + 1 may go in flat cell c = r·N + col (digit d's *plane* is the N² bits from d·N²);
* ``placed[c]`` — the digit placed in cell c (0 = open); ``open`` the mask of open cells;
* ``done`` — which units have which digit placed (three planes-wide masks, rows, columns,
  blocks, at the unit's origin; see below), and ``twice`` whether a placement ever found its
  digit there already.

A placed cell keeps exactly its own digit as candidate, so unit-wise counts treat placed and
open cells alike. Placing a digit clears its plane at the cell's peers and the cell's bit in
every other plane: two mask operations. The only ways to change a state are
:meth:`CandidateState.place` and :meth:`CandidateState.eliminate` (and building one); every
change clears the state's memo (:meth:`CandidateState.memo`), where rules keep what several of
them derive from one state: ``where`` (per digit, the cells), ``cells`` (per cell, the
digits), the unit tallies, the chain graphs. ``cand`` and ``values`` give the familiar numpy
views, computed on demand and read-only.

**Tallies.** A unit is named by its *origin*, its first cell (row r: r·N, column c: c, block:
its top-left cell). Shifting ``packed`` right by a unit's in-cell offsets brings each of its
cells onto its origin, in every plane at once; two running masks record which (unit, digit)
bits were seen once and which twice (:func:`tallies`, with O(log N) shifts per unit kind):
``once & ~twice`` marks the digits with exactly one cell in a unit (hidden singles),
``~once`` those with none (contradictions). The offsets never reach from one plane into the
next plane's origins, so no guard bits are needed.

Units are numbered as in :mod:`reductions.sudoku.grid`: 0..N-1 rows, N..2N-1 columns, 2N..3N-1
blocks; ``units[u]`` lists the flat cells of unit u in increasing order.

Contradictions (:meth:`CandidateState.contradiction`) are the ways a state *proves* there is
no solution by itself: a cell without candidates, a unit where a digit has no cell left, or a
digit placed twice in a unit (two singles of one batch). A state without any is merely
unknown.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, TypeVar

import numpy as np

from .grid import Grid, Shape

UNIT_KINDS = ("row", "column", "block")
T = TypeVar("T")


@functools.lru_cache(maxsize=16)
def peer_matrix(shape: Shape) -> np.ndarray:
    """``(N², N²)`` float32: 1 where two distinct cells share a row, column or block (float so
    that a batch update is one BLAS product)."""
    n = shape.size
    units = shape.units()
    member = np.zeros((3 * n, n * n), dtype=np.uint8)
    member[np.repeat(np.arange(3 * n), n), units.ravel()] = 1
    peers = (member.T.astype(np.int32) @ member.astype(np.int32)) > 0
    np.fill_diagonal(peers, False)
    peers = peers.astype(np.float32)
    peers.setflags(write=False)
    return peers


@functools.lru_cache(maxsize=16)
def unit_matrix(shape: Shape) -> np.ndarray:
    """``(3N, N²)`` float32: 1 where the cell belongs to the unit. ``unit_matrix @ cand``
    counts each digit's cells per unit in one BLAS product."""
    n = shape.size
    member = np.zeros((3 * n, n * n), dtype=np.float32)
    member[np.repeat(np.arange(3 * n), n), shape.units().ravel()] = 1
    member.setflags(write=False)
    return member


def cell_name(shape: Shape, flat: int) -> str:
    """A cell in the r1c1 notation people use (1-based)."""
    r, c = divmod(int(flat), shape.size)
    return f"r{r + 1}c{c + 1}"


def unit_name(shape: Shape, unit: int) -> str:
    kind, index = divmod(int(unit), shape.size)
    return f"{UNIT_KINDS[kind]} {index + 1}"


def bits(mask: int) -> Iterator[int]:
    """The positions of the one-bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


@dataclass(frozen=True, eq=False)
class Layout:
    """Bit-mask tables of one shape (built once per shape by :func:`layout`).

    * ``units[u]`` the cells of unit u (increasing), ``unit_masks[u]`` as a mask; ``peers[c]``
      the cells sharing a unit with c (not c); ``unit_of[c]`` its row, column and block unit,
      ``origin_cells[c]`` their first cells;
    * for ``packed``: ``column`` has bit 0 of every plane (shifted by c: cell c at every digit;
      ``cell_clear[c]`` is its complement); ``origins[k]`` the origins of every unit of kind
      k (rows, columns, blocks) in every plane, ``runs[k]`` their in-unit offsets as
      (step, length) runs (a row: N steps of 1; a column: N steps of N; a block: b steps of
      1, then a steps of N), ``origin_unit[k]`` an origin cell's unit number;
    * for ``done``: ``marks[c]`` the origins of c's three units side by side, rows, columns,
      blocks, each kind one packed width apart (shifted by d·N² for digit d).
    """

    shape: Shape
    n: int
    area: int
    all_cells: int
    all_digits: int
    units: tuple[tuple[int, ...], ...]
    unit_masks: tuple[int, ...]
    peers: tuple[int, ...]
    unit_of: tuple[tuple[int, int, int], ...]
    origin_cells: tuple[tuple[int, int, int], ...]
    column: int
    cell_clear: tuple[int, ...]
    origins: tuple[int, int, int]
    runs: tuple[tuple[tuple[int, int], ...], ...]
    origin_unit: tuple[dict[int, int], dict[int, int], dict[int, int]]
    marks: tuple[int, ...]
    cell_names: tuple[str, ...]
    unit_names: tuple[str, ...]


@functools.lru_cache(maxsize=16)
def layout(shape: Shape) -> Layout:
    n, a, b = shape.size, shape.box_rows, shape.box_cols
    area = n * n
    units = tuple(tuple(int(c) for c in row) for row in shape.units())
    unit_masks = tuple(sum(1 << c for c in unit) for unit in units)
    unit_of = [[0, 0, 0] for _ in range(area)]
    for u, unit in enumerate(units):
        for c in unit:
            unit_of[c][u // n] = u
    origin_cells = tuple(tuple(units[u][0] for u in kinds) for kinds in unit_of)
    column = sum(1 << (d * area) for d in range(n))
    firsts = [[units[kind * n + k][0] for k in range(n)] for kind in range(3)]
    return Layout(
        shape=shape, n=n, area=area, all_cells=(1 << area) - 1, all_digits=(1 << n) - 1,
        units=units, unit_masks=unit_masks,
        peers=tuple((unit_masks[row] | unit_masks[col] | unit_masks[block]) & ~(1 << c)
                    for c, (row, col, block) in enumerate(unit_of)),
        unit_of=tuple(tuple(kinds) for kinds in unit_of), origin_cells=origin_cells,
        column=column, cell_clear=tuple(~(column << c) for c in range(area)),
        origins=tuple(sum(1 << (d * area + c) for d in range(n) for c in first)
                      for first in firsts),
        runs=(((1, n),), ((n, n),), ((1, b), (n, a))),
        origin_unit=tuple({c: kind * n + k for k, c in enumerate(first)}
                          for kind, first in enumerate(firsts)),
        marks=tuple(sum(1 << (kind * n * area + origin) for kind, origin in enumerate(cell))
                    for cell in origin_cells),
        cell_names=tuple(cell_name(shape, c) for c in range(area)),
        unit_names=tuple(unit_name(shape, u) for u in range(3 * n)))


def tallies(lay: Layout, packed: int) -> tuple[tuple[int, int], ...]:
    """Per unit kind (rows, columns, blocks): ``(once, twice)`` over the packed form — the
    (unit origin, digit) bits where a unit has at least one, and at least two, of the
    digit's cells (see the module docstring); each run of offsets is folded in O(log
    length) shifts (:func:`_fold`)."""
    out = []
    for origin, runs in zip(lay.origins, lay.runs):
        once, twice = packed, 0
        for step, length in runs:
            once, twice = _fold(once, twice, step, length)
        out.append((once & origin, twice & origin))
    return tuple(out)


def _fold(once: int, twice: int, step: int, length: int) -> tuple[int, int]:
    """Tallies over windows of ``length`` positions ``step`` apart: at every bit p, whether
    positions p, p + step, ... of ``once`` had a bit at least once, and (with ``twice``)
    at least twice. Windows of 1, 2, 4, ... positions are built by doubling; the window of
    ``length`` joins those of its binary digits side by side. Two disjoint windows join as
    once = o1 | o2, twice = t1 | t2 | (o1 & o2)."""
    result = None
    offset, size = 0, 1
    while True:
        if length & size:
            if result is None:
                result = (once, twice)
            else:
                shift = offset * step
                o2, t2 = once >> shift, twice >> shift
                result = (result[0] | o2, result[1] | t2 | (result[0] & o2))
            offset += size
        if 2 * size > length:
            return result
        shift = size * step
        o2, t2 = once >> shift, twice >> shift
        once, twice = once | o2, twice | t2 | (once & o2)
        size *= 2


def coverage(lay: Layout, packed: int) -> tuple[int, int, int]:
    """Per unit kind: the (unit origin, digit) bits where the unit has at least one of the
    digit's cells (the ``once`` of :func:`tallies`, by OR alone: overlapping windows do)."""
    out = []
    for origin, runs in zip(lay.origins, lay.runs):
        seen = packed
        for step, length in runs:
            size = 1
            while 2 * size <= length:
                seen |= seen >> (size * step)
                size *= 2
            if size < length:
                seen |= seen >> ((length - size) * step)
        out.append(seen & origin)
    return tuple(out)


def unit_hits(lay: Layout, kind: int, mask: int) -> list[tuple[int, int]]:
    """The (unit, 0-based digit) pairs of origin bits in ``mask`` (of unit kind ``kind``),
    sorted by unit, then digit."""
    area, names = lay.area, lay.origin_unit[kind]
    hits = []
    while mask:
        low = mask & -mask
        p = low.bit_length() - 1
        hits.append((names[p % area], p // area))
        mask ^= low
    hits.sort()
    return hits


@dataclass(frozen=True)
class Contradiction:
    """Why a state has no solution: an open cell without candidates, a digit without a place
    in a unit, or (``twice``) a digit placed twice in a unit by one batch of singles
    (``cell`` or ``unit`` + ``digit``, 1-based digit)."""

    cell: int | None = None
    unit: int | None = None
    digit: int | None = None
    twice: bool = False

    def describe(self, shape: Shape) -> str:
        if self.cell is not None:
            return f"cell {cell_name(shape, self.cell)} has no candidate left"
        if self.twice:
            return f"digit {self.digit} is placed twice in {unit_name(shape, self.unit)}"
        return f"digit {self.digit} has no place left in {unit_name(shape, self.unit)}"


class CandidateState:
    """Candidates and placed digits of one puzzle (see the module docstring)."""

    __slots__ = ("shape", "lay", "packed", "placed", "open", "done", "twice", "lasting",
                 "_memo")

    def __init__(self, shape: Shape, where: list[int], placed: list[int]):
        """From per-digit cell masks and placed digits (:meth:`from_puzzle` is the usual way
        in). A placed cell's only candidate is its digit, whatever ``where`` says."""
        lay = layout(shape)
        self.shape = shape
        self.lay = lay
        self.placed = [int(v) for v in placed]
        where = [int(mask) & lay.all_cells for mask in where]
        self.done = 0
        self.twice = False
        holding = [0] * lay.n                    # placed cells, per digit
        for c, v in enumerate(self.placed):
            if v:
                holding[v - 1] |= 1 << c
                self._mark(c, v - 1)
        filled = sum(holding)
        self.open = lay.all_cells & ~filled
        self.packed = 0
        for d, mask in enumerate(where):
            self.packed |= ((mask & ~filled) | holding[d]) << (d * lay.area)
        self.lasting: dict = {}
        self._memo: dict = {}

    def _mark(self, c: int, d: int) -> None:
        """Note 0-based digit d placed in the units of cell c (``twice`` if one had it)."""
        marks = self.lay.marks[c] << (d * self.lay.area)
        if self.done & marks:
            self.twice = True
        self.done |= marks

    @classmethod
    def from_puzzle(cls, puzzle: Grid) -> "CandidateState":
        """Every digit everywhere, minus what the clues exclude (a clue's digit leaves its
        row, column and block); clue cells hold their clue."""
        lay = layout(puzzle.shape)
        values = puzzle.values.ravel().tolist()
        seen = [0] * lay.n                  # cells that see a clue of the digit
        for c, v in enumerate(values):
            if v:
                seen[v - 1] |= lay.peers[c]
        return cls(puzzle.shape, [lay.all_cells & ~mask for mask in seen], values)

    @classmethod
    def from_candidates(cls, shape: Shape, cand: np.ndarray,
                        values: np.ndarray | None = None) -> "CandidateState":
        """From an ``(N, N, N)`` bool array (and the placed digits, default none), as tests
        and the numpy reference build states."""
        n = shape.size
        flat = np.asarray(cand, dtype=bool).reshape(n * n, n)
        where = [sum(1 << c for c in np.flatnonzero(flat[:, d]).tolist()) for d in range(n)]
        placed = ([0] * (n * n) if values is None
                  else np.asarray(values).ravel().astype(int).tolist())
        return cls(shape, where, placed)

    def copy(self) -> "CandidateState":
        new = CandidateState.__new__(CandidateState)
        new.shape, new.lay = self.shape, self.lay
        new.packed, new.placed = self.packed, self.placed[:]
        new.open, new.done, new.twice = self.open, self.done, self.twice
        new.lasting, new._memo = self.lasting, {}
        return new

    @property
    def size(self) -> int:
        return self.shape.size

    def memo(self, key, compute: Callable[[], T]) -> T:
        """``compute()`` once per state version: what several rules derive from one state
        (forgotten at the next change). Results keyed by the very content they depend on (a
        digit's cells, a unit's graph) go to ``lasting`` instead, kept for the state's life
        and shared with its copies."""
        memo = self._memo
        if key not in memo:
            memo[key] = compute()
        return memo[key]

    # ------------------------------------------------------------------ views
    @property
    def where(self) -> list[int]:
        """Per 0-based digit d, the mask of the cells where d + 1 is a candidate (a slice of
        ``packed``), once per state version. Read, do not write."""
        return self.memo("where", self._digit_masks)

    def _digit_masks(self) -> list[int]:
        lay, packed = self.lay, self.packed
        return [(packed >> (d * lay.area)) & lay.all_cells for d in range(lay.n)]

    @property
    def cells(self) -> list[int]:
        """Per flat cell, the mask of its candidates (bit d − 1 for digit d), once per state
        version (the singles never need it). Read, do not write."""
        return self.memo("cells", self._cell_masks)

    def _cell_masks(self) -> list[int]:
        cells = [0] * self.lay.area
        for d, mask in enumerate(self.where):
            bit = 1 << d
            while mask:
                low = mask & -mask
                cells[low.bit_length() - 1] |= bit
                mask ^= low
        return cells

    def digit_tallies(self) -> tuple[int, int]:
        """(once, twice): the cells with at least one, and at least two, candidates (the
        planes of ``packed`` folded onto plane 0), once per state version."""
        def fold() -> tuple[int, int]:
            once, twice = _fold(self.packed, 0, self.lay.area, self.lay.n)
            return once & self.lay.all_cells, twice & self.lay.all_cells
        return self.memo("digit tallies", fold)

    @property
    def cand(self) -> np.ndarray:
        """``(N, N, N)`` bool, read-only: ``cand[r, c, d]`` while digit d + 1 may go in (r, c)."""
        n = self.size
        masks = np.array(self.cells, dtype=object if n > 62 else np.int64)
        out = ((masks[:, None] >> np.arange(n)) & 1).astype(bool).reshape(n, n, n)
        out.setflags(write=False)
        return out

    @property
    def values(self) -> np.ndarray:
        """``(N, N)`` int16, read-only: the placed digits (0 = open)."""
        out = np.array(self.placed, dtype=np.int16).reshape(self.size, self.size)
        out.setflags(write=False)
        return out

    def flat_cand(self) -> np.ndarray:
        """``(N², N)`` read-only view: candidates per flat cell."""
        n = self.size
        return self.cand.reshape(n * n, n)

    def tallies(self) -> tuple[tuple[int, int], ...]:
        """:func:`tallies` of this state, memoised (hidden singles and the contradiction
        check of the same state share it)."""
        return self.memo("tallies", lambda: tallies(self.lay, self.packed))

    def open_cells(self) -> np.ndarray:
        """Flat indices of the cells without a placed digit."""
        return np.array(list(bits(self.open)), dtype=np.int64)

    def candidates_of(self, flat: int) -> list[int]:
        """1-based candidate digits of a cell."""
        return [d + 1 for d, mask in enumerate(self.where) if mask >> flat & 1]

    def has(self, flat: int, digit: int) -> bool:
        """Is 1-based ``digit`` a candidate of flat cell ``flat``?"""
        return bool(self.packed >> ((digit - 1) * self.lay.area + flat) & 1)

    def candidate_count(self) -> int:
        return self.packed.bit_count()

    def is_solved(self) -> bool:
        return not self.open

    def grid(self) -> Grid:
        """The placed digits as a (partial) grid."""
        return Grid(self.values, self.shape)

    # ------------------------------------------------------------------ updates
    def place(self, cells: Iterable[int], digits: Iterable[int]) -> int:
        """Place 1-based ``digits`` in flat ``cells`` and remove each digit from its cell's
        peers. A placement whose digit is no longer a candidate, or whose cell is already
        placed, is skipped (the contradiction check then finds what is wrong); of two for one
        cell the first counts. All peers lose the digits first, then the cells take them, so
        two placements of one digit in one unit both land (``twice`` notes it, for
        :meth:`placed_twice`). Returns the number of candidates removed plus placements
        made."""
        before = self.packed.bit_count()
        chosen = self.place_pairs(zip(map(int, cells), map(int, digits)))
        return before - self.packed.bit_count() + len(chosen) if chosen else 0

    def place_pairs(self, pairs: Iterable[tuple[int, int]]) -> dict[int, int]:
        """:meth:`place` for (cell, 1-based digit) pairs; returns the placements made, cell ->
        1-based digit."""
        lay = self.lay
        area, peers, placed = lay.area, lay.peers, self.placed
        packed = self.packed
        chosen: dict[int, int] = {}
        for c, d in pairs:
            if not placed[c] and packed >> ((d - 1) * area + c) & 1 and c not in chosen:
                chosen[c] = d
        if chosen:
            self._memo = {}
            for c, d in chosen.items():
                packed &= ~(peers[c] << ((d - 1) * area))
            # then each cell takes its digit: its other candidates go, its units note it
            cell_clear, marks, done = lay.cell_clear, lay.marks, self.done
            for c, d in chosen.items():
                base = (d - 1) * area
                packed = (packed & cell_clear[c]) | (1 << (base + c))
                placed[c] = d
                mark = marks[c] << base
                if done & mark:
                    self.twice = True
                done |= mark
            self.packed, self.done = packed, done
            self.open &= ~sum(1 << c for c in chosen)
        return chosen

    def eliminate(self, cells: Iterable[int], digits: Iterable[int]) -> int:
        """Remove candidates (flat cells, 1-based digits) from open cells; returns how many
        were present. A placed cell's own digit is never removed (rules only eliminate
        candidates of open cells; this keeps a wrong rule from corrupting the grid)."""
        area, placed, packed = self.lay.area, self.placed, self.packed
        bits_ = [1 << ((int(d) - 1) * area + int(c)) for c, d in zip(cells, digits)
                 if not placed[int(c)]]
        present = [b for b in bits_ if packed & b]
        if present:
            self._memo = {}
            for b in present:
                packed &= ~b
            self.packed = packed
        return len(present)

    # ------------------------------------------------------------------ contradictions
    def contradiction(self) -> Contradiction | None:
        """A cell without candidates (the first), or a unit where a digit has no cell (the
        first by unit, then digit); else None."""
        lay = self.lay
        anywhere, span = self.packed, lay.area
        while span < lay.n * lay.area:          # OR every digit's plane onto plane 0
            anywhere |= anywhere >> span
            span *= 2
        empty = lay.all_cells & ~anywhere
        if empty:
            return Contradiction(cell=(empty & -empty).bit_length() - 1)
        missing = []
        for kind, (once, _) in enumerate(self.tallies()):
            if once != lay.origins[kind]:
                missing += unit_hits(lay, kind, lay.origins[kind] & ~once)
        if missing:
            unit, digit = min(missing)
            return Contradiction(unit=unit, digit=digit + 1)
        return None

    def placed_twice(self) -> Contradiction | None:
        """A digit placed twice in a unit (only a batch of placements, or clues, can do this):
        the first by unit, then digit."""
        if not self.twice:
            return None
        placed = self.placed
        for u, unit in enumerate(self.lay.units):
            seen = twice = 0
            for c in unit:
                if placed[c]:
                    bit = 1 << placed[c]
                    twice |= seen & bit
                    seen |= bit
            if twice:
                return Contradiction(unit=u, digit=(twice & -twice).bit_length() - 1,
                                     twice=True)
        return None

    # ------------------------------------------------------------------ text
    def candidates_text(self) -> str:
        """The grid with every open cell's candidates (e.g. ``{2,7}``), one row per line;
        placed cells show their digit. Digits above 9 are written as numbers."""
        n = self.size
        cells = []
        for flat in range(n * n):
            value = self.placed[flat]
            if value:
                cells.append(str(value))
            else:
                cells.append("{" + ",".join(map(str, self.candidates_of(flat))) + "}")
        width = max(len(c) for c in cells)
        lines = []
        for r in range(n):
            if r and r % self.shape.box_rows == 0:
                lines.append("")
            row = cells[r * n:(r + 1) * n]
            parts = [" ".join(c.ljust(width) for c in row[c0:c0 + self.shape.box_cols])
                     for c0 in range(0, n, self.shape.box_cols)]
            lines.append(" | ".join(parts).rstrip())
        return "\n".join(lines)
