"""The candidate state as it was before issue 27: ``cand`` an ``(N, N, N)`` bool array and
``values`` the ``(N, N)`` grid of placed digits, updated by whole-array numpy operations
(a batch of placements through the peer matrix). The reference rules in this package read it;
see ``__init__``."""

from __future__ import annotations

import numpy as np

from reductions.sudoku.candidates import Contradiction, peer_matrix, unit_matrix
from reductions.sudoku.grid import Grid, Shape, clue_exclusions


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
