"""Digits forced by the simplest Sudoku deductions, for a whole batch of puzzles at once.

:func:`forced_digits` takes K puzzles as a (K, N²) array of clues and applies, round after
round until nothing changes:

* **naked single** — a cell whose candidates (digits not yet placed in its row, column or
  block) come down to one;
* **hidden single** — a digit that has one possible cell left in some row, column or block;
* **locked candidates** — a digit whose candidates in a block all lie in one row (or column)
  leaves the rest of that row (*pointing*); one whose candidates in a row (or column) all lie
  in one block leaves the rest of that block (*claiming*).

All are sound: a digit they place is in *every* solution of the puzzle (each step only uses
the rules and candidates already removed). So

* if the forced digits fill the grid and the grid is valid, it is the puzzle's **only**
  solution — uniqueness is proved without a solver call;
* otherwise the forced digits can be given to a solver with the clues without changing the
  set of solutions (an unsolvable puzzle stays unsolvable: it has no solution to change).

Singles are what unit propagation finds on the *extended* CNF encoding; locked candidates
are a little more. The SAT route runs them for a whole batch here instead of one solver call
per puzzle: on the 49,151 17-clue puzzles singles alone complete 45 % of the grids and locked
candidates bring it to 76 %, at about 20 µs a puzzle in batches of 1,000 (Eppstein's rules
engine, :mod:`reductions.rules`, reaches the same levels one puzzle at a time with
explanations; this module is its bulk, explanation-free counterpart).

Representation: candidates are bit masks (bit d−1 for digit d), one unsigned integer per cell,
laid out (cells, puzzles) so that gathering a unit's cells reads whole rows of memory; one
round updates every unsettled puzzle of the batch with a fixed number of array operations
(independent of K), and puzzles that stop changing leave the active set. Contradictions
(a cell without candidates, a digit twice in a unit) simply stop the deductions from being
used: the result is then incomplete or fails verification, and the solver decides.
"""

from __future__ import annotations

import functools

import numpy as np

from .grid import Shape

MAX_ROUNDS = 200
"""Rounds of deductions at most (each round applies every deduction found; 9×9 17-clue
puzzles need at most 27). A bound so that a pathological input cannot loop; the result is then
merely less complete."""


