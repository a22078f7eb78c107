"""A file's puzzle lines solved together: chunks of puzzles on kept incremental solvers
(:mod:`solvers.routes.sat_incremental`), in this process or on a process pool, answers as
arrays; the batch capability of the ``sat`` and ``sat-incremental`` routes
(:func:`solve_lines`, :func:`solve_lines_incremental`), each answer described as the route's
one-puzzle path describes it (:func:`~solvers.routes.sat.instance_stats`,
:func:`~solvers.routes.sat.answer_stats`).

The batch path moves puzzles between processes as raw one-line text or flat clue arrays and
answers as arrays of N² bytes a puzzle (:class:`~solvers.routes.sat_incremental.BatchChunk`):
building Grid objects and re-parsing would cost more than CaDiCaL spends on a typical
17-clue puzzle. Workers decode the models with the rule of the blank grid
(:meth:`~reductions.encodings.cnf.SudokuToCnf.decode_rows`, a chunk's models at once) and
verify every answer (``solve_checks``, the rules' closed loop on arrays) before returning it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

import numpy as np

from reductions.encodings.cnf import SudokuCnf, SudokuToCnf
from reductions.errors import UserError
from reductions.sudoku.grid import Grid, Shape, check_clues, clue_array_from_line, parse_grid
from reductions.estimate import ensure_fits
from reductions.status import STATUS_CODE

from ..runtime.processes import become_worker, worker_pool
from ..runtime.pysat_solvers import DEFAULT_SOLVER
from ..outcome import Outcome, Status
from .options import CNF_CLUES, DEFAULT_AMO, DEFAULT_ENCODING
from .sat import instance_stats
from .sat_incremental import (BatchChunk, BatchItem, IncrementalSudokuSolver,
                              close_process_solvers, process_solver)


_worker_options: dict = {}


def _pool_worker_init(parent: int, solver: str, encoding: str, amo: str) -> None:
    """A pool worker (:func:`solvers.runtime.processes.become_worker`) with its solver
    options."""
    become_worker(parent)
    _worker_init(solver, encoding, amo)


def _worker_init(solver: str, encoding: str, amo: str) -> None:
    _worker_options.clear()
    _worker_options.update(solver=solver, encoding=encoding, amo=amo)



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



CHUNK_MAX = 1000
CHUNK_MIN = 250
CHUNKS_PER_WORKER = 4


def batch_chunk_size(count: int, jobs: int) -> int:
    """Puzzles per chunk for a batch of ``count`` puzzles on ``jobs`` processes: enough
    chunks for :data:`CHUNKS_PER_WORKER` each, so that the workers finish together (chunks
    of equal size taken in turn: no worker is left with one more chunk than the others at
    the end), within [:data:`CHUNK_MIN`, :data:`CHUNK_MAX`].

    A chunk has a fixed cost besides its puzzles (one solver call on all its rows, the
    forced-digit rounds, the round trip through the pool), which smaller chunks pay more
    often, hence the floor (figures: ``benchmarks/results/design_figures.md``); the ceiling
    bounds what a chunk holds at once and the wait for the first printed line. The whole 17-clue file (49,151) is 49 chunks of
    1,000 on 2 processes, 64 of 768 on 16."""
    share = -(-count // (CHUNKS_PER_WORKER * max(jobs, 1)))
    return max(CHUNK_MIN, min(CHUNK_MAX, share))


def solve_batch_chunks(items: Sequence[str | np.ndarray], shape: Shape | None, *,
                       solver: str = DEFAULT_SOLVER, encoding: str = DEFAULT_ENCODING,
                       amo: str = DEFAULT_AMO, unique: bool = False,
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
            close_process_solvers()
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
            + clue_counts * (self.clues == CNF_CLUES)


@functools.lru_cache(maxsize=16)
def _rules_of(shape: Shape, encoding: str, amo: str) -> SudokuCnf:
    """The rules of ``shape`` as a formula (no clues; built lazily, so this only counts)."""
    return SudokuToCnf.build(Grid.empty(shape), encoding=encoding, amo=amo,
                             clue_mode=CNF_CLUES).target


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
                       encoding=encoding, amo=amo, clues=CNF_CLUES)


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
    encoding, amo = encoding or DEFAULT_ENCODING, amo or DEFAULT_AMO
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
        ensure_fits(SudokuToCnf.estimate(shape, encoding=encoding, amo=amo, solve=True)
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
               encoding: str = DEFAULT_ENCODING, amo: str = DEFAULT_AMO, unique: bool = False,
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
