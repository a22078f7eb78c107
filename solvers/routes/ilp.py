"""Solving the Sudoku ILP with outside and in-process ILP solvers, and reading their answers.

Solvers (``ilp_solver=``, :class:`IlpSolver`):

* ``cbc``, ``glpsol`` — the CBC and GLPK command lines on the fixed MPS file
  (:mod:`solvers.tools.ilp_programs`: which binary, the argument lists, their own time
  limits).
* ``scip`` — SCIP in process through ``pyscipopt`` (an optional extra): it reads the same
  fixed MPS file, its own time limit (``limits/time``) is the only one (C code cannot be
  killed from inside the process), and its best solution comes back through its ``.sol``
  file.
* ``highs`` — HiGHS in process through ``highspy`` (an optional extra), on one model of the
  blank grid kept by the process between puzzles (:class:`KeptHighsModel`): a puzzle's clues
  only fix column bounds, which are restored afterwards.
* ``ilp_cmd`` — any other program, by a command template
  (:func:`~solvers.tools.ilp_programs.ilp_template`): ``{input}`` is the model file (fixed
  MPS; ``{input.lp}`` / ``{input.mps}`` / ``{input.free-mps}`` ask for that form),
  ``{output}`` a file for the answer (without it, the answer is read from the program's
  stdout).

Every outside program runs through :mod:`solvers.tools.ilp_programs` (its own process group,
killed at our time limit; the answer read by content by
:func:`solvers.formats.lp_solution.parse_lp_solution`, the one reader of solution files, also
used by ``decode ilp``); one still running at our limit is "unknown".

Answers: an optimal (here: any feasible) solution is decoded and verified against the puzzle;
"infeasible" is a proof of no solution; a time limit or any other status is "unknown", never
"no solution". Uniqueness: after the first solution one no-good cut excludes it
(:meth:`reductions.encodings.ilp.SudokuIlp.add_no_good`; on the kept HiGHS model a row removed
afterwards, :meth:`KeptHighsModel.exclude`) and the model is solved again — infeasible
means unique, a solution is a second, distinct, verified grid and is reported.

The model files (LP, fixed MPS, free MPS, each recording its puzzle) are written and read
back by :mod:`solvers.formats.ilp_model`.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from typing import Callable

import numpy as np

from reductions.errors import UserError
from reductions.reduction import SolvesPuzzle
from reductions.encodings.exact_cover import base_option_items, candidate_mask
from reductions.sudoku.grid import Grid, Shape
from reductions.encodings.ilp import (
    INTEGRALITY_TOLERANCE,
    IlpError,
    SudokuIlp,
    SudokuToIlp,
    model_size,
)

from ..runtime.budget import Deadline
from ..runtime.kept_models import KeptModels
from ..runtime.processes import ExternalSolverError, find_program
from ..runtime.scratch import temporary_directory
from ..formats.ilp_model import (FILE_NAMES, IlpAnswer, answer_from_solution, column_names,
                                 write_model)
from ..formats.lp_solution import read_lp_solution
from ..formats.mps import ModelFormat
from ..outcome import Outcome, SolverUnavailable, Status, verified
from .options import ILP, IlpSolver

DEFAULTS = ILP.defaults


SOLVERS = tuple(IlpSolver)


# ----------------------------------------------------------------------------- in process

_HIGHS_READY = False


def _highs_ready() -> None:
    """Import highspy and create the first ``Highs`` object with stdout muted: HiGHS prints
    its banner from C on the first construction, which would corrupt our output."""
    global _HIGHS_READY
    if _HIGHS_READY:
        return
    try:
        import highspy
    except ImportError:
        raise SolverUnavailable("HiGHS needs the 'highspy' package (pip install highspy), "
                                "or use --ilp-solver cbc") from None
    with stdout_muted():
        highspy.Highs()
    _HIGHS_READY = True


@contextlib.contextmanager
def stdout_muted():
    """File descriptor 1 on /dev/null for the block: in-process solvers print from C
    (HiGHS's banner, SCIP's 'pressed CTRL-C' line), which would corrupt our output."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 1)
            yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def _pyscipopt():
    try:
        import pyscipopt
    except ImportError:
        raise SolverUnavailable("SCIP needs the 'pyscipopt' package (pip install pyscipopt), "
                                "or use --ilp-solver cbc") from None
    return pyscipopt


