"""Solving exact cover: the C-backed ``exact-cover`` package, or our own Algorithm X.

One small interface, :func:`find_covers` (up to ``limit`` solutions of an instance), with two
backends:

* ``exact-cover`` — the PyPI package ``exact-cover`` (Knuth's dancing links in C; the
  fastest backend, figures in ``benchmarks/results/design_figures.md``). It takes a *dense*
  numpy 0/1 matrix, so it is used only while that matrix fits
  (:data:`reductions.encodings.exact_cover.DENSE_LIMIT_BYTES`); it cannot be interrupted, so under a
  time limit it runs in a child process (:class:`PackageWorker`, kept between puzzles) that
  is killed at the deadline and dies with its parent
  (:func:`solvers.runtime.processes.die_with_parent`). Where no child can be forked, ``dlx`` takes
  over.
* ``dlx`` — :func:`algorithm_x`, a plain Algorithm X in Python on a sparse representation
  (item → set of options), choosing the item with fewest options first as Knuth does. No
  dependency, any size, honours a deadline; slower than the package.

* ``dlx1`` — Knuth's ``dlx1`` program (on PATH), run on the file ``emit exact-cover`` writes:
  ``dlx1 m1 t1 < FILE`` (``t2`` to check uniqueness: dlx1 stops after that many solutions),
  through :func:`solvers.runtime.processes.run_program` (own process group, killed at the
  time limit).
  Its stdout (the solutions) and stderr (``Altogether K solutions``) are read together by the
  one dlx answer reader, :func:`solvers.formats.dlx.parse_answer`.

Any other exact-cover program runs through a command template (``cover_cmd``, see
:mod:`solvers.tools.cover_programs`): ``{input}`` the dlx file (or ``< {input}`` for a
program reading stdin), ``{output}`` a file it writes (else its stdout and stderr are
read), ``{limit}`` the number of solutions wanted. ``auto`` (the default) takes
``exact-cover`` when it is installed and the matrix fits, else ``dlx``.
:func:`count_solutions` counts up to a limit; :func:`solve_puzzle` is the solve route (clues
eliminated, uniqueness by asking for two solutions). Every grid is decoded by the rule
(:meth:`SudokuToExactCover.decode <reductions.encodings.exact_cover.SudokuToExactCover.decode>`)
and checked by its closed loop before it is returned; a second solution is always reported.
Statuses: an exhausted search is a proof ("no solution", "unique"); a search stopped by the time limit is "unknown".
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from reductions.encodings.exact_cover import (
    DENSE_LIMIT_BYTES,
    ExactCoverError,
    SudokuExactCover,
    SudokuToExactCover,
)
from reductions.sudoku.grid import Grid

from reductions.errors import UserError

from ..runtime.kept_models import KeptModels
from ..runtime.processes import become_worker, find_program
from ..outcome import Outcome, SolverUnavailable, Status, verified
from .options import EXACT_COVER, CoverSolver

DEFAULTS = EXACT_COVER.defaults


BACKENDS = tuple(CoverSolver)
DEADLINE_CHECK_NODES = 256
"""Search nodes between two looks at the clock in :func:`algorithm_x`."""


def exact_cover_package():
    """The ``exact_cover`` module, or None when it is not installed."""
    try:
        import exact_cover
    except ImportError:
        return None
    return exact_cover


@dataclass
class CoverSearch:
    """Result of a search: ``solutions`` (sorted local option arrays) and whether the search
    is ``complete`` (it found ``limit`` solutions or proved there are no more); a search cut
    by the time limit is incomplete."""

    solutions: list[np.ndarray]
    complete: bool
    backend: str
    seconds: float = 0.0
    reason: str = "time limit reached"
    """Why an incomplete search stopped."""
    details: dict = field(default_factory=dict)
    """What an outside program's run left (command, exit code, seconds)."""


# ----------------------------------------------------------------------------- Algorithm X

