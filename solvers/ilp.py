"""Solving the Sudoku ILP with outside and in-process ILP solvers; LP/MPS export; answers.

Solvers (``ilp_solver=``, :class:`IlpSolver`):

* ``cbc`` — the CBC command line. The binary is, in order: the ``cbc_path`` given (a name on
  PATH or a path), a ``cbc`` on PATH (Debian's ``coinor-cbc``, or the one
  ``pip install pulp[cbc]`` brings), the binary bundled inside older PuLP wheels. It runs
  ``cbc MODEL.mps [-sec S -timeMode elapsed] -solve -solution ANSWER``.
* ``glpsol`` — GLPK's command line: ``glpsol --mps MODEL.mps [--tmlim S] -w ANSWER`` (the
  raw solution: ``s mip ... o|f`` solved, ``n`` no integer feasible solution, anything else
  unknown).
* ``scip`` — SCIP in process through ``pyscipopt`` (an optional extra): it reads the same
  fixed MPS file, its own time limit (``limits/time``) is the only one (C code cannot be
  killed from inside the process), and its best solution comes back through its ``.sol``
  file.
* ``highs`` — HiGHS in process through ``highspy`` (an optional extra), on one model of the
  blank grid kept by the process between puzzles (:class:`KeptHighsModel`): a puzzle's clues
  only fix column bounds, which are restored afterwards.
* ``ilp_cmd`` — any other program, by a command template (:func:`ilp_command`): ``{input}``
  is the model file (fixed MPS; ``{input.lp}`` / ``{input.mps}`` / ``{input.free-mps}`` ask
  for that form), ``{output}`` a file for the answer (without it, the answer is read from
  the program's stdout).

Every outside program runs through :func:`solvers.external.run_program` (its own process
group, killed at our time limit, on Ctrl-C and when we die); the model goes to a temporary
file written by :func:`write_model` and the answer is read by content by
:func:`solvers.formats.lp_solution.read_lp_solution`, the one reader of solution files (also
used by ``decode ilp``). With a time limit the program's own limit (CBC's ``-sec``,
glpsol's ``--tmlim``) is set a little below ours, so that it normally stops by itself and
writes what it has; one still running at our limit is killed and the answer is "unknown".

Answers: an optimal (here: any feasible) solution is decoded and verified against the puzzle;
"infeasible" is a proof of no solution; a time limit or any other status is "unknown", never
"no solution". Uniqueness: after the first solution one no-good cut excludes it
(:meth:`reductions.ilp.SudokuIlp.add_no_good`; on the kept HiGHS model a row removed
afterwards, :meth:`KeptHighsModel.exclude`) and the model is solved again — infeasible
means unique, a solution is a second, distinct, verified grid and is reported.

Files (:func:`write_model`): LP (PuLP's ``writeLP``, names kept), fixed MPS (short names
``C<k>`` / ``R<k>``, k in base 36, every line within 80 characters: what ``glpsol --mps``
needs) or free MPS (names kept), each with comment lines in front recording the shape, the
clue mode and the puzzle, so :func:`model_from_file` rebuilds the model from the file alone
and :func:`column_names` maps the file's column names back to the model's variables. Which
form a file is in is read from its content (:func:`solvers.formats.mps.sniff_model_format`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping

import numpy as np

from reductions.errors import UserError
from reductions.exact_cover import base_option_items, candidate_mask
from reductions.grid import Grid, Shape, check_solution
from reductions.ilp import (CLUE_MODES, INTEGRALITY_TOLERANCE, IlpError, SudokuIlp,
                            model_size, sudoku_ilp)
from reductions.reading import DEFAULT_MEMORY_LIMIT, read_lines
from reductions.sizes import ensure_fits, ilp_estimate

from .budget import Deadline
from .external import (ExternalSolverError, find_program, read_output_file, run_program,
                       split_command)
from .formats.atomic import atomic_write, scratch_path
from .formats.dlx import metadata_from_comments, puzzle_comment_lines, puzzle_from_metadata
from .formats.lp_solution import (LpSolution, SolutionFormatError, model_columns,
                                  parse_lp_solution, read_lp_solution, solution_limit)
from .formats.mps import (FIXED_WIDTH, SENSES, ModelFormat, MpsRow, model_file_limit,
                          short_name, sniff_model_format, write_mps)
from .outcome import Outcome, SolverUnavailable, Status, verified
from .route_options import IlpSolver

if TYPE_CHECKING:
    import pulp         # only in annotations (reductions.ilp imports it to build a model)


SOLVERS = tuple(IlpSolver)
MAGIC = "sudoku-bridge ILP"
SUFFIXES = {".lp": ModelFormat.LP, ".mps": ModelFormat.MPS}
"""The form a model file gets by its name when none is asked for."""
FILE_NAMES = {ModelFormat.LP: "model.lp", ModelFormat.MPS: "model.mps",
              ModelFormat.FREE_MPS: "model.free.mps"}
COMMENT_PREFIX = {ModelFormat.LP: "\\", ModelFormat.MPS: "*", ModelFormat.FREE_MPS: "*"}
INPUT_FIELDS = {"{input}": ModelFormat.MPS, "{input.mps}": ModelFormat.MPS,
                "{input.lp}": ModelFormat.LP, "{input.free-mps}": ModelFormat.FREE_MPS}
"""The model file fields of an ``ilp_cmd`` template and the form each asks for."""


# ----------------------------------------------------------------------------- programs

def bundled_cbc() -> str | None:
    """The CBC binary shipped inside the PuLP wheel, when there is one and it runs."""
    try:
        from pulp.apis import coin_api
    except ImportError:
        return None
    path = getattr(coin_api, "pulp_cbc_path", None)
    if path and os.path.isfile(path) and os.access(path, os.X_OK):
        return os.path.realpath(path)
    return None


def find_cbc(cbc_path: str | None = None) -> str:
    """Path of the CBC binary to run: ``cbc_path`` (a name on PATH or a path; a missing one
    is :class:`SolverUnavailable`), else ``cbc`` on PATH, else PuLP's bundled one, else
    :class:`SolverUnavailable` saying what to install."""
    found = find_program(cbc_path, ("cbc",), what="CBC") or bundled_cbc()
    if not found:
        raise SolverUnavailable("CBC not found: no 'cbc' on PATH and no binary bundled with "
                                "PuLP (install Debian's coinor-cbc or 'pip install pulp[cbc]', "
                                "or use --ilp-solver highs)")
    return found


def find_glpsol() -> str:
    found = find_program(None, ("glpsol",), what="glpsol")
    if not found:
        raise SolverUnavailable("glpsol not found on PATH (install Debian's glpk-utils)")
    return found


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


def own_limit(time_limit: float) -> float:
    """An outside solver's own time limit: below our hard limit, leaving time to read the
    model and write the answer (solvers check their clock only between steps)."""
    return max(0.5 * time_limit, time_limit - max(0.5, 0.1 * time_limit))


def cbc_command(binary: str, model_file: str, solution_file: str,
                time_limit: float | None = None) -> list[str]:
    """The CBC argument list: read the model, solve, write the solution file."""
    args = [binary, model_file]
    if time_limit is not None:
        args += ["-sec", f"{own_limit(time_limit):.2f}", "-timeMode", "elapsed"]
    return args + ["-solve", "-solution", solution_file]


def glpsol_command(binary: str, model_file: str, solution_file: str,
                   time_limit: float | None = None) -> list[str]:
    """The glpsol argument list: read the fixed MPS model, solve, write the raw solution
    (``--tmlim`` takes whole seconds; below one, only our own limit applies)."""
    args = [binary, "--mps", model_file]
    if time_limit is not None and own_limit(time_limit) >= 1:
        args += ["--tmlim", str(int(own_limit(time_limit)))]
    return args + ["-w", solution_file]


def ilp_command(ilp_cmd: str) -> tuple[list[str], ModelFormat]:
    """A command template split like a shell would (no shell runs it) and the model form it
    asks for: ``{input}`` / ``{input.mps}`` fixed MPS, ``{input.lp}`` LP,
    ``{input.free-mps}`` free MPS (one form per command; ``{input}`` is appended when the
    template has no model field); ``{output}`` is the answer file. The fields come back as
    ``{input}`` and ``{output}``."""
    parts = split_command(ilp_cmd, "--ilp-cmd",
                          "give a command line, e.g. 'glpsol --mps {input} -w {output}'")
    forms = {fmt for field, fmt in INPUT_FIELDS.items() for part in parts if field in part}
    if len(forms) > 1:
        raise UserError(f"--ilp-cmd {ilp_cmd!r}: one model form per command (found "
                        f"{', '.join(sorted(forms))})")
    if not forms:
        parts.append("{input}")
    for field in INPUT_FIELDS:
        parts = [part.replace(field, "{input}") for part in parts]
    return parts, forms.pop() if forms else ModelFormat.MPS


@dataclass
class IlpAnswer:
    """One solver run: ``status`` (solved / no solution / unknown), the decoded grid (not yet
    verified) and the solver's own status words."""

    status: str
    grid: Grid | None = None
    detail: str = ""


