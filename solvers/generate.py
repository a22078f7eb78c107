"""Eppstein's generator (:mod:`reductions.rules.generator`) with this project's SAT route as the
uniqueness oracle.

The oracle is this process's incremental CaDiCaL for the shape
(:func:`solvers.routes.sat_incremental.process_solver`: the rule clauses loaded once, clues
as assumptions, replaced by a fresh solver every few thousand calls): a removal is kept when
one call with a blocking clause against the known solution is unsatisfiable
(:meth:`~solvers.routes.sat_incremental.IncrementalSudokuSolver.unique_solution`).
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from reductions.errors import UserError
from reductions.rules.generator import GeneratedPuzzle, UniquenessOracle, generate
from reductions.sudoku.grid import Shape
from reductions.estimate import Estimate
from reductions.encodings.sizes import cnf_estimate
from reductions.rules.sizes import rules_estimate

from .routes.sat_incremental import process_solver

MAX_GENERATE_SIZE = 16
"""The largest N the generator takes. The paper's construction restarts on every
contradiction the singles find late, and each removal needs a uniqueness proof: 9×9 takes
milliseconds a puzzle, 16×16 minutes, 25×25 would take hours (figures:
``benchmarks/results/design_figures.md``)."""


class GenerateError(UserError):
    """A generator request that cannot be met (size, count, seed)."""


def sat_oracle(shape: Shape) -> UniquenessOracle:
    """The uniqueness oracle for puzzles of ``shape``: True when the clues admit no solution
    other than the given one (a SAT proof)."""
    def oracle(clues: np.ndarray, solution: np.ndarray) -> bool:
        unique = process_solver(shape).unique_solution(clues, solution)
        if unique is None:             # no time limit was given: cannot happen
            raise RuntimeError("the uniqueness check stopped without an answer")
        return unique
    return oracle


def generator_estimate(shape: Shape) -> Estimate:
    """What generating puzzles of ``shape`` holds: the incremental SAT solver and the rule
    engine's state."""
    return cnf_estimate(shape, solve=True).plus(rules_estimate(shape))


def check_request(shape: Shape, count: int) -> None:
    """Refuse sizes the generator cannot serve in reasonable time, and empty counts."""
    if shape.size > MAX_GENERATE_SIZE:
        raise GenerateError(f"generate takes N up to {MAX_GENERATE_SIZE}, not {shape.size} "
                            f"(each puzzle needs many uniqueness proofs)")
    if count < 1:
        raise GenerateError(f"--count {count}: give at least 1")


def generate_puzzles(shape: Shape, *, count: int, seed: int, symmetric: bool = False,
                     start: int = 0) -> Iterator[GeneratedPuzzle]:
    """Puzzles ``start`` .. ``start + count - 1`` of ``seed`` (see
    :mod:`reductions.rules.generator`), uniqueness proved by SAT; the request is checked at once,
    the puzzles are made as they are consumed."""
    check_request(shape, count)
    return generate(shape, count=count, seed=seed, symmetric=symmetric,
                    oracle=sat_oracle(shape), start=start)
