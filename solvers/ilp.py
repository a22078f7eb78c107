"""Solving the Sudoku ILP with CBC or HiGHS through PuLP; LP/MPS export; solution files.

Solvers (``solver=``):

* ``cbc`` — the CBC command line, run like every outside program through
  :func:`solvers.external.run_program` (its own process group, killed at our time limit, on
  Ctrl-C and when we die). The binary is, in order: the ``cbc_path`` given (a name on PATH
  or a path), a ``cbc`` on PATH (Debian's ``coinor-cbc``, or the one ``pip install pulp[cbc]``
  brings), the binary bundled inside older PuLP wheels. The model goes to a temporary MPS
  file (PuLP's ``writeMPS``, names kept), CBC runs ``cbc MODEL [-sec S -timeMode elapsed]
  -solve -solution SOLFILE`` and the solution file is read by
  :func:`solvers.formats.lp_solution.read_lp_solution`, the one reader of solution files
  (also used by ``decode ilp``). With a time limit, CBC's own ``-sec`` is
  set a little below it so that CBC normally stops by itself and writes what it has; a CBC
  still running at the limit is killed and the answer is "unknown".
* ``highs`` — ``pulp.HiGHS``, in process through ``highspy`` (an optional extra).

Answers: an optimal (here: any feasible) solution is decoded and verified against the puzzle;
"infeasible" is a proof of no solution; a time limit or any other status is "unknown", never
"no solution". Uniqueness: after the first solution one no-good cut excludes it
(:meth:`reductions.ilp.SudokuIlp.add_no_good`) and the model is solved again — infeasible
means unique, a solution is a second, distinct, verified grid and is reported.

Files: :func:`write_model` writes ``.lp`` or ``.mps`` (PuLP's ``writeLP`` / ``writeMPS``,
names kept) with comment lines in front recording the shape, the clue mode and the puzzle
(``\\`` comments in LP, ``*`` in MPS), so :func:`model_from_file` rebuilds the model from the
file alone. Both load unchanged in the ``cbc`` command line (``cbc FILE solve solu OUT``).
Solution files of CBC, HiGHS, glpsol and SCIP are read by
:func:`solvers.formats.lp_solution.read_lp_solution`.
"""

from __future__ import annotations

import enum
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pulp

from reductions.errors import open_text, reading
from reductions.grid import Grid
from reductions.ilp import (CLUE_MODES, IlpError, SudokuIlp, parse_variable_name,
                            sudoku_ilp)

from .budget import Deadline
from .external import ExternalSolverError, find_program, run_program
from .formats.lp_solution import LpSolution, read_lp_solution
from .formats.atomic import atomic_write, scratch_path
from .formats.dlx import metadata_from_comments, puzzle_comment_lines, puzzle_from_metadata
from .outcome import Outcome, SolverUnavailable, Status, verified

class IlpSolver(enum.StrEnum):
    """CBC (its command line) or HiGHS (in process)."""

    CBC = "cbc"
    HIGHS = "highs"


SOLVERS = tuple(IlpSolver)
MAGIC = "sudoku-bridge ILP"
FORMATS = {".lp": "lp", ".mps": "mps"}
COMMENT_PREFIX = {"lp": "\\", "mps": "*"}


# ----------------------------------------------------------------------------- solvers

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
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 1)
            highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    _HIGHS_READY = True


@dataclass
class IlpAnswer:
    """One solver run: ``status`` (solved / no solution / unknown), the decoded grid (not yet
    verified) and the solver's own status words."""

    status: str
    grid: Grid | None = None
    detail: str = ""


def run_solver(model: SudokuIlp, solver: str, time_limit: float | None = None,
               cbc_path: str | None = None) -> IlpAnswer:
    """Solve the model once and decode the values."""
    if solver not in SOLVERS:
        raise IlpError(f"unknown ILP solver {solver!r}; choose one of {', '.join(SOLVERS)}")
    if time_limit is not None and time_limit <= 0:
        return IlpAnswer(Status.UNKNOWN, None, "time limit reached")
    if solver == "cbc":
        return run_cbc(model, find_cbc(cbc_path), time_limit)
    return run_highs(model, time_limit)


def cbc_own_limit(time_limit: float) -> float:
    """CBC's ``-sec``: below our hard limit, leaving time to read the model and write the
    solution file (CBC checks its clock only between steps of its search)."""
    return max(0.5 * time_limit, time_limit - max(0.5, 0.1 * time_limit))