Command = Callable[[str, str, float | None], list[str]]
"""(model file, answer file, time left) → the argument list of a run."""


def run_solver(model: SudokuIlp, solver: str, time_limit: float | None = None,
               cbc_path: str | None = None, ilp_cmd: str | None = None) -> IlpAnswer:
    """Solve the model once (with the ``ilp_cmd`` template if given, else ``solver``: cbc,
    glpsol or scip; HiGHS solves on the kept model, :func:`kept_highs_model`) and decode the
    values."""
    if ilp_cmd is None and solver not in (IlpSolver.CBC, IlpSolver.GLPSOL, IlpSolver.SCIP):
        raise IlpError(f"run_solver takes cbc, glpsol or scip, not {solver!r}")
    if time_limit is not None and time_limit <= 0:
        return IlpAnswer(Status.UNKNOWN, None, "time limit reached")
    if ilp_cmd is not None:
        parts, fmt = ilp_command(ilp_cmd)
        binary = os.path.abspath(find_program(parts[0], what="ILP solver"))

        def command(model_file: str, answer_file: str, _: float | None) -> list[str]:
            return [binary] + [p.replace("{input}", model_file).replace("{output}", answer_file)
                               for p in parts[1:]]
        from_file = any("{output}" in p for p in parts)
        return run_program_on_model(model, command, fmt, time_limit, from_file=from_file,
                                    in_work=False)
    if solver == IlpSolver.CBC:
        binary = find_cbc(cbc_path)
        return run_program_on_model(model, lambda m, a, t: cbc_command(binary, m, a, t),
                                    ModelFormat.MPS, time_limit, what=f"CBC ({binary})")
    if solver == IlpSolver.GLPSOL:
        binary = find_glpsol()
        return run_program_on_model(model, lambda m, a, t: glpsol_command(binary, m, a, t),
                                    ModelFormat.MPS, time_limit, what=f"glpsol ({binary})")
    return run_scip(model, time_limit)