def algorithm_x(option_items: Sequence[Sequence[int]], num_items: int, limit: int = 1,
                deadline: float | None = None) -> tuple[list[list[int]], bool]:
    """Knuth's Algorithm X on a sparse instance; returns (solutions, complete).

    ``option_items[o]`` lists the items (0..num_items−1) of option o. Items are kept as
    item → set of options still available; choosing an option removes its items and every
    option that meets them, and is undone in reverse order on backtracking (the same
    covering discipline as dancing links, with Python sets instead of linked lists). The
    item with the fewest options is branched on first. Iterative, so the depth (N² for a
    Sudoku) is not bounded by Python's recursion limit.
    """
    options_of: dict[int, set[int]] = {i: set() for i in range(num_items)}
    for option, items in enumerate(option_items):
        for item in items:
            options_of[item].add(option)
    items_of = option_items
    if not options_of:
        return [[]], True
    solutions: list[list[int]] = []
    partial: list[int] = []
    # Each level: [candidate options, next index, undo record of the current choice].
    stack: list[list] = [[sorted(options_of[_best_item(options_of)]), 0, None]]
    nodes = 0
    while stack:
        level = stack[-1]
        if level[2] is not None:
            _unchoose(options_of, items_of, partial.pop(), level[2])
            level[2] = None
        if level[1] >= len(level[0]):
            stack.pop()
            continue
        nodes += 1
        if deadline is not None and nodes % DEADLINE_CHECK_NODES == 0 \
                and time.perf_counter() > deadline:
            return solutions, False
        option = level[0][level[1]]
        level[1] += 1
        level[2] = _choose(options_of, items_of, option)
        partial.append(option)
        if not options_of:
            solutions.append(sorted(partial))
            if len(solutions) >= limit:
                return solutions, True
            continue
        item = _best_item(options_of)
        if options_of[item]:
            stack.append([sorted(options_of[item]), 0, None])
    return solutions, True


def _choose(options_of: dict[int, set[int]], items_of: Sequence[Sequence[int]],
            option: int) -> list[set[int]]:
    """Cover ``option``: remove its items from ``options_of`` and every other option that
    meets them from the items it still lists; returns the undo record for :func:`_unchoose`
    (the removed items' option sets, in ``items_of[option]``'s order)."""
    removed = []
    for item in items_of[option]:
        for other in options_of[item]:
            for other_item in items_of[other]:
                if other_item != item:
                    options_of[other_item].discard(other)
        removed.append(options_of.pop(item))
    return removed


def _unchoose(options_of: dict[int, set[int]], items_of: Sequence[Sequence[int]],
              option: int, removed: list[set[int]]) -> None:
    """Undo :func:`_choose` of ``option`` exactly, in reverse order (so choices made after
    it must be undone first)."""
    for item in reversed(items_of[option]):
        options_of[item] = removed.pop()
        for other in options_of[item]:
            for other_item in items_of[other]:
                if other_item != item:
                    options_of[other_item].add(other)


def _best_item(options_of: dict[int, set[int]]) -> int:
    """The item with the fewest options left (the first such in dict order)."""
    return min(options_of, key=lambda item: len(options_of[item]))


# ----------------------------------------------------------------------------- backends

def _package_search(matrix: np.ndarray, limit: int) -> list[list[int]]:
    package = exact_cover_package()
    matrix = np.require(matrix, dtype=np.bool_, requirements=["C_CONTIGUOUS"])
    if limit == 1:
        try:
            found = [package.get_exact_cover(matrix)]
        except package.error.NoSolution:
            return []
    else:
        # The package's get_all_solutions (1.5.0) strips the -1 padding of each solution row
        # wrongly: a solution that uses every option comes back as an empty tuple. So call
        # the C function it wraps and strip the padding here.
        from exact_cover_impl import get_all_solutions as all_solutions
        found = [row[row >= 0] for row in all_solutions(matrix, limit)]
    return sorted(sorted(int(o) for o in solution) for solution in found)


class WorkerUnavailable(Exception):
    """No child process can be started here (no fork, or a daemonic pool worker)."""


def _serve_searches(connection, parent: int) -> None:
    """Child process loop: run C searches until the parent closes the pipe. The child dies
    with its parent (a parent killed outright closes no pipe this loop would notice while
    a search runs) and leaves Ctrl-C to the parent, which kills it."""
    become_worker(parent)
    while True:
        try:
            matrix, limit = connection.recv()
        except (EOFError, OSError):
            return
        connection.send(_package_search(matrix, limit))


