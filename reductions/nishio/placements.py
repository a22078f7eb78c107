"""Nishio(S): which cells of a single digit's candidate set can be part of a full placement.

Eppstein, *Solving single-digit Sudoku subproblems* (FUN 2012), §2–§4.

Definitions (§2). In an ab×ab grid with blocks of a rows × b columns (``Shape(a, b)``, N = ab),
a *valid placement* is a set of N cells with exactly one cell in every row, every column and
every block: the cells one digit occupies in a solved Sudoku. For a set S of cells (the
candidates left for one digit),

    Nishio(S) = union of the valid placements contained in S,

and the Nishio deduction removes the candidates S \\ Nishio(S). The *decision version* asks
whether Nishio(S) ≠ ∅, i.e. whether S contains a valid placement at all (NP-complete, §6; the
reduction is in :mod:`reductions.nishio.gadget`).

Two exact methods live here (pure computation); the third, a SAT model that works at any size,
is :mod:`solvers.gadgets.nishio`.

**Pattern overlay** (:func:`nishio_overlay`). List every valid placement once per shape and
keep those inside S. A placement is fixed by, for each band (a rows of blocks), a bijection
between the band's a blocks and its a rows, and for each stack, a bijection between its b
blocks and its b columns; the cell of block (band t, stack s) is then (row of t's bijection,
column of s's bijection). Hence exactly (a!)^b · (b!)^a placements (§4): 16 at 4×4, 288 at
6×6, 46,656 = 6^6 at 9×9, but 110,075,314,176 = 24^8 at 16×16, so the method stops at
:data:`OVERLAY_LIMIT` placements.

The DAG method and the :func:`~reductions.nishio.dag.nishio` entry point are in
:mod:`reductions.nishio.dag`; independent parts of a cell set in :mod:`reductions.nishio.parts`.

Cells are (row, column) pairs, 0-based; flat index r·N + c. Rows, columns and blocks are
numbered as in :mod:`reductions.sudoku.grid`.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from typing import Iterable, Sequence

import numpy as np

from ..errors import UserError
from ..sudoku.grid import Shape

OVERLAY_LIMIT = 1_000_000
"""Most placements the pattern-overlay method will enumerate (9×9: 46,656; 10×10: 460,800)."""

Cell = tuple[int, int]


class NishioError(UserError):
    """A cell set or a request a Nishio method cannot handle; the message says which."""


# ----------------------------------------------------------------------------- shapes

def shape_for_side(size: int, box: Shape | None = None) -> Shape:
    """The block shape of an N×N cell set: ``box`` when given (checked), else square blocks
    when N is a square, else the most square a×b (``Shape.for_size``)."""
    if box is not None:
        if box.size != size:
            raise NishioError(f"a {size}x{size} grid does not fit blocks {box} "
                              f"({box.size}x{box.size})")
        return box
    root = math.isqrt(size)
    if root * root == size and root >= 2:
        return Shape(root, root)
    return Shape.for_size(size)


# ----------------------------------------------------------------------------- cell sets

class CellSet:
    """A set S of cells of an N×N grid with blocks ``shape`` (the candidates of one digit).

    ``mask`` is a read-only ``(N, N)`` bool array. Cell sets compare equal when shape and
    cells agree and are hashable.
    """

    __slots__ = ("shape", "mask")

    def __init__(self, mask: np.ndarray | Iterable[Iterable[bool]], shape: Shape | None = None):
        arr = np.array(mask, dtype=bool)
        if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
            raise NishioError(f"a cell set must be an N×N array, got shape {arr.shape}")
        if shape is None:
            shape = shape_for_side(arr.shape[0])
        if shape.size != arr.shape[0]:
            raise NishioError(f"a {arr.shape[0]}x{arr.shape[0]} cell set does not fit "
                              f"blocks {shape}")
        arr.setflags(write=False)
        self.mask = arr
        self.shape = shape

    @classmethod
    def from_cells(cls, shape: Shape, cells: Iterable[Cell]) -> "CellSet":
        mask = np.zeros((shape.size, shape.size), dtype=bool)
        for r, c in cells:
            mask[r, c] = True
        return cls(mask, shape)

    @classmethod
    def full(cls, shape: Shape) -> "CellSet":
        return cls(np.ones((shape.size, shape.size), dtype=bool), shape)

    @classmethod
    def empty(cls, shape: Shape) -> "CellSet":
        return cls(np.zeros((shape.size, shape.size), dtype=bool), shape)

    @property
    def size(self) -> int:
        """N, the side of the grid."""
        return self.shape.size

    def count(self) -> int:
        return int(np.count_nonzero(self.mask))

    def cells(self) -> list[Cell]:
        """The cells, row-major."""
        rows, cols = np.nonzero(self.mask)
        return list(zip(rows.tolist(), cols.tolist()))

    def flat(self) -> np.ndarray:
        """Flat indices r·N + c of the cells, increasing."""
        return np.flatnonzero(self.mask)

    def __contains__(self, cell: Cell) -> bool:
        r, c = cell
        return bool(self.mask[r, c])

    def __len__(self) -> int:
        return self.count()

    def __le__(self, other: "CellSet") -> bool:
        return self.shape == other.shape and not np.any(self.mask & ~other.mask)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, CellSet) and self.shape == other.shape
                and np.array_equal(self.mask, other.mask))

    def __hash__(self) -> int:
        return hash((self.shape, np.packbits(self.mask).tobytes()))

    def __repr__(self) -> str:
        return f"CellSet({self.count()} of {self.size}x{self.size} cells, blocks {self.shape})"


# ----------------------------------------------------------------------------- placements

def placement_problems(cells: Sequence[Cell], shape: Shape,
                       within: CellSet | None = None) -> list[str]:
    """Everything that stops ``cells`` from being a valid placement (inside ``within``).

    Empty when the cells are N cells, one in every row, column and block (and all in
    ``within`` when given). Messages count from 1, as people do.
    """
    n = shape.size
    problems = []
    if len(cells) != n:
        problems.append(f"{len(cells)} cells, a valid placement has {n}")
    for kind, index_of in (("row", lambda r, c: r), ("column", lambda r, c: c),
                           ("block", shape.block_of)):
        counts = [0] * n
        for r, c in cells:
            if not (0 <= r < n and 0 <= c < n):
                return problems + [f"cell ({r + 1},{c + 1}) is outside the {n}x{n} grid"]
            counts[index_of(r, c)] += 1
        for index, count in enumerate(counts):
            if count != 1:
                problems.append(f"{kind} {index + 1} has {count} cells")
    if within is not None:
        outside = [(r, c) for r, c in cells if not within.mask[r, c]]
        for r, c in outside[:3]:
            problems.append(f"cell ({r + 1},{c + 1}) is not in S")
        if len(outside) > 3:
            problems.append(f"... {len(outside) - 3} more cells not in S")
    return problems


def is_valid_placement(cells: Sequence[Cell], shape: Shape,
                       within: CellSet | None = None) -> bool:
    return not placement_problems(cells, shape, within)


def valid_placement_count(shape: Shape) -> int:
    """(a!)^b · (b!)^a: the number of valid placements of an ab×ab grid with a×b blocks."""
    a, b = shape.box_rows, shape.box_cols
    return math.factorial(a) ** b * math.factorial(b) ** a


def random_placement(shape: Shape, rng: random.Random) -> list[Cell]:
    """A uniformly random valid placement: random row bijection per band, column per stack."""
    a, b = shape.box_rows, shape.box_cols
    bands, stacks = b, a                       # N/a bands of a rows; N/b stacks of b columns
    row_of = [rng.sample(range(a), a) for _ in range(bands)]     # band t: stack s -> row
    col_of = [rng.sample(range(b), b) for _ in range(stacks)]    # stack s: band t -> column
    return [(t * a + row_of[t][s], s * b + col_of[s][t])
            for t in range(bands) for s in range(stacks)]


def random_cell_set(shape: Shape, rng: random.Random, placements: int = 2,
                    density: float = 0.15) -> CellSet:
    """A test instance: the union of ``placements`` random valid placements plus each other
    cell with probability ``density`` (so Nishio(S) is sometimes all of S, sometimes part of
    it, sometimes empty once placements = 0)."""
    n = shape.size
    mask = np.zeros((n, n), dtype=bool)
    for _ in range(placements):
        for r, c in random_placement(shape, rng):
            mask[r, c] = True
    noise = np.array([[rng.random() < density for _ in range(n)] for _ in range(n)])
    return CellSet(mask | noise, shape)


# ----------------------------------------------------------------------------- overlay

@functools.lru_cache(maxsize=8)
def all_placements(shape: Shape) -> np.ndarray:
    """Every valid placement as a read-only ``(P, N)`` array of flat cells, P = (a!)^b (b!)^a.

    Row (band choices) × column (stack choices) products, built with numpy; refused beyond
    :data:`OVERLAY_LIMIT` placements.
    """
    count = valid_placement_count(shape)
    if count > OVERLAY_LIMIT:
        raise NishioError(
            f"pattern overlay would enumerate {count:,} placements for blocks {shape} "
            f"(limit {OVERLAY_LIMIT:,}); use the dag or sat method")
    a, b = shape.box_rows, shape.box_cols
    n = shape.size
    bands, stacks = b, a
    # rows[i, t, s]: the row that band t gives to its block in stack s, for band choice i.
    row_perms = list(itertools.permutations(range(a)))
    rows = np.array([[[t * a + perm[s] for s in range(stacks)]
                      for t, perm in enumerate(choice)]
                     for choice in itertools.product(row_perms, repeat=bands)], dtype=np.int64)
    col_perms = list(itertools.permutations(range(b)))
    cols = np.array([[[s * b + perm[t] for s, perm in enumerate(choice)]
                      for t in range(bands)]
                     for choice in itertools.product(col_perms, repeat=stacks)], dtype=np.int64)
    # cols[j, t, s]: the column of block (t, s) for stack choice j.
    flat = rows[:, None, :, :] * n + cols[None, :, :, :]
    flat = flat.reshape(-1, bands * stacks)
    flat.setflags(write=False)
    return flat


def overlay_placements_in(cells: CellSet) -> np.ndarray:
    """The rows of :func:`all_placements` that lie inside ``cells``."""
    placements = all_placements(cells.shape)
    inside = cells.mask.ravel()[placements].all(axis=1)
    return placements[inside]


def nishio_overlay(cells: CellSet) -> CellSet:
    """Nishio(S) by pattern overlay: the union of the enumerated placements inside S."""
    n = cells.size
    mask = np.zeros(n * n, dtype=bool)
    mask[overlay_placements_in(cells).ravel()] = True
    return CellSet(mask.reshape(n, n), cells.shape)


def count_placements_overlay(cells: CellSet) -> int:
    return int(overlay_placements_in(cells).shape[0])
