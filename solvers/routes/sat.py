"""Solving Sudoku through CNF: pysat solvers in process, or any DIMACS command-line solver.

* :class:`IncrementalSudokuSolver` — one pysat solver per shape holding the rule clauses
  (``units`` mode, no clues); each puzzle is one call with its clues as *assumptions*, so
  thousands of puzzles share one solver and its learnt clauses. Default solver: CaDiCaL 1.9.5
  (pysat name ``cadical195``).
* :func:`solve_puzzle` — one puzzle, any encoding, any pysat solver.
* :func:`solve_with_command` — write the CNF to a temporary file, run an external solver
  (``cadical``, ``minisat``, ``kissat``, ... or a full command line) without a shell, under a
  time limit, and parse its answer (:mod:`solvers.tools.dimacs_programs`): SAT-competition
  ``s``/``v`` lines and exit codes 10/20, or MiniSat's result file.
* :func:`solve_many` — a batch on a process pool (one incremental solver per process);
  :func:`solve_lines` / :func:`solve_lines_incremental` — the lines of a puzzle file the
  same way (the batch capability of the ``sat`` and ``sat-incremental`` routes,
  :attr:`solvers.routes.registry.Route.batch`), each answer described as the route's
  one-puzzle path describes it (:func:`instance_stats`, :func:`answer_stats`).

Every grid returned is checked against the puzzle (``solvers.outcome.verified``). A time limit
gives ``unknown``, never ``no solution``: pysat's CaDiCaL cannot be interrupted, so the limit
is enforced between rounds of a conflict budget (``conf_budget`` + ``solve_limited``).
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

import numpy as np

from reductions.encodings.cnf import SudokuCnf, grid_from_model, sudoku_cnf
from reductions.errors import UserError
from reductions.sudoku.forced import forced_digits
from reductions.sudoku.grid import (Grid, Shape, check_clues, clue_array_from_line, parse_grid,
                                    solve_checks, solves_clues)
from reductions.encodings.sizes import cnf_estimate
from reductions.estimate import ensure_fits
from reductions.status import STATUS_CODE, STATUS_CODES

from ..formats.dimacs import SatAnswer, write_cnf
from ..runtime.budget import Deadline, solve_within
from ..runtime.kept_models import KeptModels
from ..runtime.processes import become_worker, find_program, worker_pool
from ..runtime.pysat_solvers import DEFAULT_SOLVER, new_pysat_solver
from ..runtime.scratch import temporary_directory
from ..outcome import Outcome, Status, WrongAnswer, verified


# ----------------------------------------------------------------------------- incremental

def _model_digits(models: np.ndarray, n: int) -> np.ndarray:
    """Digits of models (the first N³ literals of each, in the last axis): one digit per
    cell, N² entries a model. The encodings make exactly one digit true per cell; every
    answer is verified before anyone sees it anyway."""
    truth = models.reshape(*models.shape[:-1], n * n, n) > 0
    return (truth.argmax(axis=-1) + 1).astype(np.uint8)


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


class IncrementalSudokuSolver:
    """Many puzzles of one shape through one solver: rules loaded once, clues as assumptions.

    Uniqueness: after a first solution, a blocking clause (some free cell differs) is added
    behind a fresh *activation* variable, so it applies only to this puzzle's second call and
    is switched off for good afterwards.
    """

    def __init__(self, shape: Shape, solver: str = DEFAULT_SOLVER, encoding: str = "extended",
                 amo: str = "auto"):
        self.shape = shape
        self.n = shape.size
        self.name = solver
        rules = sudoku_cnf(Grid.empty(shape), encoding, amo, "units")
        self.solver = new_pysat_solver(solver)
        for block in rules.clause_blocks():
            self.solver.append_formula(block.tolist() if isinstance(block, np.ndarray)
                                       else block)
        self.top = rules.num_vars
        self.num_clauses = rules.num_clauses     # of the rules; clues come as assumptions
        self.instance = instance_stats(solver=solver, encoding=encoding, amo=rules.amo,
                                       clues="assumptions", variables=rules.num_vars,
                                       clauses=rules.num_clauses)
        """Its answers' instance (:func:`instance_stats`): the rules, the clues assumed."""

    def close(self) -> None:
        self.solver.delete()

    def __enter__(self) -> "IncrementalSudokuSolver":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _solution_digits(self) -> np.ndarray:
        """Digits of the current model, flat (N² entries)."""
        return _model_digits(np.asarray(self.solver.get_model()[: self.n ** 3]), self.n)

    def solve_clues(self, clues: np.ndarray, *, unique: bool = False,
                    time_limit: float | None = None) -> "BatchItem":
        """One puzzle: clues as a flat uint8 array of N² entries (0 = empty); the answer
        (N² bytes) verified with :func:`solves_clues` (a wrong one raises
        :class:`WrongAnswer`). :meth:`solve_rows` for one row."""
        chunk = self.solve_rows(clues[None, :], unique=unique, time_limit=time_limit)
        return next(chunk.items())

    def unique_solution(self, clues: np.ndarray, solution: np.ndarray, *,
                        time_limit: float | None = None) -> bool | None:
        """Do ``clues`` (flat, 0 = empty) admit no solution but ``solution`` (flat digits,
        which they must admit)? True (proved: one UNSAT call), False (a second solution,
        verified, exists) or None (time limit). One solver call where :meth:`solve_clues`
        with ``unique`` makes two: the generator (:mod:`solvers.generate`) knows the
        solution already."""
        if not solves_clues(clues, solution, self.shape):
            raise ValueError("unique_solution needs a solution of the clues")
        unique, _ = self._other_solution(clues, solution, Deadline(time_limit))
        return unique

    def _other_solution(self, fixed: np.ndarray, digits: np.ndarray,
                        deadline: Deadline) -> tuple[bool | None, np.ndarray | None]:
        """(unique, second): look for a solution with the ``fixed`` digits (flat, 0 = free;
        the clues, or the clues and digits they force) other than ``digits``, with a
        blocking clause (some free cell differs) behind a fresh activation variable,
        retired for good afterwards."""
        n = self.n
        given = np.flatnonzero(fixed)
        assumptions = (given * n + fixed[given]).tolist()
        self.top += 1
        act = self.top
        free = np.flatnonzero(fixed == 0)
        self.solver.add_clause([-act] + (-(free * n + digits[free])).tolist())
        again = solve_within(self.solver, deadline, assumptions + [act])
        second = self._checked(fixed, self._solution_digits()) if again else None
        self.solver.add_clause([-act])       # retire the blocking clause
        return (None if again is None else not again), second

    def solve_rows(self, clues: np.ndarray, *, unique: bool = False,
                   time_limit: float | None = None) -> "BatchChunk":
        """Solve K puzzles given as a (K, N²) uint8 array (``time_limit`` per puzzle).

        Batches of :data:`FORCED_MIN_BATCH` or more first go through
        :func:`~reductions.sudoku.forced.forced_digits` all at once (singles and locked
        candidates): a puzzle they complete is answered without a solver call (and, being
        forced digit by digit, proved unique); the others get the clues *and* the forced
        digits as assumptions, which leaves their solutions unchanged (and a puzzle without
        solution without one). Each solver answer is decoded; the batch's answers are
        verified together (:func:`solve_checks`; a wrong one raises :class:`WrongAnswer`).
        """
        n, k = self.n, len(clues)
        chunk = BatchChunk.empty(k, n * n)
        fixed, rest = self._forced(clues, chunk, unique)
        rows, cells = np.nonzero(fixed[rest])
        literals = (cells * n + fixed[rest][rows, cells]).tolist()
        ends = np.cumsum(np.bincount(rows, minlength=len(rest))).tolist()
        solved = []
        width = n ** 3
        models = np.empty((len(rest), width), dtype=np.int32)
        begin = 0
        for row, end in zip(rest.tolist(), ends):
            deadline = Deadline(time_limit)
            started = time.perf_counter()
            result = solve_within(self.solver, deadline, literals[begin:end])
            begin = end
            if not result:
                chunk.status[row] = STATUS_CODE[Status.UNKNOWN if result is None
                                                else Status.NO_SOLUTION]
                chunk.seconds[row] += time.perf_counter() - started
                continue
            model = models[len(solved)]
            model[:] = np.fromiter(self.solver.get_model(), dtype=np.int32, count=width)
            solved.append(row)
            if unique:     # the second call needs this answer now; checked again below
                digits = self._checked(clues[row], _model_digits(model, n))
                verdict, second = self._other_solution(fixed[row], digits, deadline)
                chunk.unique[row] = -1 if verdict is None else int(verdict)
                if second is not None:
                    chunk.second[row] = second.tobytes()
            chunk.seconds[row] += time.perf_counter() - started
        if solved:
            found = _model_digits(models[:len(solved)], n)
            ok = solve_checks(clues[solved], found, self.shape)
            if not np.all(ok):
                bad = solved[int(np.argmin(ok))]
                raise WrongAnswer(f"SAT ({self.name}) returned a grid that does not solve "
                                  f"puzzle {bad + 1} of the batch")
            chunk.digits[solved] = found
            chunk.status[solved] = STATUS_CODE[Status.SOLVED]
        return chunk

    def _forced(self, clues: np.ndarray, chunk: "BatchChunk",
                unique: bool) -> tuple[np.ndarray, np.ndarray]:
        """The forced-digits pass of :meth:`solve_rows` (for :data:`FORCED_MIN_BATCH`
        puzzles or more): the puzzles it completes are answered in ``chunk``, its time is
        shared out among all; returns the digits fixed (the clues among them) and the rows
        left for the solver."""
        k = len(clues)
        if k < FORCED_MIN_BATCH:
            return clues, np.arange(k)
        start = time.perf_counter()
        fixed = forced_digits(clues, self.shape)     # the clues among them
        done = np.flatnonzero(np.all(fixed > 0, axis=1))
        done = done[solve_checks(clues[done], fixed[done], self.shape)]
        chunk.status[done] = STATUS_CODE[Status.SOLVED]
        chunk.digits[done] = fixed[done]
        if unique:
            chunk.unique[done] = 1
        chunk.seconds[:] = (time.perf_counter() - start) / k
        return fixed, np.setdiff1d(np.arange(k), done)

    def _checked(self, clues: np.ndarray, digits: np.ndarray) -> np.ndarray:
        if not solves_clues(clues, digits, self.shape):
            raise WrongAnswer(f"SAT ({self.name}) returned a grid that does not solve the "
                              f"puzzle")
        return digits

    def solve(self, puzzle: Grid, *, unique: bool = False,
              time_limit: float | None = None) -> Outcome:
        """Solve one puzzle (a Grid of this solver's shape)."""
        if puzzle.shape != self.shape:
            raise UserError(f"puzzle has blocks {puzzle.shape}, this solver is for {self.shape}")
        start = time.perf_counter()
        item = self.solve_clues(puzzle.values.ravel().astype(np.uint8), unique=unique,
                                time_limit=time_limit)
        stats = answer_stats(self.instance, item.status, time.perf_counter() - start)
        return Outcome(item.status, item.grid(self.shape), item.unique,
                       item.second_grid(self.shape), stats)


