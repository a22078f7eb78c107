"""The candidate state of a generalized N×N Sudoku (any a×b blocks) during deduction.

``cand`` is an ``(N, N, N)`` bool array: ``cand[r, c, d]`` is True while digit d + 1 may still
go in cell (r, c) (digits are 0-based along the last axis, 1-based everywhere a person reads
them). ``values`` is the ``(N, N)`` int16 grid of placed digits (0 = open). A placed cell keeps
exactly its own digit as candidate, so unit-wise counts treat placed and open cells alike.

Updates are whole-array numpy operations: a batch of placements removes its digits from all
peers at once through the ``(N², N²)`` peer matrix (one small matrix product), so a rule that
finds twenty singles applies them in one step rather than per candidate.

Units are numbered as in :mod:`reductions.grid`: 0..N-1 rows, N..2N-1 columns, 2N..3N-1
blocks; ``units[u]`` lists the flat cells r·N + c of unit u. :meth:`CandidateState.by_unit`
gives the ``(3N, N cells, N digits)`` view rules scan.

Contradictions (:meth:`CandidateState.contradiction`) are the ways a state *proves* there is
no solution by itself: an open cell without candidates, a unit where a digit has no cell left,
or a digit placed twice in a unit (two singles of one batch). A state without any is merely
unknown.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from .grid import Grid, Shape, clue_exclusions

UNIT_KINDS = ("row", "column", "block")


@functools.lru_cache(maxsize=16)
def peer_matrix(shape: Shape) -> np.ndarray:
    """``(N², N²)`` float32: 1 where two distinct cells share a row, column or block (float so
    that the batch update is one BLAS product)."""
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
    counts each digit's cells per unit in one BLAS product; ``unit_matrix @ (cand × (cell +
    1))`` sums their flat indices + 1, which names the cell where the count is one."""
    n = shape.size
    member = np.zeros((3 * n, n * n), dtype=np.float32)
    member[np.repeat(np.arange(3 * n), n), shape.units().ravel()] = 1
    member.setflags(write=False)
    return member


@functools.lru_cache(maxsize=16)
def cell_units(shape: Shape) -> np.ndarray:
    """``(N², 3)``: the row, column and block unit numbers of every flat cell."""
    n = shape.size
    flat = np.arange(n * n)
    rows, cols = flat // n, flat % n
    blocks = shape.block_index_array().ravel()
    out = np.stack([rows, n + cols, 2 * n + blocks], axis=1)
    out.setflags(write=False)
    return out


def cell_name(shape: Shape, flat: int) -> str:
    """A cell in the r1c1 notation people use (1-based)."""
    r, c = divmod(int(flat), shape.size)
    return f"r{r + 1}c{c + 1}"


