"""Certifying many puzzles of one shape with one proof and one checker run.

A checker's start-up costs more than a Sudoku proof (drat-trim allocates a large hash table
first: ~50 ms against ~5 ms of checking), so the negative claims of K puzzles are proved
together. One formula holds them all, each puzzle behind a *selector* variable ``a_i``
(fresh, above the encoding's variables):

    F' = R  ∧  ⋀_i ⋀_{clue c of puzzle i} (¬a_i ∨ c)  ∧  ⋀_{i unique} (¬a_i ∨ block_i)
            ∧  (a_i ∨ … for every claimed i)

R is the plain encoding's rules (the same for every puzzle of the shape), ``block_i`` the
clause blocking puzzle i's verified first grid. **F' is unsatisfiable exactly when every
claimed puzzle's own formula (R, its clue units, its blocking clause if any) is**: a model of
F' sets some claimed a_i and satisfies puzzle i's formula; a model of puzzle i's formula,
with a_i true and every other selector false, satisfies F'. So one checked refutation of F'
certifies every claim in the batch — "no solution" for a puzzle without a blocking clause,
"unique" (its first grid verified besides) for one with.

The proof: one pysat solver holds R and the guarded clues, logging DRAT; puzzle i is solved
under the assumption a_i (its second call after ``¬a_i ∨ block_i`` is added); when it says
UNSAT, ¬a_i follows from the clauses by unit propagation over what it learnt. The proof is
its lemmas, then ``¬a_i`` for each claimed puzzle, then the empty clause, checked with the
solver's deletions ignored (``plain``: a lemma the solver deleted may be needed for a later
¬a_i; ignoring deletions is sound, propagation only gains from more clauses).

A batch whose proof is rejected is certified again one puzzle at a time
(:func:`solvers.certify.sudoku.certified_solve`), where a wrong claim is a
:class:`~solvers.certify.checkers.ProofRejected` naming its puzzle.
"""

from __future__ import annotations

import time
from typing import Sequence

import numpy as np

from reductions.encodings.cnf import (
    DEFAULT_AMO,
    DEFAULT_ENCODING,
    SudokuToCnf,
    grid_from_model,
    sudoku_cnf,
)
from reductions.sudoku.grid import Grid

from ..outcome import Outcome, Status, verified
from ..runtime.budget import Deadline, solve_within
from ..runtime.pysat_solvers import new_pysat_solver
from .checkers import ProofRejected
from .proofs import proof_solver
from .refutation import CertifyOptions, check_refutation
from .sudoku import blocking_clause, certified_solve, with_check

__all__ = ["BATCH_SIZE", "DRATIFY_BATCH_SIZE", "batch_size", "certified_batch"]

BATCH_SIZE = 1000
"""Puzzles per proof. Measured on 17-clue puzzles with cadical153: a batch of 1,000 checks in
0.23 s with drat-trim, 0.2 s more with cake_lpr."""

DRATIFY_BATCH_SIZE = 100
"""Puzzles per proof for dratify, whose check grows faster than linearly (deletions ignored:
royle17-sample300 took 11.4 s in batches of 25, 10.0 s in batches of 100, 15.1 s in one of
300, on a loaded machine)."""


def batch_size(checker: str) -> int:
    """Puzzles per proof for ``checker``."""
    return DRATIFY_BATCH_SIZE if checker == "dratify" else BATCH_SIZE


