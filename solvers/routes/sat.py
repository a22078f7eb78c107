"""Solving Sudoku through CNF, one puzzle at a time: pysat solvers in process, or any DIMACS
command-line solver.

* :func:`solve_puzzle` — one puzzle, any encoding, any pysat solver.
* :func:`solve_with_command` — write the CNF to a temporary file, run an external solver
  (``cadical``, ``minisat``, ``kissat``, ... or a full command line) without a shell, under a
  time limit, and parse its answer (:mod:`solvers.tools.dimacs_programs`): SAT-competition
  ``s``/``v`` lines and exit codes 10/20, or MiniSat's result file.
* :func:`instance_stats`, :func:`answer_stats` — how every sat route (these, and the kept
  solvers of :mod:`solvers.routes.sat_incremental` and :mod:`solvers.routes.sat_batch`)
  describes an answer.

Every model is decoded by the rule (:class:`~reductions.encodings.cnf.SudokuToCnf`'s ``decode``) and
its grid checked by the rule's closed loop (``solvers.outcome.verified``). A time limit
gives ``unknown``, never ``no solution``: pysat's CaDiCaL cannot be interrupted, so the limit
is enforced between rounds of a conflict budget (``conf_budget`` + ``solve_limited``).
"""

from __future__ import annotations

import time

import numpy as np

from reductions.encodings.cnf import SudokuCnf, SudokuToCnf
from reductions.errors import UserError
from reductions.sudoku.grid import Grid

from ..formats.dimacs import SatAnswer, write_cnf
from ..runtime.budget import Deadline, solve_within
from ..runtime.processes import find_program
from ..runtime.pysat_solvers import DEFAULT_SOLVER, new_pysat_solver
from ..runtime.scratch import temporary_directory
from ..outcome import Outcome, Status, verified
from .options import CNF_CLUES, CNF_COMMAND_CLUES, DEFAULT_AMO, DEFAULT_ENCODING


def instance_stats(*, solver: str, encoding: str, amo: str, clues: str, variables: int,
                   clauses: int) -> dict:
    """What an answer of the sat routes says of its instance (``stats``): the solver, the
    encoding, how the clues entered (``units``, ``eliminate``, or ``assumptions`` on a kept
    solver) and the sizes the README promises — the same keys in the same order whichever
    path answered (one puzzle, or a file on the batch path)."""
    return {"solver": solver, "encoding": encoding, "amo": amo, "clues": clues,
            "variables": variables, "clauses": clauses}


def answer_stats(instance: dict, status: str, seconds: float) -> dict:
    """An answer's ``stats``: its instance's (:func:`instance_stats`), the seconds it took,
    and for ``unknown`` the reason (the time limit: nothing else stops these solvers)."""
    stats = {**instance, "seconds": seconds}
    if status == Status.UNKNOWN:
        stats["reason"] = "time limit"
    return stats



# ----------------------------------------------------------------------------- one puzzle

def solve_puzzle(puzzle: Grid, *, solver: str | None = None, solver_cmd: str | None = None,
                 encoding: str = DEFAULT_ENCODING, amo: str = DEFAULT_AMO,
                 clues: str | None = None,
                 unique: bool = False, time_limit: float | None = None) -> Outcome:
    """Build the puzzle's CNF in the given encoding and solve it: with a pysat ``solver``
    (default CaDiCaL 1.9.5; clues as units unless ``clues="eliminate"``), or with an outside
    DIMACS program ``solver_cmd`` (:func:`solve_with_command`; clues eliminated by default)."""
    if solver_cmd is not None:
        if solver is not None:
            raise UserError("give a pysat --solver or a --solver-cmd, not both")
        return solve_with_command(puzzle, solver_cmd, encoding=encoding, amo=amo,
                                  clues=clues or CNF_COMMAND_CLUES, unique=unique,
                                  time_limit=time_limit)
    solver = solver or DEFAULT_SOLVER
    clues = clues or CNF_CLUES
    start = time.perf_counter()
    rule = SudokuToCnf.build(puzzle, encoding=encoding, amo=amo, clue_mode=clues)
    cnf = rule.target
    stats = instance_stats(solver=solver, encoding=encoding, amo=cnf.amo, clues=clues,
                           variables=cnf.num_vars, clauses=cnf.num_clauses)
    if cnf.contradiction:
        return Outcome(Status.NO_SOLUTION, stats=stats | {"reason": "clue elimination left an "
                                                             "empty clause"})
    deadline = Deadline(time_limit)
    sat = new_pysat_solver(solver)
    try:
        for block in cnf.clause_blocks():
            sat.append_formula(block.tolist() if isinstance(block, np.ndarray) else block)
        result = solve_within(sat, deadline)
        if not result:
            status = Status.UNKNOWN if result is None else Status.NO_SOLUTION
            return Outcome(status, stats=answer_stats(stats, status,
                                                      time.perf_counter() - start))
        grid = verified(rule, rule.decode(sat.get_model()), f"SAT ({solver})")
        outcome = Outcome(Status.SOLVED, grid, stats=stats)
        if unique:
            blocking = [-lit for lit in _grid_literals(cnf, grid)]
            sat.add_clause(blocking)
            again = solve_within(sat, deadline)
            if again is None:
                outcome.unique = None
            elif again:
                outcome.unique = False
                outcome.second = verified(rule, rule.decode(sat.get_model()),
                                          f"SAT ({solver})")
            else:
                outcome.unique = True
        outcome.stats = answer_stats(stats, outcome.status, time.perf_counter() - start)
        return outcome
    finally:
        sat.delete()


