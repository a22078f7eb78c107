"""One kept pysat solver for many puzzles of one shape: the rule clauses loaded once, each
puzzle's clues given as *assumptions* (the ``sat-incremental`` route, the batches of
:mod:`solvers.routes.sat_batch`, the generator's uniqueness oracle).

* :class:`IncrementalSudokuSolver` — one solver per shape holding the rule clauses
  (``units`` mode, no clues); thousands of puzzles share it and its learnt clauses. Default
  solver: CaDiCaL 1.9.5 (pysat name ``cadical195``). Rows of puzzles go through it at once
  (:meth:`~IncrementalSudokuSolver.solve_rows`), their answers as arrays
  (:class:`BatchChunk`, :class:`BatchItem`).
* :func:`process_solver` — this process's kept solver for a shape and its options, renewed
  every :data:`FRESH_SOLVER_EVERY` puzzles; :func:`solve_incremental` — one puzzle on it.

Models are decoded by the rule of the blank grid (the kept solver's formula:
:meth:`SudokuToCnf.decode_rows <reductions.encodings.cnf.SudokuToCnf.decode_rows>`, K models at
once) and every answer is verified before it is returned with
:func:`~reductions.sudoku.grid.solve_checks`, the function the rules' closed loop
(:func:`~reductions.reduction.grid_problems`) runs, here on K answers at once against each
one's own clues (which the blank grid's rule does not hold: they are assumptions).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from reductions.encodings.cnf import SudokuToCnf
from reductions.errors import UserError
from reductions.sudoku.forced import forced_digits
from reductions.sudoku.grid import SYMBOLS, Grid, Shape, solve_checks, solves_clues
from reductions.status import STATUS_CODE, STATUS_CODES

from ..runtime.budget import Deadline, solve_within
from ..runtime.kept_models import KeptModels
from ..runtime.pysat_solvers import DEFAULT_SOLVER, new_pysat_solver
from ..outcome import Outcome, Status, WrongAnswer
from .options import CNF_CLUES, DEFAULT_AMO, DEFAULT_ENCODING
from .sat import answer_stats, instance_stats


class IncrementalSudokuSolver:
    """Many puzzles of one shape through one solver: rules loaded once, clues as assumptions.

    Uniqueness: after a first solution, a blocking clause (some free cell differs) is added
    behind a fresh *activation* variable, so it applies only to this puzzle's second call and
    is switched off for good afterwards.
    """

    def __init__(self, shape: Shape, solver: str = DEFAULT_SOLVER,
                 encoding: str = DEFAULT_ENCODING, amo: str = DEFAULT_AMO):
        self.shape = shape
        self.n = shape.size
        self.name = solver
        self.rule = SudokuToCnf.build(Grid.empty(shape), encoding=encoding, amo=amo,
                                      clue_mode=CNF_CLUES)
        """The blank grid's rule: the formula kept, and the decoding of its models."""
        rules = self.rule.target
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
        return self.rule.decode_rows(np.asarray(self.solver.get_model()[: self.n ** 3]))

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
                digits = self._checked(clues[row], self.rule.decode_rows(model))
                verdict, second = self._other_solution(fixed[row], digits, deadline)
                chunk.unique[row] = -1 if verdict is None else int(verdict)
                if second is not None:
                    chunk.second[row] = second.tobytes()
            chunk.seconds[row] += time.perf_counter() - started
        if solved:
            found = self.rule.decode_rows(models[:len(solved)])
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