def certified_batch(puzzles: Sequence[Grid], *, certify: CertifyOptions, name: str,
                    solver: str | None = None, encoding: str = DEFAULT_ENCODING,
                    amo: str = DEFAULT_AMO,
                    unique: bool = False, time_limit: float | None = None) -> list[Outcome]:
    """The outcomes of ``puzzles`` (all of one shape), each negative claim certified by one
    proof for the batch (module docstring); ``name`` names its kept files."""
    solver = proof_solver(solver or "cadical195")
    start = time.perf_counter()
    rules = sudoku_cnf(Grid.empty(puzzles[0].shape), encoding, amo, "units")
    formula = list(rules.iter_clauses())
    top = rules.num_vars
    stats = {"solver": solver, "encoding": encoding, "amo": rules.amo, "clues": "units",
             "variables": top, "batch": len(puzzles)}
    outcomes, claimed, lemmas = [], [], []
    with new_pysat_solver(solver, with_proof=True) as sat:
        sat.append_formula(formula)
        for index, puzzle in enumerate(puzzles):
            selector = top + 1 + index
            guarded = [[-selector, clue] for clue in _clue_literals(puzzle)]
            sat.append_formula(guarded)
            formula += guarded
            outcome, block = _solve_one(sat, puzzle, selector, solver=solver, unique=unique,
                                        stats=stats, time_limit=time_limit)
            if block is not None:
                formula.append(block)
            if outcome.status == Status.NO_SOLUTION or outcome.unique is True:
                claimed.append(index)
            outcomes.append(outcome)
        if claimed:
            lemmas = list(sat.get_proof() or [])
    if claimed:
        _check_batch(outcomes, puzzles, claimed, formula, lemmas, top=top, name=name,
                     certify=certify, time_limit=time_limit,
                     options=dict(solver=solver, encoding=encoding, amo=amo, unique=unique))
    seconds = (time.perf_counter() - start) / len(puzzles)
    for outcome in outcomes:
        outcome.stats.setdefault("seconds", seconds)
    return outcomes


def _clue_literals(puzzle: Grid) -> list[int]:
    n = puzzle.size
    rows, cols = np.nonzero(puzzle.values)
    return [int(r) * n * n + int(c) * n + int(puzzle.values[r, c]) for r, c in zip(rows, cols)]


def _solve_one(sat, puzzle: Grid, selector: int, *, solver: str, unique: bool, stats: dict,
               time_limit: float | None) -> tuple[Outcome, list[int] | None]:
    """Puzzle ``selector`` on the shared solver: its outcome (claims not yet certified) and
    the guarded blocking clause added for its uniqueness call, if any."""
    deadline = Deadline(time_limit)
    first = solve_within(sat, deadline, [selector])
    if first is None:
        return Outcome(Status.UNKNOWN, stats=stats | {"reason": "time limit"}), None
    if not first:
        return Outcome(Status.NO_SOLUTION, stats=dict(stats)), None
    rule = SudokuToCnf.build(puzzle, encoding=stats["encoding"], amo=stats["amo"],
                             clue_mode="units")   # lazy: decodes only
    cnf = rule.target
    grid = verified(rule, _decoded(cnf, sat), f"SAT ({solver})")
    outcome = Outcome(Status.SOLVED, grid, stats=dict(stats))
    if not unique:
        return outcome, None
    block = [-selector] + blocking_clause(puzzle, grid)
    sat.add_clause(block)
    again = solve_within(sat, deadline, [selector])
    if again is None:
        outcome.stats["reason"] = "time limit (uniqueness)"
    elif again:
        outcome.unique = False
        outcome.second = verified(rule, _decoded(cnf, sat), f"SAT ({solver})")
    else:
        outcome.unique = True
    return outcome, block


def _decoded(cnf, sat) -> Grid:
    """The grid of the solver's model (its selector variables left out)."""
    return grid_from_model(cnf, [lit for lit in sat.get_model() if abs(lit) <= cnf.num_vars])


def _check_batch(outcomes: list[Outcome], puzzles: Sequence[Grid], claimed: list[int],
                 formula: list[list[int]], lemmas: list[str], *, top: int, name: str,
                 certify: CertifyOptions, time_limit: float | None, options: dict) -> None:
    """Check the batch's proof and put the verdict in each claimed outcome; a rejected
    batch proof is redone one puzzle at a time."""
    selectors = [top + 1 + index for index in claimed]
    formula = formula + [selectors]
    # --time-limit is per puzzle: the batch's check may take it for each puzzle
    limit = None if time_limit is None else time_limit * len(puzzles)
    try:
        check = check_refutation(
            certify, num_vars=top + len(puzzles), clause_blocks=[formula],
            comments=[f"batch of {len(puzzles)} puzzles behind selectors {top + 1}.."
                      f"{top + len(puzzles)}"],
            proof=lemmas + [f"{-a} 0" for a in selectors], plain=True,
            claim=f"the proof of a batch of {len(claimed)} claims", name=name, time_limit=limit)
    except ProofRejected:
        check = None
    for index in claimed:
        if check is None:
            outcomes[index] = certified_solve(puzzles[index], certify=certify,
                                              name=f"{name}-{index + 1}",
                                              time_limit=time_limit, **options)
        else:
            with_check(outcomes[index], check)