class PackageWorker:
    """A child process that runs the C search and is kept between calls, so a time-limited
    search costs a pipe round trip rather than a fork. The C code cannot be interrupted: a
    search still running at its deadline is ended by killing the child, and the next call
    starts a new one."""

    def __init__(self) -> None:
        self.process = None
        self.connection = None
        self.lock = threading.Lock()

    def _start(self) -> None:
        try:
            context = multiprocessing.get_context("fork")
            ours, theirs = context.Pipe()
            process = context.Process(target=_serve_searches, args=(theirs, os.getpid()),
                                      daemon=True)
            process.start()
        except (ValueError, AssertionError, OSError) as exc:
            raise WorkerUnavailable(str(exc)) from None
        theirs.close()
        self.process, self.connection = process, ours

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.join()
            self.connection.close()
            self.process = self.connection = None

    def search(self, matrix: np.ndarray, limit: int,
               time_limit: float) -> list[list[int]] | None:
        """Solutions, or None when the search was still running at the time limit."""
        with self.lock:
            if self.process is None or not self.process.is_alive():
                self.stop()
                self._start()
            self.connection.send((matrix, limit))
            if self.connection.poll(max(time_limit, 0.0)):
                try:
                    return self.connection.recv()
                except EOFError:
                    self.stop()
                    raise ExactCoverError("the exact-cover package's search process died") \
                        from None
            self.stop()
            return None


_PACKAGE_WORKERS: KeptModels[PackageWorker] = KeptModels(
    "exact-cover package worker", build=lambda _: PackageWorker(), close=PackageWorker.stop,
    renew_after=None)
"""This process's search child, kept between puzzles (one, under the key None). Never
renewed: each search is independent of the ones before, and a child killed at a deadline is
already replaced by :meth:`PackageWorker.search`."""


def package_worker() -> PackageWorker:
    """This process's :class:`PackageWorker` (its child starts on its first search)."""
    return _PACKAGE_WORKERS.get(None)


def choose_backend(cover: SudokuExactCover, backend: str = CoverSolver.AUTO,
                   max_dense_bytes: int = DENSE_LIMIT_BYTES) -> str:
    """The backend that will run: ``auto`` resolves to ``exact-cover`` or ``dlx``."""
    if backend not in BACKENDS:
        raise ExactCoverError(f"unknown exact-cover backend {backend!r}; choose one of "
                              f"{', '.join(BACKENDS)}")
    if backend == CoverSolver.DLX1:
        find_program("dlx1", what="exact-cover solver")    # missing: one line, at once
        return backend
    dense_bytes = cover.num_options * cover.num_items
    if backend == CoverSolver.AUTO:
        if exact_cover_package() is not None and dense_bytes <= max_dense_bytes:
            return CoverSolver.PACKAGE.value
        return CoverSolver.DLX.value
    if backend == CoverSolver.PACKAGE:
        if exact_cover_package() is None:
            raise SolverUnavailable("the 'exact-cover' package is not installed "
                                    "(pip install exact-cover), use --cover-solver dlx")
        cover.check_dense_fits(max_dense_bytes)
    return backend