def run_solver(rule: SudokuToIlp, solver: str, time_limit: float | None = None,
               cbc_path: str | None = None, ilp_cmd: str | None = None) -> IlpAnswer:
    """Solve the rule's model once (with the ``ilp_cmd`` template if given, else ``solver``: cbc,
    glpsol or scip; HiGHS solves on the kept model, :func:`kept_highs_model`) and decode the
    values."""
    if ilp_cmd is None and solver not in (IlpSolver.CBC, IlpSolver.GLPSOL, IlpSolver.SCIP):
        raise IlpError(f"run_solver takes cbc, glpsol or scip, not {solver!r}")
    if time_limit is not None and time_limit <= 0:
        return IlpAnswer(Status.UNKNOWN, None, "time limit reached")
    # Outside programs are loaded when one runs, not at start-up.
    from ..tools.ilp_programs import find_cbc, find_glpsol, run_cbc, run_glpsol, run_ilp_command
    if ilp_cmd is not None:
        return run_ilp_command(rule, ilp_cmd, time_limit)
    if solver == IlpSolver.CBC:
        return run_cbc(rule, find_cbc(cbc_path), time_limit)
    if solver == IlpSolver.GLPSOL:
        return run_glpsol(rule, find_glpsol(), time_limit)
    return run_scip(rule, time_limit)


def run_scip(rule: SudokuToIlp, time_limit: float | None = None) -> IlpAnswer:
    """Solve the rule's model in process with SCIP (``pyscipopt``) from the fixed MPS file;
    SCIP's Ctrl-C handler stops the search, which then raises :class:`KeyboardInterrupt`
    here."""
    model = rule.target
    scip_module = _pyscipopt()
    deadline = Deadline(time_limit)
    with temporary_directory("sudoku-bridge-scip-") as tmp:
        model_path = tmp / FILE_NAMES[ModelFormat.MPS]
        write_model(model_path, model, ModelFormat.MPS)
        scip = scip_module.Model()
        scip.hideOutput()
        try:
            scip.readProblem(str(model_path))
            remaining = deadline.remaining()
            if remaining is not None:
                if remaining <= 0:
                    return IlpAnswer(Status.UNKNOWN, None, "time limit reached")
                scip.setParam("limits/time", remaining)
            with stdout_muted():
                scip.optimize()
            status = scip.getStatus()
            if status == "userinterrupt":
                raise KeyboardInterrupt
            if status == "infeasible":
                return IlpAnswer(Status.NO_SOLUTION, None, status)
            if scip.getNSols() == 0:
                reason = "time limit reached" if status == "timelimit" else \
                    f"solver status {status!r}"
                return IlpAnswer(Status.UNKNOWN, None, reason)
            solution_path = tmp / "scip.sol"
            scip.writeBestSol(str(solution_path))
        finally:
            scip.freeProb()
        solution = read_lp_solution(solution_path, num_columns=model.num_variables)
        answer = answer_from_solution(rule, solution, "SCIP's solution",
                                      column_names(model, model_path))
    answer.detail = status
    return answer


def solve_puzzle(puzzle: Grid, *, ilp_solver: str | None = None, ilp_cmd: str | None = None,
                 cbc_path: str | None = None, clues: str = DEFAULTS["clues"],
                 unique: bool = False,
                 time_limit: float | None = None) -> Outcome:
    """Solve through the ILP with ``ilp_solver`` (default ``cbc``) or the outside program of
    the ``ilp_cmd`` template (:func:`~solvers.tools.ilp_programs.ilp_template`); with ``unique``, one no-good cut and a
    second solve. HiGHS solves on this process's kept model (:func:`kept_highs_model`), the
    others on the puzzle's own model."""
    if ilp_cmd is not None and ilp_solver is not None:
        raise UserError("give a solver (--ilp-solver, or a route that names one, e.g. "
                        "--via ilp) or an --ilp-cmd, not both")
    solver = ilp_solver or DEFAULTS["ilp_solver"]
    deadline = Deadline(time_limit)
    # A missing program is an error at once, whatever the time limit (the outside programs'
    # module is loaded only now, not at start-up).
    from ..tools.ilp_programs import find_cbc, find_glpsol, ilp_template
    if ilp_cmd is not None:
        find_program(ilp_template(ilp_cmd).program, what="ILP solver")
    elif solver == IlpSolver.CBC:
        cbc_path = find_cbc(cbc_path)
    elif solver == IlpSolver.GLPSOL:
        find_glpsol()
    elif solver == IlpSolver.SCIP:
        _pyscipopt()
    elif solver == IlpSolver.HIGHS:
        _highs_ready()
    elif solver not in SOLVERS:
        raise IlpError(f"unknown ILP solver {solver!r}; choose one of {', '.join(SOLVERS)}")
    name = ilp_cmd if ilp_cmd is not None else str(solver)
    start = time.perf_counter()
    if ilp_cmd is None and solver == IlpSolver.HIGHS:
        variables, constraints = model_size(puzzle, clues)
        stats = {"solver": name, "variables": variables, "constraints": constraints,
                 "clues": clues, "model": "kept"}
        with kept_highs_model(puzzle, clues) as kept:
            # No rule is built (that is the point of the kept model): the closed loop alone.
            return _solve_and_check(SolvesPuzzle(puzzle), name=name, unique=unique, stats=stats,
                                    start=start, run=lambda: kept.run(deadline.remaining()),
                                    exclude=kept.exclude)
    rule = SudokuToIlp.build(puzzle, clues=clues)
    model = rule.target
    stats = {"solver": name, "variables": model.num_variables,
             "constraints": model.num_constraints, "clues": clues}
    return _solve_and_check(rule, name=name, unique=unique, stats=stats, start=start,
                            run=lambda: run_solver(rule, solver, deadline.remaining(),
                                                   cbc_path, ilp_cmd),
                            exclude=model.add_no_good)


