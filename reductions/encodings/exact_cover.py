"""Sudoku → exact cover: the option/item matrix of Knuth's Algorithm X.

An exact-cover problem has *items* and *options* (sets of items); a solution is a set of
options that contains every item exactly once (Knuth, TAOCP 7.2.2.1; "Dancing links", 2000).
For an N×N Sudoku with a×b blocks (N = a·b):

* one **option** per (row r, column c, digit d): "digit d goes in cell (r, c)" — N³ options;
* four kinds of **items**, N² of each — 4N² items:

  - ``cell`` (r, c): the cell is filled,
  - ``row`` (r, d): digit d appears in row r,
  - ``column`` (c, d): digit d appears in column c,
  - ``block`` (k, d): digit d appears in block k (blocks row-major);

* option (r, c, d) contains exactly the four items (r, c), (r, d), (c, d), (block(r, c), d),
  so the matrix has 4N³ nonzeros (9×9: 729 options, 324 items, 2,916 nonzeros).

Why it is correct: choosing options = writing digits. Every cell item covered exactly once
means every cell holds exactly one digit; every row-digit item covered exactly once means
every digit occurs exactly once in every row; likewise columns and blocks. That is precisely
a completed Sudoku grid, and conversely a valid grid picks one option per cell and covers
each item once. So exact covers and solved grids are in bijection.

Clues, two modes (``clues=``):

* ``keep`` — a clue's cell keeps only the clue's option (its N − 1 other options are
  dropped); every item stays. Size: N³ − (N − 1)·k options, 4N² items, 4 nonzeros per option
  (k clues). Every puzzle of a shape has the same items: the file form of the paper's model.
* ``eliminate`` — also drop every option a clue excludes (the clue's digit elsewhere in its
  row, column and block), then drop the clue options themselves together with their four
  items: after the elimination a clue's option is the only one left on each of its items, so
  it is forced and removing it (with its items) changes nothing. What is left is the
  candidates of the empty cells: options = Σ over empty cells of their candidates, items =
  4(N² − k) for consistent clues. An item left without options proves there is no solution.
  Contradictory clues (a repeated digit) exclude each other: both are dropped and their cell
  items stay, with no option left, so the instance is (correctly) unsolvable.

Numbering. Option (r, c, d) is ``(r·N + c)·N + d − 1`` (rows, columns from 0, digits 1..N,
the project's conventions); item numbers are ``kind·N² + first·N + second`` with kinds in the
order above and the digit as ``d − 1``. A built instance keeps a subset of options and items
(``options``, ``items``: sorted global numbers) and numbers them locally 0..K−1 and 0..M−1.

Item names for Knuth's text format (≤ 8 characters, no ``:`` or ``|``; Knuth's own Sudoku
generator uses the same letters): ``pR_C`` (cell), ``rR_D`` (row R holds D), ``cC_D`` (column
C holds D), ``bK_D`` (block K holds D); up to N = 255 the longest is ``p254_254``.

Forward map :meth:`SudokuExactCover.options_from_grid` (a solution grid → its chosen options)
and extraction :meth:`SudokuExactCover.grid_from_options` (chosen options → grid). The matrix
is kept sparse (a (K, 4) array of item numbers); :meth:`SudokuExactCover.dense_matrix` builds
the 0/1 matrix some libraries need, and refuses, naming the size, when it would not fit.
As a :class:`~reductions.reduction.ReductionRule`: :class:`SudokuToExactCover`.
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np

from ..errors import UserError
from ..estimate import Estimate
from ..sudoku.grid import Grid, Shape, clue_conflicts, clue_exclusions
from ..reduction import SolvesPuzzle, checked_grid

class CoverClues(enum.StrEnum):
    """A clue's cell keeps only the clue's option, or the clues are eliminated altogether."""

    KEEP = "keep"
    ELIMINATE = "eliminate"


CLUE_MODES = tuple(CoverClues)
ITEM_KINDS = ("cell", "row", "column", "block")
ITEM_LETTERS = "prcb"
MAX_NAME_LENGTH = 8
DENSE_LIMIT_BYTES = 512 * 2 ** 20
"""Largest dense 0/1 matrix (one byte per entry) :meth:`SudokuExactCover.dense_matrix` builds.
The full 25×25 matrix takes 39 MB and the full 36×36 one 242 MB; N = 49 would need 1.9 GB."""


class ExactCoverError(UserError):
    """An impossible request (unknown mode, a matrix too large) or an undecodable answer."""


# ----------------------------------------------------------------------------- base structure

def option_number(shape: Shape, row: int, col: int, digit: int) -> int:
    """Global number of option (row, col, digit); digit in 1..N."""
    n = shape.size
    return (row * n + col) * n + digit - 1


def option_cells_digits(shape: Shape, options: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                      np.ndarray]:
    """(rows, columns, digits) of an array of global option numbers (digits 1..N)."""
    n = shape.size
    options = np.asarray(options, dtype=np.int64)
    cell, digit = np.divmod(options, n)
    rows, cols = np.divmod(cell, n)
    return rows, cols, digit + 1


@functools.lru_cache(maxsize=16)
def base_option_items(shape: Shape) -> np.ndarray:
    """``(N³, 4)`` read-only array: the global item numbers of every option, kinds in order.

    Built once per shape; every instance of the shape is a row/column selection of it.
    """
    n = shape.size
    dtype = np.int32 if 4 * n * n < 2 ** 31 else np.int64
    r, c, d = np.meshgrid(np.arange(n, dtype=dtype), np.arange(n, dtype=dtype),
                          np.arange(n, dtype=dtype), indexing="ij")
    b = shape.block_index_array().astype(dtype)[r, c]
    nn = n * n
    items = np.stack([r * n + c, nn + r * n + d, 2 * nn + c * n + d, 3 * nn + b * n + d],
                     axis=-1).reshape(n ** 3, 4)
    items.setflags(write=False)
    return items


def item_parts(shape: Shape, item: int) -> tuple[int, int, int]:
    """(kind, first, second) of a global item number: kind 0 cell (row, column), 1 row
    (row, digit−1), 2 column (column, digit−1), 3 block (block, digit−1)."""
    n = shape.size
    kind, rest = divmod(int(item), n * n)
    first, second = divmod(rest, n)
    return kind, first, second


def item_name(shape: Shape, item: int) -> str:
    """Knuth-format name of a global item number (see the module docstring)."""
    kind, first, second = item_parts(shape, item)
    if kind == 0:
        return f"p{first}_{second}"
    return f"{ITEM_LETTERS[kind]}{first}_{second + 1}"


@functools.lru_cache(maxsize=16)
def base_item_names(shape: Shape) -> tuple[str, ...]:
    """Names of all 4N² items, by global number."""
    names = tuple(item_name(shape, i) for i in range(4 * shape.size ** 2))
    assert max(len(s) for s in names) <= MAX_NAME_LENGTH
    return names


def parse_item_name(shape: Shape, name: str) -> int | None:
    """Global item number of a name, or None when it is not an item of this shape."""
    kind = ITEM_LETTERS.find(name[:1])
    first, sep, second = name[1:].partition("_")
    if kind < 0 or not sep or not first.isdigit() or not second.isdigit():
        return None
    n = shape.size
    a, b = int(first), int(second) - (kind != 0)
    if not (0 <= a < n and 0 <= b < n) or item_name(shape, kind * n * n + a * n + b) != name:
        return None
    return kind * n * n + a * n + b


# ----------------------------------------------------------------------------- instances

@dataclass
class SudokuExactCover:
    """The exact-cover instance of one puzzle.

    ``options`` (K,) and ``items`` (M,) are the kept global numbers, sorted; ``option_items``
    (K, 4) gives each kept option's items as *local* numbers 0..M−1 (kinds in order).
    """

    puzzle: Grid
    clues: str
    options: np.ndarray
    items: np.ndarray
    option_items: np.ndarray
    _option_index: dict[int, int] | None = field(default=None, repr=False)

    @property
    def shape(self) -> Shape:
        return self.puzzle.shape

    @property
    def num_options(self) -> int:
        return int(self.options.size)

    @property
    def num_items(self) -> int:
        return int(self.items.size)

    @property
    def num_nonzeros(self) -> int:
        return int(self.option_items.size)

    def item_names(self) -> list[str]:
        names = base_item_names(self.shape)
        return [names[i] for i in self.items.tolist()]

    def option_names(self, option: int) -> list[str]:
        """Item names of a local option, kinds in order."""
        names = base_item_names(self.shape)
        return [names[int(self.items[i])] for i in self.option_items[option]]

    def option_cell_digit(self, option: int) -> tuple[int, int, int]:
        """(row, column, digit) of a local option."""
        rows, cols, digits = option_cells_digits(self.shape, self.options[[option]])
        return int(rows[0]), int(cols[0]), int(digits[0])

    def local_option(self, row: int, col: int, digit: int) -> int | None:
        """Local number of option (row, col, digit), or None when it is not in the instance."""
        if self._option_index is None:
            self._option_index = {g: k for k, g in enumerate(self.options.tolist())}
        return self._option_index.get(option_number(self.shape, row, col, digit))

    def uncoverable_items(self) -> np.ndarray:
        """Local items that no option contains: each one proves there is no solution."""
        counts = np.bincount(self.option_items.ravel(), minlength=self.num_items)
        return np.flatnonzero(counts == 0)

    def check_dense_fits(self, max_bytes: int = DENSE_LIMIT_BYTES) -> None:
        """Raise :class:`ExactCoverError`, naming the size, when the dense matrix would take
        more than ``max_bytes``."""
        size = self.num_options * self.num_items
        if size > max_bytes:
            raise ExactCoverError(
                f"the exact-cover matrix of this {self.shape.size}x{self.shape.size} puzzle "
                f"(clues {self.clues}) has {self.num_options:,} options x {self.num_items:,} "
                f"items: a dense form needs {size / 2 ** 20:,.0f} MiB, more than the "
                f"{max_bytes / 2 ** 20:,.0f} MiB allowed; use the sparse solver (dlx)")

    def dense_matrix(self, max_bytes: int = DENSE_LIMIT_BYTES) -> np.ndarray:
        """The (K, M) 0/1 matrix as numpy bools; refuses when it would exceed ``max_bytes``."""
        self.check_dense_fits(max_bytes)
        matrix = np.zeros((self.num_options, self.num_items), dtype=bool)
        matrix[np.arange(self.num_options)[:, None], self.option_items] = True
        return matrix

    # ------------------------------------------------------------------ forward map, extraction

    def options_from_grid(self, grid: Grid) -> np.ndarray:
        """Forward map: the local options a solved grid chooses (sorted).

        In ``eliminate`` mode the clue cells have no option (they were removed as forced).
        Raises :class:`ExactCoverError` when the grid uses an option the instance lacks
        (it then does not solve the puzzle).
        """
        if grid.shape != self.shape:
            raise ExactCoverError(f"grid of shape {grid.shape} given for a {self.shape} instance")
        n = self.shape.size
        values = grid.values.ravel().astype(np.int64)
        cells = np.arange(n * n)
        if self.clues == "eliminate":
            cells = cells[self.puzzle.values.ravel() == 0]
        if np.any(values[cells] == 0):
            raise ExactCoverError("the grid has empty cells: it chooses no option there")
        wanted = cells * n + values[cells] - 1
        if wanted.size == 0:
            return np.zeros(0, dtype=np.int64)
        local = np.searchsorted(self.options, wanted)
        found = local < self.num_options
        found[found] = self.options[local[found]] == wanted[found]
        missing = ~found
        if np.any(missing):
            r, c = divmod(int(cells[np.flatnonzero(missing)[0]]), n)
            raise ExactCoverError(
                f"cell ({r + 1},{c + 1}) holds {values[r * n + c]}, which is not an option of "
                f"this instance (it breaks a clue)")
        return local

    def grid_from_options(self, chosen: Iterable[int]) -> Grid:
        """Extraction: the grid written by the chosen local options (plus the clues).

        Does not check the rules (``reductions.sudoku.grid.check_solution`` does); raises
        :class:`ExactCoverError` when two chosen options fill the same cell or an option
        number is out of range.
        """
        chosen = np.asarray(list(chosen) if not isinstance(chosen, np.ndarray) else chosen,
                            dtype=np.int64)
        if chosen.size and (chosen.min() < 0 or chosen.max() >= self.num_options):
            bad = chosen[(chosen < 0) | (chosen >= self.num_options)][0]
            raise ExactCoverError(f"option {bad} does not exist (the instance has "
                                  f"{self.num_options} options, numbered from 0)")
        n = self.shape.size
        values = self.puzzle.values.copy().ravel() if self.clues == "eliminate" else \
            np.zeros(n * n, dtype=np.int16)
        rows, cols, digits = option_cells_digits(self.shape, self.options[chosen])
        cells = rows * n + cols
        unique_cells, counts = np.unique(cells, return_counts=True)
        if np.any(counts > 1):
            r, c = divmod(int(unique_cells[np.argmax(counts > 1)]), n)
            raise ExactCoverError(f"two chosen options fill cell ({r + 1},{c + 1})")
        if self.clues == "eliminate" and np.any(values[cells] != 0):
            r, c = divmod(int(cells[np.argmax(values[cells] != 0)]), n)
            raise ExactCoverError(f"a chosen option fills clue cell ({r + 1},{c + 1})")
        values[cells] = digits
        return Grid(values.reshape(n, n), self.shape)

    def is_exact_cover(self, chosen: Sequence[int] | np.ndarray) -> bool:
        """True when the chosen local options contain every item exactly once."""
        chosen = np.asarray(chosen, dtype=np.int64)
        if chosen.size and (chosen.min() < 0 or chosen.max() >= self.num_options):
            return False
        counts = np.bincount(self.option_items[chosen].ravel(), minlength=self.num_items)
        return bool(np.all(counts == 1))


def candidate_mask(puzzle: Grid) -> np.ndarray:
    """``(N, N, N)`` bools: [r, c, d−1] when d may go in empty cell (r, c) given the clues.

    A digit is a candidate of an empty cell when no clue of its row, column or block has it.
    """
    return ~clue_exclusions(puzzle) & (puzzle.values == 0)[:, :, None]


def _clue_options(puzzle: Grid) -> np.ndarray:
    n = puzzle.size
    flat = puzzle.values.ravel().astype(np.int64)
    cells = np.flatnonzero(flat)
    return cells * n + flat[cells] - 1


def sudoku_exact_cover(puzzle: Grid, clues: str = "keep") -> SudokuExactCover:
    """Build the exact-cover instance of ``puzzle`` (see the module docstring for the modes)."""
    if clues not in CLUE_MODES:
        raise ExactCoverError(f"unknown clue mode {clues!r}; choose one of {', '.join(CLUE_MODES)}")
    shape = puzzle.shape
    n = shape.size
    base = base_option_items(shape)
    clue_options = _clue_options(puzzle)
    if clues == "keep":
        keep = np.ones((n * n, n), dtype=bool)
        keep[puzzle.values.ravel() != 0] = False
        keep = keep.ravel()
        keep[clue_options] = True
        options = np.flatnonzero(keep)
        items = np.arange(4 * n * n)
        option_items = base[options].astype(np.int64)
        return SudokuExactCover(puzzle, clues, options, items, option_items)

    options = np.flatnonzero(candidate_mask(puzzle).ravel())
    # A clue survives unless another clue excludes it (same digit in a shared unit).
    counts = np.bincount(base[clue_options].ravel(), minlength=4 * n * n)
    surviving = clue_options[np.all(counts[base[clue_options]] == 1, axis=1)]
    covered = np.zeros(4 * n * n, dtype=bool)
    covered[base[surviving].ravel()] = True
    items = np.flatnonzero(~covered)
    local = np.full(4 * n * n, -1, dtype=np.int64)
    local[items] = np.arange(items.size)
    option_items = local[base[options]]
    return SudokuExactCover(puzzle, clues, options, items, option_items)


def expected_size(shape: Shape, clue_count: int, clues: str = "keep") -> tuple[int, int, int] | None:
    """(options, items, nonzeros) by formula for ``keep`` mode; None for ``eliminate`` (the
    size depends on where the clues are)."""
    if clues != "keep":
        return None
    n = shape.size
    options = n ** 3 - (n - 1) * clue_count
    return options, 4 * n * n, 4 * options


# ----------------------------------------------------------------------------- the rule

def eliminated_size(puzzle: Grid) -> dict[str, int]:
    """Size after clue elimination, from the puzzle: one option (ILP variable) per candidate
    of an empty cell, each in four items; 4(N² − k) items when the clues are consistent
    (with a repeated digit the clues' own items stay: that count is then left out)."""
    options = int(np.count_nonzero(candidate_mask(puzzle)))
    counts = {"options": options, "nonzeros": 4 * options}
    if not clue_conflicts(puzzle):
        counts["items"] = 4 * (puzzle.size ** 2 - puzzle.clue_count())
    return counts


@dataclass(frozen=True)
class SudokuToExactCover(SolvesPuzzle):
    """Sudoku → exact cover as a :class:`~reductions.reduction.ReductionRule` (Knuth,
    TAOCP 7.2.2.1; the module docstring gives the bijection).

    Witness: the chosen local options, sorted. Size formula: ``keep`` — N³ − (N − 1)·k
    options, 4N² items, 4 nonzeros per option (:func:`expected_size`); ``eliminate`` — one
    option per candidate of an empty cell, 4(N² − k) items (:func:`eliminated_size`).
    """

    target: SudokuExactCover

    @classmethod
    def build(cls, puzzle: Grid, *, clues: str = "keep") -> "SudokuToExactCover":
        """The exact-cover instance of ``puzzle`` (:func:`sudoku_exact_cover`)."""
        return cls(puzzle, sudoku_exact_cover(puzzle, clues))

    def expected_size(self) -> dict[str, int]:
        if self.target.clues == "eliminate":
            return eliminated_size(self.source)
        options, items, nonzeros = expected_size(self.source.shape, self.source.clue_count())
        return {"options": options, "items": items, "nonzeros": nonzeros}

    def actual_size(self) -> dict[str, int]:
        cover = self.target
        return {"options": cover.num_options, "items": cover.num_items,
                "nonzeros": cover.num_nonzeros}

    def forward(self, solution: Grid) -> tuple[int, ...]:
        """The options a solved grid chooses (:meth:`SudokuExactCover.options_from_grid`)."""
        checked_grid(self.source, solution, ExactCoverError)
        return tuple(self.target.options_from_grid(solution).tolist())

    def decode(self, witness: Iterable[int]) -> Grid:
        """The grid the options write (:meth:`SudokuExactCover.grid_from_options`), not
        checked against the puzzle."""
        return self.target.grid_from_options(witness)

    def extract(self, witness: Sequence[int]) -> Grid:
        """The grid the options write (:meth:`decode`), checked against the puzzle."""
        return checked_grid(self.source, self.decode(witness), ExactCoverError)

    @classmethod
    def estimate(cls, shape: Shape, **options) -> Estimate:
        """What building (``solve``, ``dense``: and searching) the instance of an N×N
        puzzle takes (:func:`reductions.encodings.sizes.exact_cover_estimate`)."""
        from .sizes import exact_cover_estimate     # sizes reads this module's constants
        return exact_cover_estimate(shape, **options)