def cbc_command(binary: str, model_file: str, solution_file: str,
                time_limit: float | None = None) -> list[str]:
    """The CBC argument list: read the model, solve, write the solution file."""
    args = [binary, model_file]
    if time_limit is not None:
        args += ["-sec", f"{cbc_own_limit(time_limit):.2f}", "-timeMode", "elapsed"]
    return args + ["-solve", "-solution", solution_file]


def run_cbc(model: SudokuIlp, binary: str, time_limit: float | None = None) -> IlpAnswer:
    """Write the model as MPS, run CBC on it under the time limit (writing the file counts),
    read its solution file."""
    deadline = Deadline(time_limit)
    with tempfile.TemporaryDirectory(prefix="sudoku-bridge-cbc-") as tmp:
        work = Path(tmp)
        model.problem.writeMPS(str(work / "model.mps"), rename=0)
        remaining = deadline.remaining()
        run = run_program(cbc_command(binary, "model.mps", "model.sol", remaining),
                          cwd=work, time_limit=remaining, temp_dirs=[work])
        if run.timed_out:
            return IlpAnswer(Status.UNKNOWN, None, "time limit reached")
        solution_path = work / "model.sol"
        if not solution_path.exists():
            raise ExternalSolverError(f"CBC ({binary}) {run.ended()} and wrote no solution "
                                      f"file; last output: {run.tail() or '(none)'}")
        solution = read_lp_solution(solution_path)
        if solution.status == Status.SOLVED:
            return IlpAnswer(Status.SOLVED, grid_from_solution(model, solution, solution_path),
                             solution.detail)
    if solution.status == Status.NO_SOLUTION:
        return IlpAnswer(Status.NO_SOLUTION, None, solution.detail)
    reason = "time limit reached" if time_limit is not None else \
        f"solver status {solution.detail!r}"
    return IlpAnswer(Status.UNKNOWN, None, reason)


def run_highs(model: SudokuIlp, time_limit: float | None = None) -> IlpAnswer:
    """Solve in process with HiGHS through PuLP (``highspy``)."""
    _highs_ready()
    try:
        status = model.problem.solve(pulp.HiGHS(msg=False, timeLimit=time_limit))
    except pulp.PulpSolverError as exc:
        raise ExternalSolverError(f"highs failed: {str(exc).splitlines()[0]}") from None
    detail = f"{pulp.LpStatus.get(status, status)}"
    if status == pulp.LpStatusOptimal:
        values = model.solver_values()
        if any(v is None for v in values.values()):
            return IlpAnswer(Status.UNKNOWN, None, f"{detail} but no values")
        return IlpAnswer(Status.SOLVED, model.grid_from_values(values), detail)
    if status == pulp.LpStatusInfeasible:
        return IlpAnswer(Status.NO_SOLUTION, None, detail)
    reason = "time limit reached" if time_limit is not None else f"solver status {detail}"
    return IlpAnswer(Status.UNKNOWN, None, reason)


def solve_puzzle(puzzle: Grid, *, ilp_solver: str = "cbc", cbc_path: str | None = None,
                 clues: str = "eliminate", unique: bool = False,
                 time_limit: float | None = None) -> Outcome:
    """Solve through the ILP with ``ilp_solver`` (``cbc`` or ``highs``); with ``unique``, one
    no-good cut and a second solve."""
    solver = ilp_solver
    deadline = Deadline(time_limit)
    if solver == "cbc":
        cbc_path = find_cbc(cbc_path)         # a missing CBC is an error, whatever the limit
    start = time.perf_counter()
    model = sudoku_ilp(puzzle, clues)
    stats = {"solver": solver, "variables": model.num_variables,
             "constraints": model.num_constraints, "clues": clues}
    first = run_solver(model, solver, deadline.remaining(), cbc_path)
    if first.status != Status.SOLVED:
        stats["seconds"] = round(time.perf_counter() - start, 6)
        if first.status == Status.UNKNOWN:
            stats["reason"] = first.detail
        return Outcome(first.status, stats=stats)
    grid = verified(puzzle, first.grid, f"ILP ({solver})")
    if not unique:
        stats["seconds"] = round(time.perf_counter() - start, 6)
        return Outcome(Status.SOLVED, grid, None, None, stats)
    model.add_no_good(grid)
    second = run_solver(model, solver, deadline.remaining(), cbc_path)
    stats["seconds"] = round(time.perf_counter() - start, 6)
    if second.status == Status.NO_SOLUTION:
        return Outcome(Status.SOLVED, grid, True, None, stats)
    if second.status == Status.UNKNOWN:
        return Outcome(Status.SOLVED, grid, None, None, {**stats, "reason": second.detail})
    other = verified(puzzle, second.grid, f"ILP ({solver})")
    if other == grid:
        raise ExternalSolverError(f"{solver} returned the excluded solution again after the "
                                  f"no-good cut")
    return Outcome(Status.SOLVED, grid, False, other, stats)