def unit_name(shape: Shape, unit: int) -> str:
    kind, index = divmod(int(unit), shape.size)
    return f"{UNIT_KINDS[kind]} {index + 1}"


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

    __slots__ = ("shape", "cand", "values")

    def __init__(self, shape: Shape, cand: np.ndarray, values: np.ndarray):
        self.shape = shape
        self.cand = cand
        self.values = values

    @classmethod
    def from_puzzle(cls, puzzle: Grid) -> "CandidateState":
        """Every digit everywhere, minus what the clues exclude; clue cells hold their clue."""
        n = puzzle.size
        cand = ~clue_exclusions(puzzle)
        rows, cols = np.nonzero(puzzle.values)
        digits = puzzle.values[rows, cols].astype(np.int64) - 1
        cand[rows, cols, :] = False
        cand[rows, cols, digits] = True
        return cls(puzzle.shape, cand, puzzle.values.astype(np.int16).copy().reshape(n, n))

    def copy(self) -> "CandidateState":
        return CandidateState(self.shape, self.cand.copy(), self.values.copy())

    @property
    def size(self) -> int:
        return self.shape.size

    # ------------------------------------------------------------------ views
    def flat_cand(self) -> np.ndarray:
        """``(N², N)`` view: candidates per flat cell."""
        n = self.size
        return self.cand.reshape(n * n, n)

    def by_unit(self) -> np.ndarray:
        """``(3N, N, N)`` copy: [unit, position in unit, digit]."""
        return self.flat_cand()[self.shape.units()]

    def open_cells(self) -> np.ndarray:
        """Flat indices of the cells without a placed digit."""
        return np.flatnonzero(self.values.ravel() == 0)

    def candidates_of(self, flat: int) -> list[int]:
        """1-based candidate digits of a cell."""
        return (np.flatnonzero(self.flat_cand()[flat]) + 1).tolist()

    def has(self, flat: int, digit: int) -> bool:
        """Is 1-based ``digit`` a candidate of flat cell ``flat``?"""
        return bool(self.flat_cand()[flat, digit - 1])

    def candidate_count(self) -> int:
        return int(np.count_nonzero(self.cand))

    def is_solved(self) -> bool:
        return bool(np.all(self.values))

    def grid(self) -> Grid:
        """The placed digits as a (partial) grid."""
        return Grid(self.values, self.shape)

    # ------------------------------------------------------------------ updates
    def place(self, cells: np.ndarray, digits: np.ndarray) -> int:
        """Place 1-based ``digits`` in flat ``cells`` (arrays of equal length) and remove each
        digit from its cell's peers. A placement whose digit is no longer a candidate, or
        whose cell is already placed, is skipped (the contradiction check then finds what is
        wrong). Returns the number of candidates removed plus placements made."""
        cells = np.asarray(cells, dtype=np.int64)
        digits = np.asarray(digits, dtype=np.int64) - 1
        flat = self.flat_cand()
        values = self.values.reshape(-1)
        keep = flat[cells, digits] & (values[cells] == 0)
        if not keep.all():
            cells, digits = cells[keep], digits[keep]
        if not len(cells):
            return 0
        cells, first = np.unique(cells, return_index=True)   # two digits for one cell: first
        digits = digits[first]
        n = self.size
        before = int(np.count_nonzero(flat))
        chosen = np.zeros((n * n, n), dtype=np.float32)
        chosen[cells, digits] = 1
        hit = (peer_matrix(self.shape) @ chosen) > 0            # peers lose the digit
        flat &= ~hit
        flat[cells, :] = False
        flat[cells, digits] = True
        values[cells] = digits + 1
        return before - int(np.count_nonzero(flat)) + len(cells)

    def eliminate(self, cells: np.ndarray, digits: np.ndarray) -> int:
        """Remove candidates (flat cells, 1-based digits) from open cells; returns how many
        were present. A placed cell's own digit is never removed (rules only eliminate
        candidates of open cells; this keeps a wrong rule from corrupting the grid)."""
        cells = np.asarray(cells, dtype=np.int64)
        digits = np.asarray(digits, dtype=np.int64) - 1
        if not len(cells):
            return 0
        flat = self.flat_cand()
        present = flat[cells, digits] & (self.values.reshape(-1)[cells] == 0)
        flat[cells[present], digits[present]] = False
        return int(np.count_nonzero(present))

    # ------------------------------------------------------------------ contradictions
    def contradiction(self) -> Contradiction | None:
        """An open cell without candidates, or a unit where a digit has no cell; else None."""
        flat = self.flat_cand()
        has_any = flat.any(axis=1)
        if not has_any.all():
            return Contradiction(cell=int(np.flatnonzero(~has_any)[0]))
        counts = self.unit_counts()                              # (3N, N digits)
        if not counts.all():
            unit, digit = np.argwhere(counts == 0)[0]
            return Contradiction(unit=int(unit), digit=int(digit) + 1)
        return None

    def placed_twice(self) -> Contradiction | None:
        """A digit placed twice in a unit (only a batch of placements can do this)."""
        n = self.size
        placed = np.zeros((n * n, n + 1), dtype=np.float32)
        placed[np.arange(n * n), self.values.reshape(-1)] = 1
        twice = np.argwhere(unit_matrix(self.shape) @ placed[:, 1:] > 1)
        if len(twice):
            unit, digit = twice[0]
            return Contradiction(unit=int(unit), digit=int(digit) + 1, twice=True)
        return None

    def unit_counts(self) -> np.ndarray:
        """``(3N, N)`` int: how many cells of each unit have each digit as candidate."""
        return (unit_matrix(self.shape) @ self.flat_cand().astype(np.float32)).astype(np.int64)

    # ------------------------------------------------------------------ text
    def candidates_text(self) -> str:
        """The grid with every open cell's candidates (e.g. ``{2,7}``), one row per line;
        placed cells show their digit. Digits above 9 are written as numbers."""
        n = self.size
        cells = []
        for flat in range(n * n):
            value = int(self.values.reshape(-1)[flat])
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