def run_program_on_model(model: SudokuIlp, command: Command, fmt: ModelFormat,
                         time_limit: float | None, *, from_file: bool = True,
                         what: str | None = None, in_work: bool = True) -> IlpAnswer:
    """Write the model in ``fmt``, run the program under the time limit (writing the file
    counts; ``in_work``: in the temporary directory, else in ours, where a user's template
    may name files), read its answer (the answer file, or its stdout when ``from_file`` is
    false) by content, decode it. A program that gives no usable answer is an
    :class:`ExternalSolverError` naming it and how it ended."""
    deadline = Deadline(time_limit)
    with tempfile.TemporaryDirectory(prefix="sudoku-bridge-ilp-") as tmp:
        work = Path(tmp)
        model_path = work / FILE_NAMES[fmt]
        answer_path = work / "answer.sol"
        write_model(model_path, model, fmt)
        remaining = deadline.remaining()
        args = command(str(model_path), str(answer_path), remaining)
        run = run_program(args, cwd=work if in_work else None, time_limit=remaining,
                          temp_dirs=[work], output_files=[answer_path] if from_file else [])
        what = what or run.name
        if run.timed_out:
            return IlpAnswer(Status.UNKNOWN, None, "time limit reached")
        limit = solution_limit(model.num_variables)
        if from_file:
            if not answer_path.exists():
                raise ExternalSolverError(f"{what} {run.ended()} and wrote no solution "
                                          f"file; last output: {run.tail() or '(none)'}")
            where = f"{run.name}'s answer file"
            text = read_output_file(answer_path, limit, where)
        else:
            where = f"output of {run.name}"
            text = run.stdout_text(limit)
        try:
            solution = parse_lp_solution(text.splitlines(), where, model_columns(model_path))
        except SolutionFormatError as exc:
            raise ExternalSolverError(f"{what} {run.ended()} and gave no usable answer "
                                      f"({exc}); last output: {run.tail() or '(none)'}") \
                from None
        answer = answer_from_solution(model, solution, where, column_names(model, model_path))
    if answer.status == Status.UNKNOWN and time_limit is not None:
        answer.detail = "time limit reached"
    return answer