def find_covers(cover: SudokuExactCover, limit: int = 1, backend: str = CoverSolver.AUTO,
                time_limit: float | None = None,
                max_dense_bytes: int = DENSE_LIMIT_BYTES, *,
                command: str | None = None) -> CoverSearch:
    """Up to ``limit`` exact covers of ``cover`` (local option numbers), found by
    ``backend`` or, when given, by the outside program ``command`` (see
    :func:`~solvers.tools.cover_programs.cover_command`)."""
    if limit < 1:
        raise ExactCoverError(f"solution limit must be at least 1, got {limit}")
    # Outside programs are loaded when one runs, not at start-up.
    from ..tools.cover_programs import cover_command, run_cover_command
    start = time.perf_counter()
    template = cover_command(command) if command is not None else None
    if template is None:
        backend = choose_backend(cover, backend, max_dense_bytes)
        if backend == CoverSolver.DLX1:
            template = cover_command("dlx1")
    if template is not None:
        backend = template.name
        find_program(template.program, what="exact-cover solver")
    if cover.num_items == 0:
        # Nothing left to cover: the empty set of options is the one solution (and dlx1
        # refuses a file without items).
        return CoverSearch([np.zeros(0, dtype=np.int64)], True, backend,
                           time.perf_counter() - start)
    if template is not None:
        found = run_cover_command(template, cover, limit=limit, time_limit=time_limit)
        return CoverSearch(found.solutions, found.complete, backend, found.seconds,
                           found.reason, found.details)
    if cover.uncoverable_items().size:
        return CoverSearch([], True, backend, time.perf_counter() - start)
    if backend == CoverSolver.PACKAGE:
        matrix = cover.dense_matrix(max_dense_bytes)
        if time_limit is None:
            found, complete = _package_search(matrix, limit), True
        else:
            try:
                found = package_worker().search(matrix, limit,
                                                time_limit - (time.perf_counter() - start))
                found, complete = (found, True) if found is not None else ([], False)
            except WorkerUnavailable:
                # cannot run the C search apart: ours keeps the deadline
                backend = CoverSolver.DLX.value
    if backend == CoverSolver.DLX:
        deadline = None if time_limit is None else start + time_limit
        found, complete = algorithm_x(cover.option_items.tolist(), cover.num_items, limit,
                                      deadline)
    solutions = [np.asarray(s, dtype=np.int64) for s in found]
    return CoverSearch(solutions, complete, backend, time.perf_counter() - start)


def count_solutions(cover: SudokuExactCover, limit: int, backend: str = CoverSolver.AUTO,
                    time_limit: float | None = None) -> tuple[int, bool]:
    """(number of solutions found, exact): exact is False when the count stopped at
    ``limit`` (there may be more) or the time ran out."""
    search = find_covers(cover, limit, backend, time_limit)
    count = len(search.solutions)
    return count, search.complete and count < limit


# ----------------------------------------------------------------------------- solve route

def solve_puzzle(puzzle: Grid, *, cover_solver: str = DEFAULTS["cover_solver"],
                 cover_cmd: str | None = None, clues: str = DEFAULTS["clues"], unique: bool = False,
                 time_limit: float | None = None) -> Outcome:
    """Solve a puzzle through exact cover with the backend ``cover_solver`` (see
    :data:`BACKENDS`) or the outside program ``cover_cmd`` (a command template, see
    :func:`~solvers.tools.cover_programs.cover_command`); with ``unique``, look for a second
    solution."""
    if cover_cmd is not None:
        if cover_solver != CoverSolver.AUTO:
            raise UserError("give a --cover-solver or a --cover-cmd, not both")
        from ..tools.cover_programs import cover_command
        cover_command(cover_cmd)              # a bad template is refused before any work
    start = time.perf_counter()
    rule = SudokuToExactCover.build(puzzle, clues=clues)
    cover = rule.target
    search = find_covers(cover, 2 if unique else 1, cover_solver, time_limit,
                         command=cover_cmd)
    stats = {"backend": search.backend, "options": cover.num_options,
             "items": cover.num_items, "clues": clues, **search.details,
             "seconds": round(time.perf_counter() - start, 6)}
    grids = [verified(rule, rule.decode(s), f"exact cover ({search.backend})")
             for s in search.solutions]
    if not grids:
        if search.complete:
            return Outcome(Status.NO_SOLUTION, stats=stats)
        return Outcome(Status.UNKNOWN, stats={**stats, "reason": search.reason})
    if not unique:
        return Outcome(Status.SOLVED, grids[0], None, None, stats)
    if len(grids) > 1:
        if grids[0] == grids[1]:
            raise ExactCoverError("the search returned the same grid twice")
        return Outcome(Status.SOLVED, grids[0], False, grids[1], stats)
    if not search.complete:
        stats["reason"] = search.reason
    return Outcome(Status.SOLVED, grids[0], True if search.complete else None, None, stats)