def _solve_and_check(rule: SolvesPuzzle, *, name: str, unique: bool, stats: dict, start: float,
                     run: Callable[[], IlpAnswer], exclude: Callable[[Grid], object]
                     ) -> Outcome:
    """The outcome of solving with ``run`` (its answer decoded by the rule,
    :func:`~solvers.formats.ilp_model.answer_from_solution`), its grid verified by ``rule``'s
    closed loop; with ``unique``, ``exclude``
    cuts that grid off and ``run`` again looks for a second one (none: unique)."""
    first = run()
    if first.status != Status.SOLVED:
        stats["seconds"] = round(time.perf_counter() - start, 6)
        if first.status == Status.UNKNOWN:
            stats["reason"] = first.detail
        return Outcome(first.status, stats=stats)
    grid = verified(rule, first.grid, f"ILP ({name})")
    if not unique:
        stats["seconds"] = round(time.perf_counter() - start, 6)
        return Outcome(Status.SOLVED, grid, None, None, stats)
    exclude(grid)
    second = run()
    stats["seconds"] = round(time.perf_counter() - start, 6)
    if second.status == Status.NO_SOLUTION:
        return Outcome(Status.SOLVED, grid, True, None, stats)
    if second.status == Status.UNKNOWN:
        return Outcome(Status.SOLVED, grid, None, None, {**stats, "reason": second.detail})
    other = verified(rule, second.grid, f"ILP ({name})")
    if other == grid:
        raise ExternalSolverError(f"{name} returned the excluded solution again after the "
                                  f"no-good cut")
    return Outcome(Status.SOLVED, grid, False, other, stats)


# ----------------------------------------------------------------------------- kept HiGHS model