def answer_from_solution(model: SudokuIlp, solution: LpSolution, where: str,
                         names: Mapping[str, str] | None = None) -> IlpAnswer:
    """Our answer from a solution file: its status, and for a solved one the decoded grid
    (not yet verified). A file without a status (CBC's csv) is solved only when its values
    make a solution of the puzzle, else unknown."""
    if solution.status in (Status.NO_SOLUTION, Status.UNKNOWN):
        return IlpAnswer(solution.status, None, f"solver status {solution.detail!r}")
    if solution.status is None:
        try:
            grid = grid_from_solution(model, solution, where, names)
        except UserError:
            grid = None
        if grid is None or not check_solution(model.puzzle, grid):
            return IlpAnswer(Status.UNKNOWN, None, f"{where} ({solution.detail}) does not "
                                                   f"say whether a solution was found, and "
                                                   f"its values are none")
        return IlpAnswer(Status.SOLVED, grid, solution.detail)
    return IlpAnswer(Status.SOLVED, grid_from_solution(model, solution, where, names),
                     solution.detail)


def run_scip(model: SudokuIlp, time_limit: float | None = None) -> IlpAnswer:
    """Solve in process with SCIP (``pyscipopt``) from the fixed MPS file; SCIP's Ctrl-C
    handler stops the search, which then raises :class:`KeyboardInterrupt` here."""
    scip_module = _pyscipopt()
    deadline = Deadline(time_limit)
    with tempfile.TemporaryDirectory(prefix="sudoku-bridge-scip-") as tmp:
        model_path = Path(tmp) / FILE_NAMES[ModelFormat.MPS]
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
            solution_path = Path(tmp) / "scip.sol"
            scip.writeBestSol(str(solution_path))
        finally:
            scip.freeProb()
        solution = read_lp_solution(solution_path, num_columns=model.num_variables)
        answer = answer_from_solution(model, solution, "SCIP's solution",
                                      column_names(model, model_path))
    answer.detail = status
    return answer