FORCED_MIN_BATCH = 64
"""Batches this large go through :func:`~reductions.sudoku.forced.forced_digits` first. Its cost is
a fixed number of array operations per round whatever the batch size, so it pays only over
many puzzles, where it costs less than the solver calls it saves (figures:
``benchmarks/results/design_figures.md``)."""


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



    def parts(self, unique: bool) -> Iterator[SolvedRun | BatchItem]:
        """The chunk in order as runs of consecutive solved puzzles (verified in the worker;
        with ``unique``, also proved unique), which a printer can write at once, and single
        :class:`BatchItem` s for anything else."""
        simple = (self.status == STATUS_CODE[Status.SOLVED])
        if unique:
            simple &= self.unique == 1
        simple[list(self.odd)] = False
        cuts = np.flatnonzero(np.diff(np.concatenate([[0], simple.view(np.int8), [0]])))
        begin = 0
        items = None
        for run_start, run_end in zip(cuts[::2].tolist(), cuts[1::2].tolist()):
            if begin < run_start:
                items = items or list(self.items())
                yield from items[begin:run_start]
            yield SolvedRun(self, run_start, run_end)
            begin = run_end
        if begin < len(self):
            items = items or list(self.items())
            yield from items[begin:]


@dataclass
class SolvedRun:
    """Puzzles ``begin:end`` of ``chunk`` (offsets in it), all solved: their answers as text
    at once, in one array operation (:meth:`BatchChunk.parts`)."""

    chunk: BatchChunk
    begin: int
    end: int

    @property
    def first(self) -> int:
        """The index of the run's first puzzle in the batch."""
        return self.chunk.start + self.begin

    def __len__(self) -> int:
        return self.end - self.begin

    def lines(self, ending: str) -> str:
        """Each solution as a one-line grid followed by ``ending``."""
        return one_line_grids(self.chunk.digits[self.begin:self.end], ending)

    def solutions(self) -> str:
        """The solutions as one-line grids, one after the other."""
        return one_line_grids(self.chunk.digits[self.begin:self.end])

    def seconds(self) -> list[float]:
        """The time spent on each puzzle of the run."""
        return self.chunk.seconds[self.begin:self.end].tolist()


_LINE_SYMBOLS = np.frombuffer(b"." + SYMBOLS.encode(), dtype=np.uint8)


def one_line_grids(rows: np.ndarray, ending: str = "") -> str:
    """Rows of digits (0 for empty) as one-line grids, each followed by ``ending``."""
    text = _LINE_SYMBOLS[rows]
    if ending:
        tail = np.frombuffer(ending.encode(), dtype=np.uint8)
        text = np.hstack([text, np.broadcast_to(tail, (len(text), len(tail)))])
    return text.tobytes().decode("ascii")


def _grid_from_bytes(data: bytes | None, shape: Shape) -> Grid | None:
    if data is None:
        return None
    return Grid(np.frombuffer(data, dtype=np.uint8).reshape(shape.size, shape.size), shape)



FRESH_SOLVER_EVERY = 2000
"""Puzzles one kept solver serves before it is replaced by a fresh one. Learnt clauses of
earlier puzzles pile up and slow every later call (figures:
``benchmarks/results/design_figures.md``)."""
_PROCESS_SOLVERS: KeptModels[IncrementalSudokuSolver] = KeptModels(
    "sat incremental solver", build=lambda key: IncrementalSudokuSolver(*key),
    close=IncrementalSudokuSolver.close, renew_after=FRESH_SOLVER_EVERY)
"""This process's incremental solvers, by (shape, solver, encoding, at-most-one); each pool
worker has its own."""


def process_solver(shape: Shape, *, solver: str = DEFAULT_SOLVER,
                   encoding: str = DEFAULT_ENCODING, amo: str = DEFAULT_AMO,
                   upcoming: int = 1) -> IncrementalSudokuSolver:
    """This process's incremental solver for these options (a
    :class:`~solvers.runtime.kept_models.KeptModels`), made on first use and replaced by a
    fresh one once it would serve more than :data:`FRESH_SOLVER_EVERY` puzzles
    (``upcoming`` are about to be solved on it)."""
    return _PROCESS_SOLVERS.get((shape, solver, encoding, amo), uses=upcoming)


def close_process_solvers() -> None:
    """Close every kept solver of this process (a batch in this process is over)."""
    _PROCESS_SOLVERS.close_all()