class KeptHighsModel:
    """One in-process HiGHS model of the blank grid's ILP, kept between puzzles: N³ binary
    columns (column k is option k, digit k mod N + 1 in cell k div N, as in
    :mod:`reductions.encodings.exact_cover`) and the 4N² equalities (cell, row, column, block).

    A puzzle only changes column bounds (:meth:`fix`): its clues' columns are fixed to 1
    (the ``equalities`` clue mode, as bounds) and, with ``eliminate``, the columns its clues
    rule out are fixed to 0 — the same solutions as the puzzle's own model
    (:func:`reductions.encodings.ilp.sudoku_ilp`), and HiGHS's presolve drops the fixed columns. The
    uniqueness cut is one row added after the base rows (:meth:`exclude`). :meth:`restore`
    puts every bound back to [0, 1] and removes the added rows, so the next puzzle starts
    from the blank model. Building the PuLP model of every puzzle took several times as long
    as a solve on this kept model on 17-clue 9×9 puzzles (benchmarks/results/corpus.md).
    """

    def __init__(self, shape: Shape) -> None:
        _highs_ready()
        import highspy
        self.shape = shape
        n = shape.size
        self.columns = n ** 3
        self.rows = 4 * n * n
        items = base_option_items(shape)                    # option -> its 4 equalities
        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = self.columns, self.rows
        lp.col_cost_ = np.zeros(self.columns)
        lp.col_lower_ = np.zeros(self.columns)
        lp.col_upper_ = np.ones(self.columns)
        lp.row_lower_ = lp.row_upper_ = np.ones(self.rows)
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_ = np.arange(0, 4 * self.columns + 1, 4, dtype=np.int32)
        lp.a_matrix_.index_ = items.ravel().astype(np.int32)
        lp.a_matrix_.value_ = np.ones(4 * self.columns)
        lp.integrality_ = [highspy.HighsVarType.kInteger] * self.columns
        self._error = highspy.HighsStatus.kError
        self.highs = highspy.Highs()
        self.highs.setOptionValue("output_flag", False)
        self._check(self.highs.passModel(lp), "passModel")
        self._all = np.arange(self.columns, dtype=np.int32)
        self._statuses = {highspy.HighsModelStatus.kOptimal: Status.SOLVED,
                          highspy.HighsModelStatus.kInfeasible: Status.NO_SOLUTION,
                          # every column lies in [0, 1]: the model cannot be unbounded
                          highspy.HighsModelStatus.kUnboundedOrInfeasible: Status.NO_SOLUTION}
        self._time_limit = highspy.HighsModelStatus.kTimeLimit
        self._infinity = highspy.kHighsInf

    def _check(self, status, what: str) -> None:
        if status == self._error:
            raise ExternalSolverError(f"highs: {what} failed on the kept model")

    def fix(self, puzzle: Grid, clues: str) -> None:
        """Fix the columns the puzzle's clues decide (see the class docstring)."""
        if puzzle.shape != self.shape:
            raise IlpError(f"a {puzzle.shape} puzzle given to the kept {self.shape} model")
        n = puzzle.size
        flat = puzzle.values.ravel().astype(np.int64)
        cells = np.flatnonzero(flat)
        clue_columns = cells * n + flat[cells] - 1
        lower = np.zeros(self.columns)
        lower[clue_columns] = 1
        if clues == "eliminate":
            upper = candidate_mask(puzzle).ravel().astype(float)
            upper[clue_columns] = 1
        else:
            upper = np.ones(self.columns)
        self._check(self.highs.changeColsBounds(self.columns, self._all, lower, upper),
                    "changeColsBounds")

    def exclude(self, grid: Grid) -> None:
        """Add the no-good row: the N² columns of ``grid``'s digits sum to at most N² − 1."""
        n = grid.size
        chosen = (np.arange(n * n) * n + grid.values.ravel().astype(np.int64) - 1)
        self._check(self.highs.addRow(-self._infinity, n * n - 1, n * n,
                                      chosen.astype(np.int32), np.ones(n * n)), "addRow")

    def close(self) -> None:
        """Free HiGHS's model and solver data (the kept model is dropped)."""
        self.highs.clear()

    def restore(self) -> None:
        """Back to the blank model: bounds [0, 1], the added rows removed."""
        extra = self.highs.getNumRow() - self.rows
        if extra:
            self._check(self.highs.deleteRows(extra, np.arange(self.rows, self.rows + extra,
                                                               dtype=np.int32)), "deleteRows")
        self._check(self.highs.changeColsBounds(self.columns, self._all,
                                                np.zeros(self.columns), np.ones(self.columns)),
                    "changeColsBounds")

    def run(self, time_limit: float | None) -> IlpAnswer:
        """Solve with the bounds fixed now; the grid decoded, not yet verified."""
        if time_limit is not None and time_limit <= 0:
            return IlpAnswer(Status.UNKNOWN, None, "time limit reached")
        self.highs.setOptionValue("time_limit",
                                  self._infinity if time_limit is None else float(time_limit))
        self._check(self.highs.run(), "run")
        model_status = self.highs.getModelStatus()
        detail = self.highs.modelStatusToString(model_status)
        status = self._statuses.get(model_status)
        if status is None:
            reason = "time limit reached" if model_status == self._time_limit else \
                f"solver status {detail!r}"
            return IlpAnswer(Status.UNKNOWN, None, reason)
        if status != Status.SOLVED:
            return IlpAnswer(status, None, detail)
        return IlpAnswer(Status.SOLVED, self._grid(self.highs.getSolution().col_value), detail)

    def _grid(self, values) -> Grid:
        """The grid of a 0/1 column vector (one digit per cell, else an error)."""
        n = self.shape.size
        x = np.asarray(values, dtype=float)
        ones = np.abs(x - 1) <= INTEGRALITY_TOLERANCE
        if not np.all(ones | (np.abs(x) <= INTEGRALITY_TOLERANCE)):
            raise ExternalSolverError("highs returned a value that is neither 0 nor 1")
        per_cell = ones.reshape(n * n, n)
        if not np.all(per_cell.sum(axis=1) == 1):
            raise ExternalSolverError("highs returned a cell with no digit or several")
        digits = per_cell.argmax(axis=1) + 1
        return Grid(digits.reshape(n, n).astype(np.int16), self.shape)


_KEPT_HIGHS: KeptModels[KeptHighsModel] = KeptModels(
    "highs blank-grid model", build=KeptHighsModel, close=KeptHighsModel.close,
    renew_after=None)
"""This process's kept HiGHS models, by shape. Never renewed: :meth:`KeptHighsModel.restore`
puts each back to the blank model after every puzzle, so nothing piles up in it."""


@contextlib.contextmanager
def kept_highs_model(puzzle: Grid, clues: str):
    """This process's :class:`KeptHighsModel` for the puzzle's shape (built on first use),
    with the puzzle's clues fixed for the block and lent to it alone
    (:meth:`~solvers.runtime.kept_models.KeptModels.lent`). Afterwards it is restored to the
    blank model and kept; a model whose restoring failed is dropped (the next puzzle builds
    a new one), so no puzzle can see another's bounds or cuts."""
    with _KEPT_HIGHS.lent(puzzle.shape, reset=KeptHighsModel.restore) as model:
        model.fix(puzzle, clues)
        yield model