def solve_puzzle(puzzle: Grid, *, ilp_solver: str | None = None, ilp_cmd: str | None = None,
                 cbc_path: str | None = None, clues: str = "eliminate", unique: bool = False,
                 time_limit: float | None = None) -> Outcome:
    """Solve through the ILP with ``ilp_solver`` (default ``cbc``) or the outside program of
    the ``ilp_cmd`` template (:func:`ilp_command`); with ``unique``, one no-good cut and a
    second solve. HiGHS solves on this process's kept model (:func:`kept_highs_model`), the
    others on the puzzle's own model."""
    if ilp_cmd is not None and ilp_solver is not None:
        raise UserError("give a solver (--ilp-solver, or a route that names one, e.g. "
                        "--via ilp) or an --ilp-cmd, not both")
    solver = ilp_solver or IlpSolver.CBC
    deadline = Deadline(time_limit)
    # A missing program is an error at once, whatever the time limit.
    if ilp_cmd is not None:
        find_program(ilp_command(ilp_cmd)[0][0], what="ILP solver")
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
            return _solve_and_check(puzzle, name=name, unique=unique, stats=stats,
                                    start=start, run=lambda: kept.run(deadline.remaining()),
                                    exclude=kept.exclude)
    model = sudoku_ilp(puzzle, clues)
    stats = {"solver": name, "variables": model.num_variables,
             "constraints": model.num_constraints, "clues": clues}
    return _solve_and_check(puzzle, name=name, unique=unique, stats=stats, start=start,
                            run=lambda: run_solver(model, solver, deadline.remaining(),
                                                   cbc_path, ilp_cmd),
                            exclude=model.add_no_good)


def _solve_and_check(puzzle: Grid, *, name: str, unique: bool, stats: dict, start: float,
                     run: Callable[[], IlpAnswer], exclude: Callable[[Grid], object]
                     ) -> Outcome:
    """The outcome of solving with ``run``, its grid verified; with ``unique``, ``exclude``
    cuts that grid off and ``run`` again looks for a second one (none: unique)."""
    first = run()
    if first.status != Status.SOLVED:
        stats["seconds"] = round(time.perf_counter() - start, 6)
        if first.status == Status.UNKNOWN:
            stats["reason"] = first.detail
        return Outcome(first.status, stats=stats)
    grid = verified(puzzle, first.grid, f"ILP ({name})")
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
    other = verified(puzzle, second.grid, f"ILP ({name})")
    if other == grid:
        raise ExternalSolverError(f"{name} returned the excluded solution again after the "
                                  f"no-good cut")
    return Outcome(Status.SOLVED, grid, False, other, stats)


# ----------------------------------------------------------------------------- kept HiGHS model

class KeptHighsModel:
    """One in-process HiGHS model of the blank grid's ILP, kept between puzzles: N³ binary
    columns (column k is option k, digit k mod N + 1 in cell k div N, as in
    :mod:`reductions.exact_cover`) and the 4N² equalities (cell, row, column, block).

    A puzzle only changes column bounds (:meth:`fix`): its clues' columns are fixed to 1
    (the ``equalities`` clue mode, as bounds) and, with ``eliminate``, the columns its clues
    rule out are fixed to 0 — the same solutions as the puzzle's own model
    (:func:`reductions.ilp.sudoku_ilp`), and HiGHS's presolve drops the fixed columns. The
    uniqueness cut is one row added after the base rows (:meth:`exclude`). :meth:`restore`
    puts every bound back to [0, 1] and removes the added rows, so the next puzzle starts
    from the blank model. Building the PuLP model of every puzzle took about 3× the time of
    a solve on this kept model on 17-clue 9×9 puzzles (benchmarks/results/corpus.md).
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


_KEPT_HIGHS: dict[Shape, KeptHighsModel] = {}
"""This process's kept HiGHS models, by shape."""


@contextlib.contextmanager
def kept_highs_model(puzzle: Grid, clues: str):
    """This process's :class:`KeptHighsModel` for the puzzle's shape (built on first use),
    with the puzzle's clues fixed for the block. Afterwards it is restored to the blank
    model and kept; a model whose restoring failed is dropped (the next puzzle builds a new
    one), so no puzzle can see another's bounds or cuts."""
    model = _KEPT_HIGHS.pop(puzzle.shape, None) or KeptHighsModel(puzzle.shape)
    try:
        model.fix(puzzle, clues)
        yield model
    finally:
        model.restore()
        _KEPT_HIGHS[puzzle.shape] = model


# ----------------------------------------------------------------------------- files

