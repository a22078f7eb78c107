"""Certified answers for one Sudoku puzzle: every negative claim backed by a checked proof.

The certified formula is the plain encoding with the clues as unit clauses — what
``emit cnf`` writes by default — so that a certificate rests on nothing of ours but the
encoding (a formula simplified first, by clue elimination, would certify the simplification).

* "no solution": the formula is UNSAT; the solver's DRAT proof is checked against it.
* "unique": the first grid is verified against the puzzle, then the formula plus the clause
  blocking that grid (*a clause*, not an assumption: some free cell differs) is UNSAT, by a
  checked proof. With the first grid verified, "no other grid" is "exactly one".
* "not unique" and "solved" need no certificate: the grids are checked against the puzzle.

The proof is checked by :func:`solvers.certify.refutation.check_refutation` (written to a
temporary directory, judged, deleted or kept as ``NAME.cnf`` and ``NAME.drat``).

The answer's stats carry ``certified`` (the checker's name, or None when the check did not
finish: the answer is then ``unknown``), ``proof_bytes`` and ``check_seconds``.
"""

from __future__ import annotations

import time

import numpy as np

from reductions.encodings.cnf import DEFAULT_AMO, DEFAULT_ENCODING, SudokuToCnf
from reductions.sudoku.grid import Grid

from ..outcome import Outcome, Status, verified
from ..runtime.budget import Deadline
from .checkers import Check
from .proofs import proof_solver, solve_with_proof
from .refutation import CertifyOptions, check_refutation

__all__ = ["blocking_clause", "certified_solve", "with_check", "withdraw_negative_claim"]


def certified_solve(puzzle: Grid, *, certify: CertifyOptions, name: str = "puzzle",
                    solver: str | None = None, encoding: str = DEFAULT_ENCODING,
                    amo: str = DEFAULT_AMO,
                    unique: bool = False, time_limit: float | None = None) -> Outcome:
    """Solve ``puzzle`` on a pysat ``solver`` that logs proofs (default CaDiCaL 1.9.5),
    certifying "no solution" and "unique" (module docstring). ``name`` names its kept
    proof files. ``time_limit`` bounds the solving and, separately, each check."""
    solver = proof_solver(solver or "cadical195")
    start = time.perf_counter()
    rule = SudokuToCnf.build(puzzle, encoding=encoding, amo=amo, clue_mode="units")
    cnf = rule.target
    clauses = list(cnf.iter_clauses())
    stats = {"solver": solver, "encoding": encoding, "amo": cnf.amo, "clues": "units",
             "variables": cnf.num_vars, "clauses": len(clauses)}
    deadline = Deadline(time_limit)
    first = solve_with_proof(clauses, solver=solver, deadline=deadline)
    if first.satisfiable is None:
        return _finish(Outcome(Status.UNKNOWN, stats=stats | {"reason": "time limit"}), start)
    if not first.satisfiable:
        outcome = Outcome(Status.NO_SOLUTION, stats=stats)
        claim = f"{solver}'s proof that {name} has no solution"
        return _finish(_certified(outcome, cnf, clauses, first.proof, claim=claim, name=name,
                                  certify=certify, time_limit=time_limit), start)
    grid = verified(rule, rule.decode(first.model), f"SAT ({solver})")
    outcome = Outcome(Status.SOLVED, grid, stats=stats)
    if not unique:
        return _finish(outcome, start)
    blocked = clauses + [blocking_clause(puzzle, grid)]
    second = solve_with_proof(blocked, solver=solver, deadline=deadline)
    if second.satisfiable is None:
        outcome.stats["reason"] = "time limit (uniqueness)"
    elif second.satisfiable:
        outcome.unique = False
        outcome.second = verified(rule, rule.decode(second.model), f"SAT ({solver})")
    else:
        outcome.unique = True
        claim = f"{solver}'s proof that {name} has no solution but its first grid"
        outcome = _certified(outcome, cnf, blocked, second.proof, claim=claim, name=name,
                             certify=certify, time_limit=time_limit)
    return _finish(outcome, start)


def blocking_clause(puzzle: Grid, grid: Grid) -> list[int]:
    """The clause "some free cell of ``puzzle`` holds another digit than in ``grid``", in
    the plain encoding's variables (cell r, c holding d is r·N² + c·N + d)."""
    n = grid.size
    free = np.argwhere(puzzle.values == 0)
    return [-(int(r) * n * n + int(c) * n + int(grid.values[r, c])) for r, c in free]


def _certified(outcome: Outcome, cnf, clauses: list[list[int]], proof: list[str], *,
               claim: str, name: str, certify: CertifyOptions,
               time_limit: float | None) -> Outcome:
    """``outcome`` (whose negative claim is "``clauses`` are unsatisfiable") with the check
    of ``proof`` in its stats; a check that did not finish makes it ``unknown``."""
    check = check_refutation(certify, num_vars=cnf.num_vars, clause_blocks=[clauses],
                             comments=cnf.metadata(), proof=proof, claim=claim, name=name,
                             time_limit=time_limit)
    return with_check(outcome, check)


def with_check(outcome: Outcome, check: Check) -> Outcome:
    """``outcome`` with ``check`` in its stats (``certified``, ``proof_bytes``,
    ``check_seconds``); a check that did not finish withdraws the negative claim: "no
    solution" becomes ``unknown``, "unique" unknown (None)."""
    outcome.stats |= {"certified": check.checker if check.certified else None,
                      "proof_bytes": check.proof_bytes,
                      "check_seconds": check.seconds}
    if not check.certified:
        outcome.stats["reason"] = f"not certified: {check.unfinished}"
        withdraw_negative_claim(outcome)
    return outcome


def withdraw_negative_claim(outcome: Outcome) -> None:
    """A negative claim whose certificate did not finish is no claim: "no solution"
    becomes ``unknown``, "unique" unknown (None)."""
    if outcome.status == Status.NO_SOLUTION:
        outcome.status = Status.UNKNOWN
    else:
        outcome.unique = None


def _finish(outcome: Outcome, start: float) -> Outcome:
    outcome.stats["seconds"] = time.perf_counter() - start
    return outcome