# ----------------------------------------------------------------------------- files

def model_format(path: str | Path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise IlpError(f"{path}: unknown model format {suffix or '(no suffix)'!r}; "
                       f"use .lp or .mps")
    return FORMATS[suffix]


def header_lines(model: SudokuIlp) -> list[str]:
    n = model.shape.size
    return [
        f"{MAGIC} model (Bartlett et al. 2008) of a {n}x{n} Sudoku (blocks {model.shape})",
        "x_R_C_D = 1 when digit D is in cell (R,C); rows, columns, blocks from 0, digits from 1",
        "equalities: cell_R_C, row_R_D, col_C_D, blk_K_D (= 1); clue_R_C (= 1) for clues",
        f"shape {model.shape}",
        f"clues {model.clues}",
        *puzzle_comment_lines(model.puzzle),
        f"size {model.num_variables} variables, {model.num_constraints} constraints, "
        f"{model.num_nonzeros} nonzeros",
    ]


def write_model(path: str | Path, model: SudokuIlp) -> str:
    """Write the model as LP or MPS (by suffix), atomically, comments first; returns the
    format."""
    fmt = model_format(path)
    prefix = COMMENT_PREFIX[fmt]
    # PuLP writes only to a file name: a scratch file beside the target (named so that a
    # killed writer's is removed by the next write).
    with scratch_path(path) as raw:
        if fmt == "lp":
            model.problem.writeLP(str(raw))
        else:
            model.problem.writeMPS(str(raw), rename=0)
        with atomic_write(path) as out, open(raw, encoding="utf-8") as body:
            for line in header_lines(model):
                out.write(f"{prefix} {line}\n")
            shutil.copyfileobj(body, out)
    return fmt


def read_metadata(path: str | Path) -> dict[str, str]:
    """The ``key value`` comment lines at the top of a model file."""
    fmt = model_format(path)
    prefix = COMMENT_PREFIX[fmt]
    comments = []
    with reading(path, ExternalSolverError), open_text(path) as handle:
        for line in handle:
            if not line.startswith(prefix):
                break
            comments.append(line[len(prefix):])
    return metadata_from_comments(comments, str(path), ExternalSolverError)


def model_from_file(path: str | Path) -> SudokuIlp:
    """Rebuild the model a file was written from (:func:`write_model`), from its comments."""
    metadata = read_metadata(path)
    puzzle, clues = puzzle_from_metadata(metadata, str(path), ExternalSolverError)
    if clues not in CLUE_MODES:
        raise ExternalSolverError(f"{path}: unknown clue mode {clues!r} in the comments "
                                  f"(expected {' or '.join(CLUE_MODES)})")
    model = sudoku_ilp(puzzle, clues)
    size = metadata.get("size", "")
    expected = (f"{model.num_variables} variables, {model.num_constraints} constraints, "
                f"{model.num_nonzeros} nonzeros")
    if size != expected:
        raise ExternalSolverError(f"{path}: the size comment says {size!r} but the puzzle "
                                  f"gives {expected!r}: the file was changed")
    return model


def grid_from_solution(model: SudokuIlp, solution: LpSolution, path: str | Path) -> Grid:
    """Decode a solution file's values with the model (names checked, 0/1 checked)."""
    for name, number in solution.lines.items():
        if parse_variable_name(name) is not None and model.index_of(name) is None:
            raise ExternalSolverError(f"{path} line {number}: variable {name} is not in the "
                                      f"model")
    try:
        return model.grid_from_values(solution.values)
    except IlpError as exc:
        name = str(exc).split()[1] if str(exc).startswith("variable ") else None
        where = f" line {solution.lines[name]}" if name in solution.lines else ""
        raise ExternalSolverError(f"{path}{where}: {exc}") from None