def model_format(path: str | Path, fmt: str | None = None) -> ModelFormat:
    """The form to write: ``fmt`` when given, else by the suffix (.lp, .mps = fixed MPS)."""
    if fmt is not None:
        try:
            return ModelFormat(fmt)
        except ValueError:
            raise IlpError(f"unknown model format {fmt!r}; choose one of "
                           f"{', '.join(ModelFormat)}") from None
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise IlpError(f"{path}: unknown model format {suffix or '(no suffix)'!r}; "
                       f"use .lp or .mps, or --format {'|'.join(ModelFormat)}")
    return SUFFIXES[suffix]


def header_lines(model: SudokuIlp, fmt: ModelFormat) -> list[str]:
    """The comment lines in front of a model file (each within 78 characters, so that the
    fixed MPS lines stay within 80 with their ``* ``)."""
    n = model.shape.size
    width = FIXED_WIDTH - 2
    lines = [
        f"{MAGIC} model (Bartlett et al. 2008), {n}x{n} Sudoku",
        "x_R_C_D = 1: digit D in cell (R,C); rows, cols, blocks from 0, digits from 1",
        "equalities (= 1): cell_R_C, row_R_D, col_C_D, blk_K_D; clue_R_C per clue",
        f"shape {model.shape}",
        f"clues {model.clues}",
        *puzzle_comment_lines(model.puzzle, width if fmt == ModelFormat.MPS else 200),
        f"size {model.num_variables} variables, {model.num_constraints} constraints, "
        f"{model.num_nonzeros} nonzeros",
    ]
    if fmt == ModelFormat.MPS:
        lines += [
            "names base36: column C<k> is the k-th variable, row R<k> the k-th constraint",
            "(k in base 36), in the order of 'emit ilp --format free-mps', which keeps",
            "the names above; decode ilp rebuilds them from the puzzle",
        ]
    return lines


def _constraints(problem: pulp.LpProblem) -> list[tuple[str, pulp.LpConstraint]]:
    """(name, constraint) in the order they were added: ``problem.constraints()`` from PuLP
    3.3 on (the mapping is deprecated there), the mapping before."""
    constraints = problem.constraints
    if callable(constraints):
        return [(c.name, c) for c in constraints()]
    return list(constraints.items())


def mps_parts(model: SudokuIlp, short: bool) -> tuple[list[str], list[MpsRow], list]:
    """(columns, rows, entries by column) of the model for :func:`write_mps`, in the model's
    order; ``short``: the names ``C<k>`` / ``R<k>``."""
    index = {v.name: j for j, v in enumerate(model.variables)}
    rows: list[MpsRow] = []
    entries: list[list[tuple[int, float]]] = [[] for _ in model.variables]
    for i, (name, constraint) in enumerate(_constraints(model.problem)):
        rows.append(MpsRow(short_name("R", i) if short else name, SENSES[constraint.sense],
                           -constraint.constant))
        for variable, coefficient in constraint.items():
            entries[index[variable.name]].append((i, coefficient))
    columns = [short_name("C", j) if short else v.name for j, v in enumerate(model.variables)]
    return columns, rows, entries


def write_model(path: str | Path, model: SudokuIlp, fmt: str | None = None) -> ModelFormat:
    """Write the model as LP, fixed MPS or free MPS (``fmt``, else by suffix), atomically,
    comments first; returns the form."""
    fmt = model_format(path, fmt)
    prefix = COMMENT_PREFIX[fmt]
    if fmt != ModelFormat.LP:
        columns, rows, entries = mps_parts(model, short=fmt == ModelFormat.MPS)
        with atomic_write(path) as out:
            write_mps(out, name="SUDOKU", columns=columns, rows=rows, entries=entries,
                      fixed=fmt == ModelFormat.MPS, comments=header_lines(model, fmt))
        return fmt
    # PuLP writes only to a file name: a scratch file beside the target (named so that a
    # killed writer's is removed by the next write).
    with scratch_path(path) as raw:
        model.problem.writeLP(str(raw))
        with atomic_write(path) as out, open(raw, encoding="utf-8") as body:
            for line in header_lines(model, fmt):
                out.write(f"{prefix} {line}\n")
            shutil.copyfileobj(body, out)
    return fmt