def _grid_literals(cnf: SudokuCnf, grid: Grid) -> list[int]:
    """The true grid literals of ``grid`` that are variables of the formula (free cells)."""
    n = grid.size
    original = [r * n * n + c * n + int(grid.values[r, c])
                for r in range(n) for c in range(n) if cnf.puzzle.values[r, c] == 0]
    if cnf.clue_mode != "eliminate":
        return original
    new_id = {int(v): k for k, v in enumerate(cnf.var_map.tolist()) if k}
    return [new_id[v] for v in original if v in new_id]


# ----------------------------------------------------------------------------- external

def solve_with_command(puzzle: Grid, solver_cmd: str, *, encoding: str = DEFAULT_ENCODING,
                       amo: str = DEFAULT_AMO, clues: str = CNF_COMMAND_CLUES,
                       unique: bool = False,
                       time_limit: float | None = None) -> Outcome:
    """Solve through an external DIMACS solver: write, run, parse, decode, verify. The time
    limit covers writing the CNF and both runs.

    Uniqueness: a second run on the formula plus a clause blocking the first solution.
    """
    # Outside programs are loaded when one runs, not at start-up.
    from ..tools.dimacs_programs import dimacs_template, run_dimacs_solver
    find_program(dimacs_template(solver_cmd).program, what="SAT solver")   # missing: at once
    deadline = Deadline(time_limit)
    rule = SudokuToCnf.build(puzzle, encoding=encoding, amo=amo, clue_mode=clues)
    cnf = rule.target
    stats = instance_stats(solver=solver_cmd, encoding=encoding, amo=cnf.amo, clues=clues,
                           variables=cnf.num_vars, clauses=cnf.num_clauses)
    with temporary_directory("sudoku-bridge-sat-") as work:
        path = work / "puzzle.cnf"
        write_cnf(path, cnf.num_vars, cnf.clause_blocks(), cnf.metadata())
        status, model, run_stats = run_dimacs_solver(solver_cmd, path, work=work,
                                                     num_vars=cnf.num_vars,
                                                     time_limit=deadline.remaining())
        stats |= run_stats
        if status == SatAnswer.UNKNOWN:
            return Outcome(Status.UNKNOWN, stats=stats)
        if status == SatAnswer.UNSAT:
            return Outcome(Status.NO_SOLUTION, stats=stats)
        grid = verified(rule, rule.decode(model), f"SAT ({solver_cmd})")
        outcome = Outcome(Status.SOLVED, grid, stats=stats)
        if unique:
            blocking = [[-lit for lit in _grid_literals(cnf, grid)]]
            write_cnf(path, cnf.num_vars, [*cnf.clause_blocks(), blocking], cnf.metadata())
            status2, model2, _ = run_dimacs_solver(solver_cmd, path, work=work,
                                                   num_vars=cnf.num_vars,
                                                   time_limit=deadline.remaining())
            if status2 == SatAnswer.SAT:
                outcome.unique = False
                outcome.second = verified(rule, rule.decode(model2),
                                          f"SAT ({solver_cmd})")
            elif status2 == SatAnswer.UNSAT:
                outcome.unique = True
        return outcome


