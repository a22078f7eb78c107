"""Eppstein's puzzle generator (Eppstein 2005, §3.6), given an oracle for uniqueness.

The construction, as the paper describes it:

1. **Place.** Repeatedly choose at random a cell not yet determined, its symmetric partner
   (180° rotation, ``--symmetric``; without symmetry the cell alone), and digits for them
   that are still candidates; then propagate with the simplest rules (hidden and naked
   singles by default). A contradiction restarts the construction from the empty grid (the
   same random stream goes on, so the result stays a function of the seed). Once the
   propagation determines every cell, the chosen cells are a puzzle that the simplest rules
   solve, and the grid they determine is its solution.
2. **Remove.** In the order they were placed, try emptying each chosen group (a symmetric
   pair, or one cell); keep the removal when the oracle says the solution is still unique.

One pass is enough for minimality: a group kept at its turn was needed with *more* clues
present than at the end, and removing clues can only add solutions, so it is still needed
at the end. Hence no clue (in symmetric mode: no symmetric pair) of the result can be
removed with the solution staying unique.

This module is pure: the uniqueness oracle is a callable (the SAT one is wired in
:mod:`solvers.generate`), and randomness comes from a numpy ``Generator`` seeded by
``(seed, index)`` (:func:`puzzle_rng`), so puzzle *k* of a seed is the same whether it is
generated alone, in a batch, or in another process.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

import numpy as np

from ..sudoku.grid import Grid, Shape, check_solution
from .base import Rule
from .engine import deduce, select_rules
from ..status import Status
from ..sudoku.candidates import peer_matrix

UniquenessOracle = Callable[[np.ndarray, np.ndarray], bool]
"""``oracle(clues, solution)``: flat arrays of N² digits (clues 0 where open) — True when the
clues admit no solution other than ``solution`` (which they are known to admit)."""

PROPAGATION_LEVEL = 2
"""The simplest rules, used to propagate the random placements: levels 1..2 of
:data:`reductions.rules.engine.RULES` (hidden single, naked single)."""

MAX_RESTARTS = 10_000
"""Constructions abandoned on a contradiction before giving up (a bound, never reached in
practice: 9×9 needs about one restart in ten puzzles)."""


class GeneratorError(RuntimeError):
    """The construction did not finish within :data:`MAX_RESTARTS` (a bug or an oracle that
    never answers unique)."""


@dataclass(frozen=True)
class GeneratedPuzzle:
    """A minimal puzzle, its (unique) solution, and how it was made."""

    index: int
    puzzle: Grid
    solution: Grid
    restarts: int            # constructions abandoned on a contradiction
    placed: int              # clues of the constructed puzzle, before removal
    oracle_calls: int

    @property
    def clues(self) -> int:
        return int(np.count_nonzero(self.puzzle.values))


def puzzle_rng(seed: int, index: int) -> np.random.Generator:
    """The random stream of puzzle ``index`` of ``seed`` (independent of the others)."""
    return np.random.default_rng([seed, index])


def partner(shape: Shape, cell: int) -> int:
    """The cell opposite ``cell`` (flat index) under 180° rotation; blocks map to blocks
    for any a×b shape, so a symmetric puzzle is a valid clue pattern of the same shape."""
    return shape.size * shape.size - 1 - cell


def is_symmetric(puzzle: Grid) -> bool:
    """Is the set of clue cells invariant under 180° rotation?"""
    filled = puzzle.values != 0
    return bool(np.array_equal(filled, filled[::-1, ::-1]))


def construct(shape: Shape, rng: np.random.Generator, *, symmetric: bool,
              rules: Sequence[Rule] | None = None
              ) -> tuple[np.ndarray, list[tuple[int, ...]], np.ndarray, int]:
    """Step 1: random placements propagated by ``rules`` (default: the singles) until every
    cell is determined. Returns (clues, groups in placement order, solution, restarts); clues
    and solution are flat uint8 arrays of N² entries."""
    rules = list(rules) if rules is not None else select_rules(max_level=PROPAGATION_LEVEL)
    n = shape.size
    peers = peer_matrix(shape)
    for restarts in range(MAX_RESTARTS):
        clues = np.zeros(n * n, dtype=np.uint8)
        groups: list[tuple[int, ...]] = []
        known = np.zeros(n * n, dtype=np.int16)          # placed digits after propagation
        while True:
            # Singles only place digits, so the propagated placements stand for the whole
            # state: restarting the rules from them (plus the new clues) reaches the same
            # fixpoint as from the clues alone, at a fraction of the cost.
            result = deduce(Grid(np.maximum(known, clues), shape), rules)
            if result.verdict == Status.NO_SOLUTION:
                break
            state = result.state
            known = state.values.reshape(-1).astype(np.int16)
            if result.verdict == Status.SOLVED:
                return clues, groups, known.astype(np.uint8), restarts
            cell = int(rng.choice(state.open_cells()))
            digit = int(rng.choice(state.candidates_of(cell)))
            group = [cell]
            clues[cell] = digit
            other = partner(shape, cell)
            if symmetric and other != cell:
                group.append(other)
                if known[other]:              # determined already: it becomes a clue as is
                    clues[other] = known[other]
                else:
                    options = [d for d in state.candidates_of(other)
                               if not (d == digit and peers[cell, other])]
                    if not options:
                        break
                    clues[other] = int(rng.choice(options))
            groups.append(tuple(group))
    raise GeneratorError(f"no {n}x{n} construction finished in {MAX_RESTARTS} attempts")


def remove_clues(clues: np.ndarray, solution: np.ndarray, groups: Sequence[tuple[int, ...]],
                 oracle: UniquenessOracle) -> tuple[np.ndarray, int]:
    """Step 2: empty each group in order when the solution stays unique (see the module
    docstring for why one pass gives a minimal puzzle). Returns (clues, oracle calls)."""
    clues = clues.copy()
    calls = 0
    for group in groups:
        trial = clues.copy()
        trial[list(group)] = 0
        calls += 1
        if oracle(trial, solution):
            clues = trial
    return clues, calls


def generate_puzzle(shape: Shape, index: int, *, seed: int, symmetric: bool,
                    oracle: UniquenessOracle) -> GeneratedPuzzle:
    """Puzzle ``index`` of ``seed``: construct, then remove clues (see the module docstring)."""
    rng = puzzle_rng(seed, index)
    clues, groups, solution, restarts = construct(shape, rng, symmetric=symmetric)
    final, calls = remove_clues(clues, solution, groups, oracle)
    puzzle, grid = Grid(final, shape), Grid(solution, shape)
    if not check_solution(puzzle, grid):      # the propagation is sound: a bug if it fails
        raise GeneratorError(f"the constructed grid does not solve the puzzle {index}")
    return GeneratedPuzzle(index, puzzle, grid, restarts, int(np.count_nonzero(clues)), calls)


def generate(shape: Shape, *, count: int, seed: int, symmetric: bool,
             oracle: UniquenessOracle, start: int = 0) -> Iterator[GeneratedPuzzle]:
    """Puzzles ``start`` .. ``start + count - 1`` of ``seed``, one at a time."""
    for index in range(start, start + count):
        yield generate_puzzle(shape, index, seed=seed, symmetric=symmetric, oracle=oracle)