def solve_incremental(puzzle: Grid, *, solver: str = DEFAULT_SOLVER, unique: bool = False,
                      time_limit: float | None = None) -> Outcome:
    """Solve on this process's :class:`IncrementalSudokuSolver` for the puzzle's shape
    (:func:`process_solver`): the rules are loaded once per process and the clues are
    assumptions, so a corpus costs one solver call per puzzle."""
    return process_solver(puzzle.shape, solver=solver).solve(puzzle, unique=unique,
                                                            time_limit=time_limit)


# ----------------------------------------------------------------------------- one puzzle

def solve_puzzle(puzzle: Grid, *, solver: str | None = None, solver_cmd: str | None = None,
                 encoding: str = "extended", amo: str = "auto", clues: str | None = None,
                 unique: bool = False, time_limit: float | None = None) -> Outcome:
    """Build the puzzle's CNF in the given encoding and solve it: with a pysat ``solver``
    (default CaDiCaL 1.9.5; clues as units unless ``clues="eliminate"``), or with an outside
    DIMACS program ``solver_cmd`` (:func:`solve_with_command`; clues eliminated by default)."""
    if solver_cmd is not None:
        if solver is not None:
            raise UserError("give a pysat --solver or a --solver-cmd, not both")
        return solve_with_command(puzzle, solver_cmd, encoding=encoding, amo=amo,
                                  clues=clues or "eliminate", unique=unique,
                                  time_limit=time_limit)
    solver = solver or DEFAULT_SOLVER
    clues = clues or "units"
    start = time.perf_counter()
    cnf = sudoku_cnf(puzzle, encoding, amo, clues)
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
        grid = verified(puzzle, grid_from_model(cnf, sat.get_model()), f"SAT ({solver})")
        outcome = Outcome(Status.SOLVED, grid, stats=stats)
        if unique:
            blocking = [-lit for lit in _grid_literals(cnf, grid)]
            sat.add_clause(blocking)
            again = solve_within(sat, deadline)
            if again is None:
                outcome.unique = None
            elif again:
                outcome.unique = False
                outcome.second = verified(puzzle, grid_from_model(cnf, sat.get_model()),
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

def solve_with_command(puzzle: Grid, solver_cmd: str, *, encoding: str = "extended",
                       amo: str = "auto", clues: str = "eliminate", unique: bool = False,
                       time_limit: float | None = None) -> Outcome:
    """Solve through an external DIMACS solver: write, run, parse, decode, verify. The time
    limit covers writing the CNF and both runs.

    Uniqueness: a second run on the formula plus a clause blocking the first solution.
    """
    # Outside programs are loaded when one runs, not at start-up.
    from ..tools.dimacs_programs import dimacs_template, run_dimacs_solver
    find_program(dimacs_template(solver_cmd).program, what="SAT solver")   # missing: at once
    deadline = Deadline(time_limit)
    cnf = sudoku_cnf(puzzle, encoding, amo, clues)
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
        grid = verified(puzzle, grid_from_model(cnf, model), f"SAT ({solver_cmd})")
        outcome = Outcome(Status.SOLVED, grid, stats=stats)
        if unique:
            blocking = [[-lit for lit in _grid_literals(cnf, grid)]]
            write_cnf(path, cnf.num_vars, [*cnf.clause_blocks(), blocking], cnf.metadata())
            status2, model2, _ = run_dimacs_solver(solver_cmd, path, work=work,
                                                   num_vars=cnf.num_vars,
                                                   time_limit=deadline.remaining())
            if status2 == SatAnswer.SAT:
                outcome.unique = False
                outcome.second = verified(puzzle, grid_from_model(cnf, model2),
                                          f"SAT ({solver_cmd})")
            elif status2 == SatAnswer.UNSAT:
                outcome.unique = True
        return outcome


# ----------------------------------------------------------------------------- batches
# The batch path moves puzzles between processes as raw one-line text or flat clue arrays
# and answers as arrays of N² bytes a puzzle (BatchChunk): building Grid objects and
# re-parsing would cost more than CaDiCaL spends on a typical 17-clue puzzle. Workers verify
# every answer (solve_checks) before returning it.

FORCED_MIN_BATCH = 64
"""Batches this large go through :func:`~reductions.sudoku.forced.forced_digits` first. Its cost is
a fixed number of array operations per round whatever the batch size, so it pays only over
many puzzles (about 20 µs a 17-clue puzzle in batches of 1,000; the solver call it saves
costs ~100 µs)."""


@dataclass
class BatchItem:
    """One puzzle's result from :func:`solve_batch`. ``error`` is a bad-input message."""

    index: int
    status: str
    solution: bytes | None = None   # N² bytes of digits
    unique: bool | None = None
    second: bytes | None = None
    error: str | None = None
    shape: Shape | None = None      # set when it differs from the batch's shape
    seconds: float = 0.0            # spent on this puzzle (its share of shared work)

    def grid(self, shape: Shape) -> Grid | None:
        return _grid_from_bytes(self.solution, shape)

    def second_grid(self, shape: Shape) -> Grid | None:
        return _grid_from_bytes(self.second, shape)


@dataclass
class BatchChunk:
    """The results of consecutive puzzles ``start .. start + k − 1`` of a batch, as arrays.

    Puzzles that did not fit the arrays — bad input, or a shape other than the batch's —
    are whole :class:`BatchItem` objects in ``odd`` (by offset in the chunk); their array
    rows are unused.
    """

    start: int
    status: np.ndarray                 # (k,) uint8: index into STATUS_CODES
    digits: np.ndarray                 # (k, N²) uint8: verified solutions, 0 rows elsewhere
    unique: np.ndarray                 # (k,) int8: 1 unique, 0 not, -1 unknown / not asked
    second: dict[int, bytes]           # offset → a second solution, N² bytes
    odd: dict[int, BatchItem]
    seconds: np.ndarray                # (k,) float64: spent on each puzzle

    @classmethod
    def empty(cls, k: int, cells: int, start: int = 0) -> "BatchChunk":
        return cls(start, np.full(k, STATUS_CODE[Status.UNKNOWN], dtype=np.uint8),
                   np.zeros((k, cells), dtype=np.uint8), np.full(k, -1, dtype=np.int8), {},
                   {}, np.zeros(k))

    def __len__(self) -> int:
        return len(self.status)

    def items(self) -> Iterator[BatchItem]:
        """The chunk as one :class:`BatchItem` per puzzle, in order."""
        for offset, (code, verdict, seconds) in enumerate(zip(
                self.status.tolist(), self.unique.tolist(), self.seconds.tolist())):
            if offset in self.odd:
                yield self.odd[offset]
                continue
            status = STATUS_CODES[code]
            yield BatchItem(self.start + offset, status,
                            self.digits[offset].tobytes() if status == Status.SOLVED else None,
                            None if verdict < 0 else bool(verdict), self.second.get(offset),
                            seconds=seconds)


FRESH_SOLVER_EVERY = 2000
"""Puzzles one kept solver serves before it is replaced by a fresh one. Learnt clauses of
earlier puzzles pile up and slow every later call (measured on forum-hardest-1905-11plus:
711 puzzles/s with one solver for 20,000 puzzles, 904/s with a fresh one every 2,000)."""
_PROCESS_SOLVERS: KeptModels[IncrementalSudokuSolver] = KeptModels(
    "sat incremental solver", build=lambda key: IncrementalSudokuSolver(*key),
    close=IncrementalSudokuSolver.close, renew_after=FRESH_SOLVER_EVERY)
"""This process's incremental solvers, by (shape, solver, encoding, at-most-one); each pool
worker has its own."""
_worker_options: dict = {}


def _pool_worker_init(parent: int, solver: str, encoding: str, amo: str) -> None:
    """A pool worker (:func:`solvers.runtime.processes.become_worker`) with its solver
    options."""
    become_worker(parent)
    _worker_init(solver, encoding, amo)


def _worker_init(solver: str, encoding: str, amo: str) -> None:
    _worker_options.clear()
    _worker_options.update(solver=solver, encoding=encoding, amo=amo)


def process_solver(shape: Shape, *, solver: str = DEFAULT_SOLVER, encoding: str = "extended",
                   amo: str = "auto", upcoming: int = 1) -> IncrementalSudokuSolver:
    """This process's incremental solver for these options (a
    :class:`~solvers.runtime.kept_models.KeptModels`), made on first use and replaced by a
    fresh one once it would serve more than :data:`FRESH_SOLVER_EVERY` puzzles
    (``upcoming`` are about to be solved on it)."""
    return _PROCESS_SOLVERS.get((shape, solver, encoding, amo), uses=upcoming)


def _worker_solver(shape: Shape, upcoming: int = 1) -> IncrementalSudokuSolver:
    return process_solver(shape, upcoming=upcoming, **_worker_options)


def _solve_odd(index: int, item: str, box: Shape | None, unique: bool,
               time_limit: float | None) -> BatchItem:
    """A puzzle line the fast parser did not take: the full parser decides (a precise
    error, or a puzzle of another shape, solved on that shape's solver)."""
    try:
        grid = parse_grid(item, box)
    except UserError as exc:
        return BatchItem(index, "error", error=str(exc))
    clues = grid.values.ravel().astype(np.uint8)
    result = _worker_solver(grid.shape).solve_clues(clues, unique=unique,
                                                    time_limit=time_limit)
    if result.status == Status.NO_SOLUTION:
        result = _conflict_error(index, clues, grid.shape) or result
    result.index, result.shape = index, grid.shape
    return result


def _conflict_error(index: int, clues: np.ndarray, shape: Shape) -> BatchItem | None:
    """For a puzzle without solution: repeated clues are bad input, not a puzzle without
    solution — the error saying which, as reading the puzzle says it (:func:`check_clues`),
    or None when the clues do not repeat."""
    try:
        check_clues(Grid(clues, shape))
    except UserError as exc:
        return BatchItem(index, "error", error=str(exc))
    return None


def _solve_chunk(start: int, items: list[str | np.ndarray], shape: Shape | None,
                 box: Shape | None, unique: bool, time_limit: float | None) -> BatchChunk:
    """Worker side: clean one-liners of the batch's shape (and clue arrays) are solved
    together (:meth:`IncrementalSudokuSolver.solve_rows`); other text one by one."""
    cells = 0 if shape is None else shape.size ** 2
    rows, offsets, odd = [], [], {}
    for offset, item in enumerate(items):
        clues = item if not isinstance(item, str) else (
            None if shape is None else clue_array_from_line(item, shape))
        if clues is None:
            odd[offset] = _solve_odd(start + offset, item, box, unique, time_limit)
        else:
            rows.append(clues)
            offsets.append(offset)
    chunk = BatchChunk.empty(len(items), cells, start)
    chunk.odd = odd
    if rows:
        solved = _worker_solver(shape, len(rows)).solve_rows(np.stack(rows), unique=unique,
                                                             time_limit=time_limit)
        chunk.status[offsets] = solved.status
        chunk.digits[offsets] = solved.digits
        chunk.unique[offsets] = solved.unique
        chunk.seconds[offsets] = solved.seconds
        chunk.second = {offsets[row]: second for row, second in solved.second.items()}
        for row in np.flatnonzero(solved.status == STATUS_CODE[Status.NO_SOLUTION]).tolist():
            offset = offsets[row]
            if isinstance(items[offset], str):
                error = _conflict_error(start + offset, rows[row], shape)
                if error is not None:
                    chunk.odd[offset] = error
    return chunk


def _solve_chunk_star(args):
    return _solve_chunk(*args)


def _grid_from_bytes(data: bytes | None, shape: Shape) -> Grid | None:
    if data is None:
        return None
    return Grid(np.frombuffer(data, dtype=np.uint8).reshape(shape.size, shape.size), shape)


CHUNK_MAX = 1000
CHUNK_MIN = 250
CHUNKS_PER_WORKER = 4


def batch_chunk_size(count: int, jobs: int) -> int:
    """Puzzles per chunk for a batch of ``count`` puzzles on ``jobs`` processes: enough
    chunks for :data:`CHUNKS_PER_WORKER` each, so that the workers finish together (chunks
    of equal size taken in turn: no worker is left with one more chunk than the others at
    the end), within [:data:`CHUNK_MIN`, :data:`CHUNK_MAX`].

    A chunk costs about 3 ms besides its puzzles (one solver call on all its rows, the
    forced-digit rounds, the round trip through the pool): 12,000 17-clue puzzles in one
    process took 0.71 s of CPU in chunks of 1,000, 0.82 s in chunks of 250 and 1.0 s in
    chunks of 125, hence the floor; the ceiling bounds what a chunk holds at once and the
    wait for the first printed line. The whole 17-clue file (49,151) is 49 chunks of
    1,000 on 2 processes, 64 of 768 on 16."""
    share = -(-count // (CHUNKS_PER_WORKER * max(jobs, 1)))
    return max(CHUNK_MIN, min(CHUNK_MAX, share))


def solve_batch_chunks(items: Sequence[str | np.ndarray], shape: Shape | None, *,
                       solver: str = DEFAULT_SOLVER, encoding: str = "extended",
                       amo: str = "auto", unique: bool = False,
                       time_limit: float | None = None, jobs: int = 1,
                       chunk_size: int | None = None, box: Shape | None = None
                       ) -> Iterator[BatchChunk]:
    """Solve many puzzles; yields a :class:`BatchChunk` per ``chunk_size`` puzzles (default
    :func:`batch_chunk_size`), in input order.

    ``items`` are puzzle lines (text; the fast one-line parser first, the full parser for
    anything else, with the block shape ``box`` if the user fixed one) or flat uint8 clue
    arrays of ``shape``. ``jobs > 1`` spreads chunks over a process pool with one incremental
    solver per process and shape.
    """
    chunk_size = chunk_size or batch_chunk_size(len(items), jobs)
    tasks = [(start, list(items[start:start + chunk_size]), shape, box, unique, time_limit)
             for start in range(0, len(items), chunk_size)]
    if jobs <= 1 or len(tasks) <= 1:
        _worker_init(solver, encoding, amo)
        try:
            for task in tasks:
                yield _solve_chunk(*task)
        finally:
            _PROCESS_SOLVERS.close_all()
        return
    with worker_pool(jobs, _pool_worker_init, (solver, encoding, amo)) as pool:
        yield from pool.map(_solve_chunk_star, tasks)


@dataclass
class LineBatch:
    """A file's puzzle lines on their way through :func:`solve_batch_chunks`: ``chunks`` in
    input order; ``shape`` the shape of the fast rows (None when no line could be read).
    The rest says how the route describes each answer, as its one-puzzle path would
    (:meth:`instance`): the pysat ``solver``, the ``encoding`` and at-most-one ``amo`` asked
    for, and ``clues`` — ``units`` for the sat route (whose formula holds a unit clause a
    clue: the kept solver's assumptions are the same constraints), ``assumptions`` for
    sat-incremental."""

    shape: Shape | None
    solver: str
    encoding: str
    amo: str
    clues: str
    chunks: Iterator[BatchChunk]

    def instance(self, shape: Shape, clue_count: int) -> dict:
        """The instance stats (:func:`instance_stats`) of a puzzle of ``shape`` with
        ``clue_count`` clues: what the route's one-puzzle path reports for it."""
        rules = _rules_of(shape, self.encoding, self.amo)
        return instance_stats(solver=self.solver, encoding=self.encoding, amo=rules.amo,
                              clues=self.clues, variables=rules.num_vars,
                              clauses=self.clauses(shape, clue_count))

    def clauses(self, shape: Shape, clue_counts):
        """The instance's clauses for puzzles of ``shape`` with ``clue_counts`` clues (an
        int, or an array of them): the rules', and with ``units`` a clause a clue."""
        return _rules_of(shape, self.encoding, self.amo).num_clauses \
            + clue_counts * (self.clues == "units")


@functools.lru_cache(maxsize=16)
def _rules_of(shape: Shape, encoding: str, amo: str) -> SudokuCnf:
    """The rules of ``shape`` as a formula (no clues; built lazily, so this only counts)."""
    return sudoku_cnf(Grid.empty(shape), encoding, amo, "units")


def solve_lines(lines: Sequence[str], *, box: Shape | None = None, unique: bool = False,
                time_limit: float | None = None, jobs: int = 1, memory_limit: int,
                what: str, solver: str | None = None, solver_cmd: str | None = None,
                encoding: str | None = None, amo: str | None = None,
                clues: str | None = None) -> LineBatch | None:
    """The batch capability of the ``sat`` route (:attr:`Route.batch
    <solvers.routes.registry.Route.batch>`): the puzzle lines of a file solved together,
    one incremental pysat solver per process and the clues as assumptions — or None when
    the options rule this out (an outside solver program, clues eliminated from the
    formula: then the puzzles go one by one through the route).

    The first readable line fixes the shape of the fast rows (``box`` when the user gave
    one); the memory estimate of one solver per worker is checked against
    ``memory_limit`` first (``what`` names the run in its refusal)."""
    if solver_cmd is not None or clues == "eliminate":
        return None
    return _line_batch(lines, box=box, unique=unique, time_limit=time_limit, jobs=jobs,
                       memory_limit=memory_limit, what=what, solver=solver,
                       encoding=encoding, amo=amo, clues="units")


def solve_lines_incremental(lines: Sequence[str], *, solver: str | None = None,
                            **options) -> LineBatch:
    """The batch capability of ``sat-incremental``: :func:`solve_lines`, each answer
    described as that route describes one (the rules, and the clues as assumptions)."""
    return _line_batch(lines, solver=solver, encoding=None, amo=None, clues="assumptions",
                       **options)


def _line_batch(lines: Sequence[str], *, box: Shape | None, unique: bool,
                time_limit: float | None, jobs: int, memory_limit: int, what: str,
                solver: str | None, encoding: str | None, amo: str | None,
                clues: str) -> LineBatch:
    solver = solver or DEFAULT_SOLVER
    encoding, amo = encoding or "extended", amo or "auto"
    shape = box
    if shape is None:
        # The first readable puzzle fixes the shape of the fast path; others still parse.
        for text in lines:
            try:
                shape = parse_grid(text, check=False).shape
                break
            except UserError:
                continue
    if shape is not None:
        # One incremental solver per worker process, all at once.
        workers = min(jobs, len(lines))
        ensure_fits(cnf_estimate(shape, encoding=encoding, amo=amo, solve=True)
                    .times(workers, "worker processes"),
                    memory_limit, f"{what} ({shape.size}x{shape.size} puzzles)")
    chunks = solve_batch_chunks(lines, shape, solver=solver, encoding=encoding, amo=amo,
                                unique=unique, time_limit=time_limit, jobs=jobs, box=box)
    return LineBatch(shape, solver, encoding, amo, clues, chunks)


def solve_batch(items: Sequence[str | np.ndarray], shape: Shape | None,
                **options) -> Iterator[BatchItem]:
    """:func:`solve_batch_chunks` one :class:`BatchItem` per puzzle, in input order."""
    for chunk in solve_batch_chunks(items, shape, **options):
        yield from chunk.items()


def solve_many(puzzles: Iterable[Grid], *, solver: str = DEFAULT_SOLVER,
               encoding: str = "extended", amo: str = "auto", unique: bool = False,
               time_limit: float | None = None, jobs: int = 1) -> Iterator[tuple[int, Outcome]]:
    """Solve Grid objects of one shape in a batch; yields (index, Outcome) in input order."""
    puzzles = list(puzzles)
    if not puzzles:
        return
    shape = puzzles[0].shape
    if any(p.shape != shape for p in puzzles):
        raise UserError("solve_many needs puzzles of one shape")
    clues = [p.values.ravel().astype(np.uint8) for p in puzzles]
    for item in solve_batch(clues, shape, solver=solver, encoding=encoding, amo=amo,
                            unique=unique, time_limit=time_limit, jobs=jobs):
        yield item.index, Outcome(item.status, item.grid(shape), item.unique,
                                  item.second_grid(shape))