def read_metadata(path: str | Path, *,
                  memory_limit: int = DEFAULT_MEMORY_LIMIT) -> dict[str, str]:
    """The ``key value`` comment lines at the top of a model file (LP or MPS, by content)."""
    prefix = COMMENT_PREFIX[sniff_model_format(path, ExternalSolverError)]
    comments = []
    for _, line in read_lines(path, model_file_limit(memory_limit), ExternalSolverError):
        if not line.strip():
            continue
        if not line.startswith(prefix):
            break
        comments.append(line[len(prefix):])
    return metadata_from_comments(comments, str(path), ExternalSolverError)


def model_from_file(path: str | Path, *,
                    memory_limit: int = DEFAULT_MEMORY_LIMIT) -> SudokuIlp:
    """Rebuild the model a file was written from (:func:`write_model`), from its comments
    (sized against ``memory_limit`` first)."""
    metadata = read_metadata(path, memory_limit=memory_limit)
    puzzle, clues = puzzle_from_metadata(metadata, str(path), ExternalSolverError)
    if clues not in CLUE_MODES:
        raise ExternalSolverError(f"{path}: unknown clue mode {clues!r} in the comments "
                                  f"(expected {' or '.join(CLUE_MODES)})")
    n = puzzle.size
    ensure_fits(ilp_estimate(puzzle.shape), memory_limit,
                f"{path}: the {n}x{n} puzzle of its comments")
    model = sudoku_ilp(puzzle, clues)
    size = metadata.get("size", "")
    expected = (f"{model.num_variables} variables, {model.num_constraints} constraints, "
                f"{model.num_nonzeros} nonzeros")
    if size != expected:
        raise ExternalSolverError(f"{path}: the size comment says {size!r} but the puzzle "
                                  f"gives {expected!r}: the file was changed")
    return model


def column_names(model: SudokuIlp, path: str | Path) -> dict[str, str]:
    """The file's column names → the model's variable names: the same names (LP, free
    MPS; PuLP's ``__dummy`` column of an LP file kept as itself), or ``C<k>`` → the k-th
    variable (fixed MPS). Columns that are neither are an error: the file was changed."""
    columns = model_columns(path)
    names = [v.name for v in model.variables]
    if set(columns) - {"__dummy"} == set(names):
        return {name: name for name in columns}
    if columns == [short_name("C", k) for k in range(len(names))]:
        return dict(zip(columns, names))
    raise ExternalSolverError(f"{path}: its {len(columns)} columns are not the "
                              f"{len(names)} variables of the model its comments describe: "
                              f"the file was changed")


def grid_from_solution(model: SudokuIlp, solution: LpSolution, path: str | Path,
                       names: Mapping[str, str] | None = None) -> Grid:
    """Decode a solution file's values with the model (names checked, 0/1 checked);
    ``names`` maps the model file's column names to the model's (:func:`column_names`;
    None: the model's own names)."""
    if names is None:
        names = {v.name: v.name for v in model.variables}
    values = {}
    file_names = {}
    for name, value in solution.values.items():
        if name not in names:
            if name == "__dummy":
                continue
            raise ExternalSolverError(f"{path} line {solution.lines[name]}: variable "
                                      f"{name[:40]} is not in the model")
        values[names[name]] = value
        file_names[names[name]] = name
    try:
        return model.grid_from_values(values)
    except IlpError as exc:
        name = str(exc).split()[1] if str(exc).startswith("variable ") else None
        where = f" line {solution.lines[file_names[name]]}" if name in file_names else ""
        column = f" (column {file_names[name]} of the model file)" \
            if file_names.get(name, name) != name else ""
        raise ExternalSolverError(f"{path}{where}: {exc}{column}") from None