@functools.lru_cache(maxsize=16)
def _layout(shape: Shape) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(units, where, unit_of): ``units`` (3N, N) cell indices; ``where`` (N², 3) the
    positions of each cell in ``units.ravel()`` (its row, column and block entries);
    ``unit_of`` (N², 3) the three units themselves."""
    units = shape.units()
    where = np.argsort(units.ravel(), kind="stable").reshape(-1, 3)
    return units, where, where // shape.size


def _mask_type(n: int):
    for dtype in (np.uint16, np.uint32, np.uint64):
        if n <= np.iinfo(dtype).bits:
            return dtype
    raise ValueError(f"forced_digits takes N ≤ 64, not {n}")


def forced_digits(clues: np.ndarray, shape: Shape, *, locked: bool = True) -> np.ndarray:
    """The digits forced by singles and (``locked``) locked candidates: (K, N²) uint8, 0
    where undecided.

    ``clues``: (K, N²) array, 0 for an empty cell. Clues are kept as given (a clue is its
    cell's only candidate), so every clue appears in the result — contradictory ones too,
    whose cells the rounds leave without a candidate.
    """
    clues = np.asarray(clues)
    n = shape.size
    layout = _layout(shape)
    dtype = _mask_type(n)
    full = dtype((1 << n) - 1) if n < 64 else ~dtype(0)
    given = clues.T.astype(np.int64)                               # (N², K)
    cand = np.where(given > 0, np.left_shift(1, np.maximum(given - 1, 0)),
                    0).astype(dtype)
    cand[given == 0] = full
    active = np.arange(cand.shape[1])
    locked_shape = (shape.box_rows, shape.box_cols) if locked else None
    for _ in range(MAX_ROUNDS):
        if active.size == 0:
            break
        before = cand[:, active]
        now = _one_round(before, *layout, locked_shape)
        changed = np.any(now != before, axis=0)
        cand[:, active] = now
        active = active[changed]
    single = (cand != 0) & ((cand & (cand - dtype(1))) == 0)
    digits = np.zeros(cand.shape, dtype=np.uint8)
    # log2 of a power of two is exact in float64 for the 64 bits a mask can hold.
    digits[single] = np.log2(cand[single].astype(np.float64)).astype(np.uint8) + 1
    return np.where(clues > 0, clues, digits.T).astype(np.uint8)


def _one_round(cand: np.ndarray, units: np.ndarray, where: np.ndarray, unit_of: np.ndarray,
               locked: tuple[int, int] | None) -> np.ndarray:
    """One round on (N², k) candidate masks: naked singles, hidden singles, then (with
    ``locked`` = the block shape (a, b)) locked candidates."""
    n = units.shape[1]
    one = cand.dtype.type(1)
    single = (cand & (cand - one)) == 0
    placed = np.where(single, cand, 0).astype(cand.dtype)
    # Digits placed in each unit, then in the three units of each cell.
    in_unit = placed[units[:, 0]].copy()
    for j in range(1, n):
        in_unit |= placed[units[:, j]]
    seen = in_unit[unit_of[:, 0]] | in_unit[unit_of[:, 1]] | in_unit[unit_of[:, 2]]
    cand = np.where(single, cand, cand & ~seen)
    # Hidden singles: digits with exactly one candidate cell in a unit.
    by_unit = cand[units]                                          # (3N, N, k)
    once = by_unit[:, 0].copy()
    twice = np.zeros_like(once)
    for j in range(1, n):
        twice |= once & by_unit[:, j]
        once |= by_unit[:, j]
    only_here = (by_unit & (once & ~twice)[:, None, :]).reshape(n * n * 3, -1)
    hidden = only_here[where[:, 0]] | only_here[where[:, 1]] | only_here[where[:, 2]]
    cand = np.where(hidden != 0, hidden, cand)
    if locked is None:
        return cand
    # Locked candidates along rows, then along columns (the transposed grid, a and b swapped).
    a, b = locked
    grid = _locked_candidates(cand.reshape(n, n, -1), n, a, b)
    grid = _locked_candidates(grid.transpose(1, 0, 2), n, b, a).transpose(1, 0, 2)
    return np.ascontiguousarray(grid).reshape(n * n, -1)


def _locked_candidates(grid: np.ndarray, n: int, a: int, b: int) -> np.ndarray:
    """Pointing and claiming along the rows of ``grid`` ((N, N, k) masks; blocks of a rows ×
    b columns). A *segment* is the b cells a row shares with a block.

    * claiming: a digit whose candidates in a row all lie in one segment is in that segment,
      so it leaves the block's other rows;
    * pointing: a digit whose candidates in a block all lie in one segment is in that
      segment, so it leaves the row's other segments.
    """
    k = grid.shape[-1]
    cells = grid.reshape(n, n // b, b, k)
    segment = cells[:, :, 0].copy()                                   # (N, N/b, k)
    for t in range(1, b):
        segment |= cells[:, :, t]
    claimed = segment & ~_or_of_others(segment, axis=1)
    leave_block = _or_of_others(claimed.reshape(n // a, a, n // b, k), axis=1)
    by_block = segment.reshape(n // a, a, n // b, k)
    pointing = (by_block & ~_or_of_others(by_block, axis=1)).reshape(n, n // b, k)
    leave_row = _or_of_others(pointing, axis=1)
    gone = leave_block.reshape(n, n // b, k) | leave_row
    return (cells & ~gone[:, :, None, :]).reshape(n, n, k)


def _or_of_others(masks: np.ndarray, axis: int) -> np.ndarray:
    """For each position along ``axis``, the OR of the masks at the *other* positions."""
    masks = np.moveaxis(masks, axis, 0)
    before = np.zeros_like(masks)
    after = np.zeros_like(masks)
    for i in range(1, len(masks)):
        before[i] = before[i - 1] | masks[i - 1]
        after[-1 - i] = after[-i] | masks[-i]
    return np.moveaxis(before | after, 0, axis)
